// The images the node agent can run as real processes, as a container runtime keeps them: each
// loaded from an OCI layout under the reference Pods name it by, its layers unpacked once into a
// root file system beside its config. Pods whose image is not here run as hosted sample workers.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What the runtime needs of an image's config (OCI image-spec `config`). */
export interface ImageRunConfig {
  entrypoint: string[];
  cmd: string[];
  env: string[];
  /** uid[:gid], numeric. */
  user: string;
  workingDir: string;
}

export interface StoredImage {
  rootfs: string;
  config: ImageRunConfig;
}

export class ImageLoadError extends Error {
  override name = 'ImageLoadError';
}

interface Descriptor {
  mediaType: string;
  digest: string;
}

/** Unpacks the one image of the OCI layout `layout` into `store` and tags it `reference`. */
export async function loadImage(layout: string, store: string, reference: string): Promise<StoredImage> {
  const blob = (digest: string): string => path.join(layout, 'blobs', ...digest.split(':'));
  const json = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;
  const index = json<{ manifests?: Descriptor[] }>(path.join(layout, 'index.json'));
  const manifestDescriptor = index.manifests?.[0];
  if (!manifestDescriptor) throw new ImageLoadError(`${layout}: index.json names no manifest`);
  const manifest = json<{ config: Descriptor; layers: Descriptor[] }>(blob(manifestDescriptor.digest));
  const imageConfig = json<{ config?: Record<string, unknown> }>(blob(manifest.config.digest)).config ?? {};
  const config: ImageRunConfig = {
    entrypoint: (imageConfig.Entrypoint as string[] | undefined) ?? [],
    cmd: (imageConfig.Cmd as string[] | undefined) ?? [],
    env: (imageConfig.Env as string[] | undefined) ?? [],
    user: (imageConfig.User as string | undefined) ?? '0',
    workingDir: (imageConfig.WorkingDir as string | undefined) || '/',
  };
  const dir = path.join(store, manifestDescriptor.digest.replace(':', '-'));
  if (!existsSync(path.join(dir, 'config.json'))) {
    const unpacking = `${dir}.unpacking`;
    rmSync(unpacking, { recursive: true, force: true });
    mkdirSync(path.join(unpacking, 'rootfs'), { recursive: true });
    for (const layer of manifest.layers) {
      if (!layer.mediaType.endsWith('tar+gzip') && !layer.mediaType.endsWith('.tar'))
        throw new ImageLoadError(`${layout}: layer ${layer.digest} is ${layer.mediaType}, not a tar or gzipped tar`);
      // Whiteouts are not handled: our images have one layer.
      await run('tar', ['-x', '--same-owner', '-p', '-f', blob(layer.digest), '-C', path.join(unpacking, 'rootfs')]);
    }
    writeFileSync(path.join(unpacking, 'config.json'), JSON.stringify(config));
    rmSync(dir, { recursive: true, force: true });
    renameSync(unpacking, dir);
  }
  mkdirSync(path.join(store, 'refs'), { recursive: true });
  const refFile = path.join(store, 'refs', encodeURIComponent(reference));
  writeFileSync(`${refFile}.new`, path.basename(dir));
  renameSync(`${refFile}.new`, refFile);
  return { rootfs: path.join(dir, 'rootfs'), config };
}

/** The image loaded as `reference`, if any. */
export function findImage(store: string, reference: string): StoredImage | undefined {
  const refFile = path.join(store, 'refs', encodeURIComponent(reference));
  if (!existsSync(refFile)) return undefined;
  const dir = path.join(store, readFileSync(refFile, 'utf8').trim());
  return {
    rootfs: path.join(dir, 'rootfs'),
    config: JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')) as ImageRunConfig,
  };
}
