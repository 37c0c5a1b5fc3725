// The endpoints any Pod can reach, fed seeded random and truncated input: the webhook's
// AdmissionReviews over HTTPS, and the external metrics API's reads. Whatever comes, the answer is
// never a 5xx and the server keeps answering. A failing seed is named, to be run again.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { test } from 'node:test';
import type { BuildBacklog } from '../../src/domain/backlog.ts';
import { externalMetricsHandler } from '../../src/external-metrics/api-server.ts';
import { silentLogger } from '../../src/runtime/logger.ts';
import { Prng } from '../simulation/prng.ts';
import { makeCertificates } from '../support/certificates.ts';
import { frontProxyApi } from '../support/front-proxy-api.ts';
import { testWebhook } from '../support/webhook-server.ts';

const SEEDS = 300;

const admissionReview = {
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'u1',
    operation: 'CREATE',
    namespace: 'shop',
    userInfo: { username: 'jane', groups: ['devs'], extra: { scope: ['a'] } },
    object: {
      apiVersion: 'temporal.io/v1alpha1',
      kind: 'TemporalWorkerOwnedResource',
      metadata: { name: 'hpa', namespace: 'shop' },
      spec: {
        workerRef: { name: 'orders' },
        object: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', spec: { maxReplicas: 3 } },
      },
    },
    oldObject: null,
  },
};

const ODD_VALUES: unknown[] = [null, 0, -1, 1e308, '', 'x'.repeat(300), true, [], [1, 'a'], {}, { a: { b: [] } }];

function pick<T>(rng: Prng, items: readonly T[]): T {
  return items[Math.floor(rng.float() * items.length)] as T;
}

/** A copy of `value` with one field, somewhere inside it, replaced by an odd value or removed. */
function mutate(rng: Prng, value: unknown): unknown {
  if (value === null || typeof value !== 'object') return pick(rng, ODD_VALUES);
  const copy: Record<string, unknown> = Array.isArray(value) ? { ...value } : { ...value };
  const keys = Object.keys(copy);
  if (keys.length === 0) return pick(rng, ODD_VALUES);
  const key = pick(rng, keys);
  const roll = rng.float();
  if (roll < 0.2) delete copy[key];
  else if (roll < 0.5) copy[key] = pick(rng, ODD_VALUES);
  else copy[key] = mutate(rng, copy[key]);
  return Array.isArray(value) ? Object.values(copy) : copy;
}

function randomBytes(rng: Prng, max: number): Buffer {
  return Buffer.from(Array.from({ length: Math.floor(rng.float() * max) }, () => rng.uint32() & 0xff));
}

/** One input: random bytes, a review cut short, or a review with a field changed (some of them cut short too). */
function admissionInput(rng: Prng): Buffer {
  const roll = rng.float();
  if (roll < 0.2) return randomBytes(rng, 2000);
  const text = JSON.stringify(roll < 0.4 ? admissionReview : mutate(rng, admissionReview));
  return Buffer.from(roll < 0.7 ? text : text.slice(0, Math.floor(rng.float() * text.length)));
}

test(`the webhook answers ${SEEDS} seeded random and truncated AdmissionReviews without a 5xx, and keeps answering`, async (t) => {
  const webhook = await testWebhook(t);
  for (let seed = 1; seed <= SEEDS; seed++) {
    const { status } = await webhook.send(admissionInput(new Prng(seed)));
    assert.ok(status > 0 && status < 500, `seed ${seed}: ${status}`);
  }
  assert.equal((await webhook.send(JSON.stringify(admissionReview))).status, 200);
});

/** One build's backlog on each kind of queue, for the reads to find. */
const figures: BuildBacklog[] = [
  { namespace: 'shop', workerDeployment: 'orders', buildId: 'v1', pools: {}, readAt: new Date(0), queues: [] },
].map((build) => ({
  ...build,
  queues: (['workflow', 'activity'] as const).map((type) => ({
    taskQueue: 'orders',
    type,
    backlogCount: 4,
    backlogAgeSeconds: 3,
    addRate: 1,
    dispatchRate: 1,
  })),
}));

const PATH_PARTS = [
  '/apis/external.metrics.k8s.io/v1beta1',
  '/namespaces/',
  'shop',
  '/',
  'temporal_backlog_count',
  '%',
  '%E0%A4',
  '..',
  '//',
  '?labelSelector=',
  'temporal.io/build-id',
  '%3D',
  'in (v1,',
  '!',
  ',',
  '&',
  '#',
  '\u0000',
  'é',
  '[',
  'http://[',
];

function metricsPath(rng: Prng): string {
  const parts = Array.from({ length: 1 + Math.floor(rng.float() * 8) }, () => pick(rng, PATH_PARTS));
  // Most reads start where the API lives, as the API server's would.
  return rng.float() < 0.8 ? `/apis/external.metrics.k8s.io/v1beta1${parts.join('')}` : parts.join('');
}

test(`the external metrics API answers ${SEEDS} seeded random reads without a 5xx or a throw`, async (t) => {
  const certificates = await makeCertificates(t, 'twc.test');
  const client = new X509Certificate(certificates.client.cert);
  const api = frontProxyApi(certificates.ca, () => true);
  const handle = externalMetricsHandler({ api, figures: () => figures, log: silentLogger });
  for (let seed = 1; seed <= SEEDS; seed++) {
    const rng = new Prng(seed);
    const url = metricsPath(rng);
    const headers: Record<string, string[]> = {};
    if (rng.float() < 0.7) headers['x-remote-user'] = [pick(rng, ['hpa', '', 'é', '\u0000', 'x'.repeat(500)])];
    if (rng.float() < 0.5) headers['x-remote-group'] = [pick(rng, ['g', '', ','])];
    if (rng.float() < 0.3) headers[`x-remote-extra-${pick(rng, ['a', '%zz', ''])}`] = ['v'];
    const request = {
      url,
      method: pick(rng, ['GET', 'GET', 'GET', 'POST', 'DELETE', '']),
      socket: { getPeerX509Certificate: () => (rng.float() < 0.8 ? client : undefined) },
      headersDistinct: headers,
    } as unknown as IncomingMessage;
    const code = await new Promise<number | 'left to the server'>((resolve) => {
      let status = 0;
      const response = {
        writeHead: (written: number) => ((status = written), response),
        end: () => resolve(status),
      } as unknown as ServerResponse;
      if (!handle(request, response)) resolve('left to the server');
    });
    assert.ok(code === 'left to the server' || code < 500, `seed ${seed} (${url}): ${code}`);
  }
});
