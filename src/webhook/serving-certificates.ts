// Where the webhook's serving certificate comes from: the controller's own Secret
// (self-managed-certificates.ts), or a directory that cert-manager or a user's Secret fills.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../k8s/api-errors.ts';
import type { Logger } from '../runtime/logger.ts';
import type { KeyPair } from './certificate-issuer.ts';

export interface ServingCertificates {
  /** Resolves with the certificate to serve first; each renewal after it goes to `renewed`. */
  start(renewed: (pair: KeyPair) => void): Promise<KeyPair>;
  stop(): Promise<void>;
}

/** How often the directory's files are looked at for a renewal. */
const DIRECTORY_CHECK_MS = 10_000;

/** tls.crt and tls.key of a directory, read again when either changes: a renewal needs no restart. */
export function directoryCertificates(dir: string, log: Logger): ServingCertificates {
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
      timer = setInterval(() => {
        void (async () => {
          const now = await modified();
          if (now === seen) return;
          renewed(await read());
          seen = now;
          log.info({ certDir: dir }, 'the webhook serves its renewed certificate');
        })().catch((error: unknown) =>
          log.warn({ error: errorMessage(error) }, 'could not read the webhook certificate again'),
        );
      }, DIRECTORY_CHECK_MS).unref();
      return first;
    },
    stop() {
      clearInterval(timer);
      return Promise.resolve();
    },
  };
}
