// A bearer token kept in a file that something else renews (a projected service-account token,
// which the kubelet rewrites before it expires): read again every few seconds and handed to the
// connection whenever it changed, so calls never carry an expired one.
import { readFile } from 'node:fs/promises';

export interface ApiKeyHolder {
  setApiKey(apiKey: string): Promise<void> | void;
}

/**
 * Follows the file until the returned function is called, or the file is gone (its Pod is); a
 * failed read keeps the key in use.
 */
export function followApiKeyFile(
  connection: ApiKeyHolder,
  path: string,
  current: string,
  onError: (error: unknown) => void,
  everyMs = 2_000,
): () => void {
  let inUse = current;
  const timer = setInterval(() => {
    void readFile(path, 'utf8')
      .then(async (content) => {
        const key = content.trim();
        if (!key || key === inUse) return;
        await connection.setApiKey(key);
        inUse = key;
      })
      .catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') clearInterval(timer);
        else onError(error);
      });
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
