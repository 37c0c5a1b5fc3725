// The namespace a command acts in when it is not given one, as kubectl picks it.
import { KubeConfig } from '@kubernetes/client-node';

/** The current context's namespace of the kubeconfig (as kubectl finds it, or `file`); `default` when it names none. */
export function contextNamespace(file: string | undefined): string {
  const config = new KubeConfig();
  try {
    if (file) config.loadFromFile(file);
    else config.loadFromDefault();
  } catch {
    return 'default';
  }
  return config.getContextObject(config.getCurrentContext())?.namespace ?? 'default';
}
