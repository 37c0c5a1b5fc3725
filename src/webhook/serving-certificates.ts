// Where the webhook's serving certificate comes from: the controller's own Secret
// (self-managed-certificates.ts), or a directory that cert-manager or a user's Secret fills.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../runtime/kube/api-errors.ts';
import type { Logger } from '../runtime/logger.ts';
import type { KeyPair } from './certificate-issuer.ts';

export interface ServingCertificates {
  /** Resolves with the certificate to serve first; each renewal after it goes to `renewed`. */
  start(renewed: (pair: KeyPair) => void): Promise<KeyPair>;
  stop(): Promise<void>;
}

/** tls.crt and tls.key of a directory, looked at every `checkMs` and read again when either changed: a renewal needs no restart. */
export function directoryCertificates(dir: string, log: Logger, checkMs = 10_000): ServingCertificates {
  const files = { cert: path.join(dir, 'tls.crt'), key: path.join(dir, 'tls.key') };
  const read = async (): Promise<KeyPair> => ({
    cert: await readFile(files.cert, 'utf8'),
    key: await readFile(files.key, 'utf8'),
  });
  const modified = async () => (await stat(files.cert)).mtimeMs + (await stat(files.key)).mtimeMs;
  let timer: NodeJS.Timeout | undefined;
  return {
    async start(renewed) {
      let seen = await modified();
      const first = await read();
      let served = first;
      let looking = false;
      timer = setInterval(() => {
        if (looking) return;
        looking = true;
        void (async () => {
          const now = await modified();
          if (now === seen) return;
          const pair = await read();
          // Caught between the writes of the two files: the next look finds both.
          if (!new X509Certificate(pair.cert).checkPrivateKey(createPrivateKey(pair.key))) return;
          seen = now;
          // A write seen half done dates the files again when it ends: the same pair, once.
          if (pair.cert === served.cert && pair.key === served.key) return;
          served = pair;
          renewed(pair);
          log.info({ certDir: dir }, 'the webhook serves its renewed certificate');
        })()
          .catch((error: unknown) =>
            log.warn({ error: errorMessage(error) }, 'could not read the webhook certificate again'),
          )
          .finally(() => (looking = false));
      }, checkMs).unref();
      return first;
    },
    stop() {
      clearInterval(timer);
      return Promise.resolve();
    },
  };
}
