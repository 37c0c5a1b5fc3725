// The service-account volume a kubelet projects into a Pod (no admission plugin adds it here):
// a token bound to the Pod, requested from the API server and renewed at 80% of its life as the
// kubelet does, the API server's CA and the namespace, at the path in-cluster clients read.
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

const TOKEN_SECONDS = 3607; // the kubelet's default for a projected token

export interface ServiceAccountVolume {
  dir: string;
  /** Stops renewing the token. */
  close(): void;
}

export async function projectServiceAccount(
  api: CoreV1Api,
  pod: V1Pod,
  ca: string,
  dir: string,
  log: (message: string) => void,
): Promise<ServiceAccountVolume> {
  const namespace = pod.metadata?.namespace ?? 'default';
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const write = async (file: string, content: string): Promise<void> => {
    // Renamed into place, so a reader never sees half a token.
    await writeFile(path.join(dir, `.${file}.new`), content, { mode: 0o644 });
    await rename(path.join(dir, `.${file}.new`), path.join(dir, file));
  };
  const renew = async (): Promise<number> => {
    const token = await requestPodToken(api, pod, { expirationSeconds: TOKEN_SECONDS });
    await write('token', token);
    return TOKEN_SECONDS * 0.8 * 1000;
  };
  await write('ca.crt', ca);
  await write('namespace', namespace);
  let timer: NodeJS.Timeout | undefined;
  const schedule = (ms: number): void => {
    timer = setTimeout(() => {
      renew().then(schedule, (error: unknown) => {
        log(`pod ${namespace}/${pod.metadata?.name ?? ''}: renewing its service-account token: ${String(error)}`);
        schedule(10_000);
      });
    }, ms);
    timer.unref();
  };
  schedule(await renew());
  return { dir, close: () => clearTimeout(timer) };
}

/** A token of the Pod's service account bound to the Pod, as a kubelet requests one; no audience means the API server's. */
export async function requestPodToken(
  api: CoreV1Api,
  pod: V1Pod,
  projection: { audience?: string; expirationSeconds?: number },
): Promise<string> {
  const request = await api.createNamespacedServiceAccountToken({
    namespace: pod.metadata?.namespace ?? 'default',
    name: pod.spec?.serviceAccountName ?? 'default',
    body: {
      spec: {
        audiences: projection.audience ? [projection.audience] : [],
        ...(projection.expirationSeconds ? { expirationSeconds: projection.expirationSeconds } : {}),
        boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '' },
      },
    },
  });
  return request.status?.token ?? '';
}
