// An OCI image layout (image-spec 1.1) of one layer, written reproducibly: the layer is a tar of
// the root file system sorted by name, every file dated `epoch` and owned by root, gzipped
// without a timestamp, so the same files give the same digest.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ImageConfig {
  user: string;
  entrypoint: string[];
  env: string[];
  workingDir: string;
  /** Dates the image's config (`created`) as it dates the layer's files. */
  epoch: number;
  /** `org.opencontainers.image.ref.name` in the index: the tag it is loaded as. */
  reference: string;
}

export interface WrittenImage {
  /** sha256:… of the manifest: the image's digest once pushed. */
  digest: string;
  /** Of the compressed layer. */
  layerBytes: number;
}

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

function sha256(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** Tars `dir` into `file` the same way every time: sorted by name, dated `epoch`, owned by root. */
export async function reproducibleTar(dir: string, file: string, epoch: number): Promise<void> {
  await run('tar', [
    '--create',
    `--file=${file}`,
    `--directory=${dir}`,
    '--sort=name',
    `--mtime=@${epoch}`,
    '--owner=0',
    '--group=0',
    '--numeric-owner',
    '--format=posix',
    '--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime',
    '.',
  ]);
}

/** Writes `layout` (a directory) holding the image of `root`. */
export async function writeOciLayout(root: string, layout: string, config: ImageConfig): Promise<WrittenImage> {
  const blobs = path.join(layout, 'blobs/sha256');
  mkdirSync(blobs, { recursive: true });
  const blob = (bytes: Buffer, mediaType: string): Descriptor => {
    const digest = sha256(bytes);
    writeFileSync(path.join(blobs, digest.slice('sha256:'.length)), bytes);
    return { mediaType, digest, size: bytes.length };
  };

  const tarFile = path.join(layout, 'layer.tar');
  await reproducibleTar(root, tarFile, config.epoch);
  const diffId = sha256(readFileSync(tarFile));
  await run('gzip', ['-n', '-f', tarFile]);
  const layerPath = `${tarFile}.gz`;
  const layerBytes = statSync(layerPath).size;
  const layerDigest = sha256(readFileSync(layerPath));
  renameSync(layerPath, path.join(blobs, layerDigest.slice('sha256:'.length)));
  const layer = { mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: layerDigest, size: layerBytes };

  const configBlob = blob(
    Buffer.from(
      JSON.stringify({
        created: new Date(config.epoch * 1000).toISOString(),
        architecture: 'amd64',
        os: 'linux',
        config: {
          User: config.user,
          Entrypoint: config.entrypoint,
          Env: config.env,
          WorkingDir: config.workingDir,
        },
        rootfs: { type: 'layers', diff_ids: [diffId] },
      }),
    ),
    'application/vnd.oci.image.config.v1+json',
  );
  const manifest = blob(
    Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: configBlob,
        layers: [layer],
      }),
    ),
    'application/vnd.oci.image.manifest.v1+json',
  );
  writeFileSync(path.join(layout, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  writeFileSync(
    path.join(layout, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.index.v1+json',
      manifests: [{ ...manifest, annotations: { 'org.opencontainers.image.ref.name': config.reference } }],
    }),
  );
  return { digest: manifest.digest, layerBytes };
}
