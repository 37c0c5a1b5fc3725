// What a kubelet makes of a Pod's container and its image before it starts the process: the
// command line (the container's command and args over the image's entrypoint and cmd, with
// $(VAR) references expanded), the environment (the image's, then the container's, then the
// service variables), the user (securityContext over the image's User) and the mounts. Pure.
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import type { ImageRunConfig } from './image-store.ts';

export const SERVICE_ACCOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface ContainerProcess {
  argv: string[];
  env: Record<string, string>;
  uid: number;
  gid: number;
  workingDir: string;
  readOnlyRoot: boolean;
}

export class ContainerSpecError extends Error {
  override name = 'ContainerSpecError';
}

export function containerProcess(
  pod: V1Pod,
  container: V1Container,
  image: ImageRunConfig,
  /** The container's env as resolved from its sources, and the API server's in-cluster host and port. */
  resolved: { env: Record<string, string>; apiServer: { host: string; port: number } },
): ContainerProcess {
  const env: Record<string, string> = {};
  for (const entry of image.env) {
    const at = entry.indexOf('=');
    if (at > 0) env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  Object.assign(env, resolved.env, {
    HOSTNAME: pod.metadata?.name ?? '',
    KUBERNETES_SERVICE_HOST: resolved.apiServer.host,
    KUBERNETES_SERVICE_PORT: String(resolved.apiServer.port),
  });
  const argv = [
    ...(container.command ?? image.entrypoint),
    ...(container.args ?? (container.command ? [] : image.cmd)),
  ].map((arg) => expand(arg, env));
  if (argv.length === 0) throw new ContainerSpecError(`container ${container.name}: no command and no entrypoint`);

  const [imageUid = '0', imageGid] = image.user.split(':');
  const uid = container.securityContext?.runAsUser ?? pod.spec?.securityContext?.runAsUser ?? Number(imageUid);
  const gid =
    container.securityContext?.runAsGroup ?? pod.spec?.securityContext?.runAsGroup ?? Number(imageGid ?? imageUid);
  if (!Number.isInteger(uid) || !Number.isInteger(gid))
    throw new ContainerSpecError(`container ${container.name}: image user ${image.user} is not numeric`);
  const runAsNonRoot = container.securityContext?.runAsNonRoot ?? pod.spec?.securityContext?.runAsNonRoot;
  if (runAsNonRoot && uid === 0)
    throw new ContainerSpecError(
      `container ${container.name}: runAsNonRoot is set and the container would run as root`,
    );
  return {
    argv,
    env,
    uid,
    gid,
    workingDir: container.workingDir ?? image.workingDir,
    readOnlyRoot: container.securityContext?.readOnlyRootFilesystem ?? false,
  };
}

/**
 * Whether the kubelet would mount the service account's token, CA and namespace. Only for a Pod
 * that names its service account: admission, which names `default` elsewhere, is off here
 * (service-account-volume.ts), and the API server binds a token only to a Pod that names its account.
 */
export function mountsServiceAccount(pod: V1Pod, container: V1Container): boolean {
  if (pod.spec?.automountServiceAccountToken === false || !pod.spec?.serviceAccountName) return false;
  return !(container.volumeMounts ?? []).some((mount) => mount.mountPath === SERVICE_ACCOUNT_PATH);
}

/** $(VAR) replaced by the variable when it is set, $$(VAR) kept as $(VAR): the kubelet's rules. */
function expand(text: string, env: Record<string, string>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (match, name: string | undefined) =>
    name === undefined ? '$' : (env[name] ?? match),
  );
}
