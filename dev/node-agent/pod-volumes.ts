// The volumes a container mounts, as a kubelet would mount them: Secret, ConfigMap and projected
// volumes (of Secret, ConfigMap and service-account token sources) become files read from the API
// server, an emptyDir an empty directory anyone may write; projected tokens are renewed in place. Every worker
// lives in the agent's one process, so a container's mountPath cannot exist for it alone (a mount
// namespace belongs to a whole process): the files go to a directory of the Pod's own, and every
// environment value that starts with a mountPath is rewritten to point into that directory.
import type {
  V1Container,
  V1KeyToPath,
  V1Pod,
  V1ServiceAccountTokenProjection,
  V1Volume,
} from '@kubernetes/client-node';
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface VolumeSources {
  /** Each key's bytes, undefined when the object does not exist. */
  secret(namespace: string, name: string): Promise<Record<string, Buffer> | undefined>;
  configMap(namespace: string, name: string): Promise<Record<string, Buffer> | undefined>;
  /** A token of the Pod's service account for `projection`, bound to the Pod (TokenRequest). */
  serviceAccountToken(pod: V1Pod, projection: V1ServiceAccountTokenProjection): Promise<string>;
}

/** A projected token's lifetime when its source names none: the API's default. */
const DEFAULT_TOKEN_SECONDS = 3600;

/** A volume cannot be mounted: the Pod waits in ContainerCreating, as a kubelet's would. */
export class PodVolumeError extends Error {
  override name = 'PodVolumeError';
}

/** Each mountPath of `container`, with the directory that stands for it. */
export type Mounts = Map<string, string>;

/** Writes the volumes `container` mounts under `dir`, afresh: a restarted worker sees what the API server holds then. */
export async function mountVolumes(
  pod: V1Pod,
  container: V1Container,
  sources: VolumeSources,
  dir: string,
): Promise<Mounts> {
  const mounts: Mounts = new Map();
  await rm(dir, { recursive: true, force: true });
  for (const mount of container.volumeMounts ?? []) {
    const volume = pod.spec?.volumes?.find((v) => v.name === mount.name);
    if (!volume) throw new PodVolumeError(`volumeMount ${mount.name}: the Pod has no volume of that name`);
    if (mount.subPath || mount.subPathExpr)
      throw new PodVolumeError(`volumeMount ${mount.name}: subPath is not supported by the local node agent`);
    const files = await volumeFiles(pod, volume, sources);
    const target = path.join(dir, volume.name);
    // Modes as a kubelet sets them, for a container that runs as another user; `dir` itself is
    // for this process alone.
    await mkdir(target, { recursive: true });
    await chmod(target, volume.emptyDir ? 0o777 : 0o755);
    for (const [file, { bytes, mode }] of files) {
      const at = path.join(target, file);
      if (!at.startsWith(`${target}${path.sep}`))
        throw new PodVolumeError(`volume ${volume.name}: path ${file} leaves the volume`);
      await mkdir(path.dirname(at), { recursive: true, mode: 0o755 });
      await writeFile(at, bytes);
      await chmod(at, mode);
    }
    mounts.set(mount.mountPath, target);
  }
  return mounts;
}

/** `env` with every value under a mountPath pointing into the directory that stands for it (the longest mountPath wins). */
export function underMounts(env: Record<string, string>, mounts: Mounts): Record<string, string> {
  const byLength = [...mounts].sort(([a], [b]) => b.length - a.length);
  return Object.fromEntries(
    Object.entries(env).map(([name, value]) => {
      for (const [mountPath, dir] of byLength) {
        const prefix = mountPath.endsWith('/') ? mountPath : `${mountPath}/`;
        if (value === mountPath) return [name, dir];
        if (value.startsWith(prefix)) return [name, path.join(dir, value.slice(prefix.length))];
      }
      return [name, value];
    }),
  );
}

interface VolumeFile {
  bytes: Buffer;
  mode: number;
}

/** The kubelet's default mode of a projected key's file. */
const DEFAULT_MODE = 0o644;

/** The files of one volume, by path inside it. */
async function volumeFiles(pod: V1Pod, volume: V1Volume, sources: VolumeSources): Promise<Map<string, VolumeFile>> {
  const namespace = pod.metadata?.namespace ?? 'default';
  const cannot = `MountVolume.SetUp failed for volume "${volume.name}"`;
  if (volume.emptyDir) return new Map();
  if (volume.secret) {
    const { secretName = '', items, optional, defaultMode } = volume.secret;
    return projected(`${cannot}: Secret ${namespace}/${secretName}`, await sources.secret(namespace, secretName), {
      items,
      optional,
      defaultMode,
    });
  }
  if (volume.configMap) {
    const { name = '', items, optional, defaultMode } = volume.configMap;
    return projected(`${cannot}: ConfigMap ${namespace}/${name}`, await sources.configMap(namespace, name), {
      items,
      optional,
      defaultMode,
    });
  }
  if (volume.projected) {
    const files = new Map<string, VolumeFile>();
    const { defaultMode } = volume.projected;
    for (const source of volume.projected.sources ?? []) {
      const part = source.secret
        ? projected(
            `${cannot}: Secret ${namespace}/${source.secret.name ?? ''}`,
            await sources.secret(namespace, source.secret.name ?? ''),
            { ...source.secret, defaultMode },
          )
        : source.configMap
          ? projected(
              `${cannot}: ConfigMap ${namespace}/${source.configMap.name ?? ''}`,
              await sources.configMap(namespace, source.configMap.name ?? ''),
              { ...source.configMap, defaultMode },
            )
          : source.serviceAccountToken
            ? new Map([
                [
                  source.serviceAccountToken.path,
                  {
                    bytes: Buffer.from(await tokenFor(cannot, pod, source.serviceAccountToken, sources)),
                    mode: defaultMode ?? DEFAULT_MODE,
                  },
                ],
              ])
            : undefined;
      if (!part)
        throw new PodVolumeError(
          `${cannot}: only Secret, ConfigMap and serviceAccountToken sources of a projected volume are supported by the local node agent`,
        );
      for (const [file, content] of part) files.set(file, content);
    }
    return files;
  }
  throw new PodVolumeError(
    `${cannot}: only Secret, ConfigMap, projected and emptyDir volumes are supported by the local node agent`,
  );
}

/** Every key as a file of its name, or only `items`, each at its path. */
function projected(
  what: string,
  data: Record<string, Buffer> | undefined,
  options: { items?: V1KeyToPath[]; optional?: boolean; defaultMode?: number },
): Map<string, VolumeFile> {
  const { items, optional, defaultMode = DEFAULT_MODE } = options;
  if (!data) {
    if (optional) return new Map();
    throw new PodVolumeError(`${what} not found`);
  }
  if (!items) return new Map(Object.entries(data).map(([key, bytes]) => [key, { bytes, mode: defaultMode }]));
  const files = new Map<string, VolumeFile>();
  for (const item of items) {
    const bytes = data[item.key];
    if (bytes === undefined) {
      if (optional) continue;
      throw new PodVolumeError(`${what} has no key ${item.key}`);
    }
    files.set(item.path, { bytes, mode: item.mode ?? defaultMode });
  }
  return files;
}

async function tokenFor(
  cannot: string,
  pod: V1Pod,
  projection: V1ServiceAccountTokenProjection,
  sources: VolumeSources,
): Promise<string> {
  try {
    return await sources.serviceAccountToken(pod, projection);
  } catch (error) {
    const account = pod.spec?.serviceAccountName ?? 'default';
    throw new PodVolumeError(`${cannot}: cannot request a token of ServiceAccount ${account}: ${String(error)}`, {
      cause: error,
    });
  }
}

/** The service-account tokens projected into the volumes `container` mounts, each with its file under `dir`. */
function projectedTokens(
  pod: V1Pod,
  container: V1Container,
  dir: string,
): { file: string; projection: V1ServiceAccountTokenProjection }[] {
  return (container.volumeMounts ?? []).flatMap((mount) => {
    const volume = pod.spec?.volumes?.find((v) => v.name === mount.name);
    return (volume?.projected?.sources ?? []).flatMap((source) =>
      source.serviceAccountToken
        ? [
            {
              file: path.join(dir, volume?.name ?? '', source.serviceAccountToken.path),
              projection: source.serviceAccountToken,
            },
          ]
        : [],
    );
  });
}

/**
 * When the tokens mountVolumes wrote are due again: at 80% of the shortest life, as a kubelet
 * renews them, or after `renewAfterMs`; undefined when `container` mounts none.
 */
export function tokenRenewalMs(pod: V1Pod, container: V1Container, renewAfterMs?: number): number | undefined {
  const lives = projectedTokens(pod, container, '').map((t) => t.projection.expirationSeconds ?? DEFAULT_TOKEN_SECONDS);
  if (lives.length === 0) return undefined;
  return renewAfterMs ?? Math.min(...lives) * 800;
}

/** Writes a new token into each token file mountVolumes wrote under `dir`, renamed into place so a reader never sees half of one. */
export async function renewTokens(
  pod: V1Pod,
  container: V1Container,
  sources: VolumeSources,
  dir: string,
): Promise<void> {
  for (const { file, projection } of projectedTokens(pod, container, dir)) {
    const token = await sources.serviceAccountToken(pod, projection);
    const next = path.join(path.dirname(file), `.${path.basename(file)}.new`);
    await writeFile(next, token, { mode: DEFAULT_MODE });
    await rename(next, file);
  }
}
