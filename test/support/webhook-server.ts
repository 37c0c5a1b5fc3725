// The webhook's HTTPS server started for a unit test, on a throwaway certificate, with a stand-in
// for the Kubernetes API that records what it is asked and answers only what the test says.
import { request as httpsRequest } from 'node:https';
import type { TestContext } from 'node:test';
import type { RequestHandler } from '../../src/runtime/http-server.ts';
import type { KubernetesApi } from '../../src/runtime/kube/api-client.ts';
import { silentLogger } from '../../src/runtime/logger.ts';
import { OWNED_RESOURCE_WEBHOOK_PATH, startWebhook } from '../../src/webhook/server.ts';
import { makeCertificates } from './certificates.ts';

export interface TestWebhook {
  /** Every Kubernetes API call made, `VERB path`. */
  calls: string[];
  /** POSTs `body` to `path` (the webhook's by default), or sends `headers` and stalls when `stall`; resolves with the status and body. */
  send(
    body: string | Buffer,
    options?: { path?: string; method?: string; stall?: boolean },
  ): Promise<{ status: number; body: string }>;
}

export async function testWebhook(
  t: TestContext,
  {
    answer,
    ...options
  }: {
    requestTimeoutMs?: number;
    alsoServe?: RequestHandler;
    ownedResourcesServiceAccount?: string;
    /** The API's answer to a call; undefined: the call fails. */
    answer?: (verb: string, path: string, body: unknown) => unknown;
  } = {},
): Promise<TestWebhook> {
  const certificates = await makeCertificates(t, 'localhost');
  const calls: string[] = [];
  const stand = (verb: string) => (path: string, body?: unknown) => {
    calls.push(`${verb} ${path}`);
    const answered = answer?.(verb, path, body);
    return answered === undefined ? Promise.reject(new Error('not in this test')) : Promise.resolve(answered);
  };
  const api = { get: stand('GET'), create: stand('POST') } as unknown as KubernetesApi;
  const webhook = await startWebhook({
    bindAddress: { host: '127.0.0.1', port: 0 },
    certificates: { start: () => Promise.resolve(certificates.server), stop: () => Promise.resolve() },
    api,
    bannedKinds: [],
    log: silentLogger,
    ...options,
  });
  t.after(() => webhook.close());
  const send: TestWebhook['send'] = (body, { path = OWNED_RESOURCE_WEBHOOK_PATH, method = 'POST', stall } = {}) =>
    new Promise((resolve, reject) => {
      const sent = httpsRequest(
        { host: '127.0.0.1', port: webhook.port, path, method, ca: certificates.ca, servername: 'localhost' },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
          );
        },
      );
      // Once answered, an error (the server closing on a refused body still being written) changes nothing.
      sent.on('error', reject);
      if (stall) sent.write(body);
      else sent.end(body);
    });
  return { calls, send };
}
