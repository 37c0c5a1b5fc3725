// The external metrics API's answers, request by request: discovery for anyone, and for a read,
// the front proxy's certificate (401), the user's access review (403), the selector (400), the
// metric (404), the leader's figures (503 on a standby), then the items. The Kubernetes API it
// asks (the front-proxy CA's ConfigMap, SubjectAccessReviews) is a recording stand-in.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { test } from 'node:test';
import type { BuildBacklog } from '../../src/domain/backlog.ts';
import { externalMetricsHandler } from '../../src/external-metrics/api-server.ts';
import { silentLogger } from '../../src/runtime/logger.ts';
import { makeCertificates } from '../support/certificates.ts';
import { frontProxyApi } from '../support/front-proxy-api.ts';

const figures: BuildBacklog[] = [
  {
    namespace: 'shop',
    workerDeployment: 'orders',
    buildId: 'v1',
    pools: {},
    readAt: new Date('2026-11-25T12:00:00Z'),
    queues: [
      { taskQueue: 'orders', type: 'activity', backlogCount: 40, backlogAgeSeconds: 3, addRate: 1, dispatchRate: 1 },
    ],
  },
];

test('each read is answered as Kubernetes asks of an aggregated API', async (t) => {
  const certificates = await makeCertificates(t, 'twc.test');
  const client = new X509Certificate(certificates.client.cert);
  const stranger = new X509Certificate(certificates.strangerClient.cert);
  const reviews: unknown[] = [];
  let leading = true;
  const api = frontProxyApi(certificates.ca, (spec) => spec.user === 'hpa', reviews);
  const asks: Parameters<Parameters<typeof externalMetricsHandler>[0]['figures']>[0][] = [];
  const handle = externalMetricsHandler({
    api,
    figures: (asked) => (asks.push(asked), leading ? figures : undefined),
    log: silentLogger,
  });
  const ask = (path: string, options: { user?: string; peer?: X509Certificate; method?: string } = {}) =>
    new Promise<{ code: number; body: { message?: string; items?: { value: string }[]; resources?: unknown[] } }>(
      (resolve) => {
        const request = {
          url: path,
          method: options.method ?? 'GET',
          socket: { getPeerX509Certificate: () => options.peer },
          headersDistinct: options.user ? { 'x-remote-user': [options.user], 'x-remote-group': ['g'] } : {},
        } as unknown as IncomingMessage;
        let code = 0;
        const response = {
          writeHead: (status: number) => ((code = status), response),
          end: (text: string) => resolve({ code, body: JSON.parse(text) as never }),
        } as unknown as ServerResponse;
        assert.equal(handle(request, response), true);
      },
    );
  const root = '/apis/external.metrics.k8s.io/v1beta1';
  const read = `${root}/namespaces/shop/temporal_backlog_count`;

  assert.equal((await ask(root)).body.resources?.length, 4, 'discovery lists the four metrics, to anyone');
  assert.equal((await ask(read, { user: 'hpa' })).code, 401, 'no client certificate');
  assert.equal((await ask(read, { user: 'hpa', peer: stranger })).code, 401, "another CA's certificate");
  const denied = await ask(read, { user: 'nobody', peer: client });
  assert.equal(denied.code, 403);
  assert.equal(
    denied.body.message,
    'nobody may not get temporal_backlog_count.external.metrics.k8s.io in namespace shop',
  );
  assert.deepEqual(reviews.at(-1), {
    user: 'nobody',
    groups: ['g'],
    extra: {},
    resourceAttributes: {
      namespace: 'shop',
      verb: 'get',
      group: 'external.metrics.k8s.io',
      version: 'v1beta1',
      resource: 'temporal_backlog_count',
    },
  });
  assert.equal(asks.length, 0, 'a read refused asks for no figures');
  const allowed = await ask(`${read}?labelSelector=temporal.io/build-id%3Dv1,temporal.io/task-queue-type%3Dactivity`, {
    user: 'hpa',
    peer: client,
  });
  assert.deepEqual([allowed.code, allowed.body.items?.map((item) => item.value)], [200, ['40']]);
  // The query asks for the builds its selector may pick: v1 of any worker deployment of the namespace.
  const [query] = asks.splice(0);
  assert.equal(query?.namespace, 'shop');
  assert.deepEqual(
    [
      { workerDeployment: 'orders', buildId: 'v1' },
      { workerDeployment: 'refunds', buildId: 'v1' },
      { workerDeployment: 'orders', buildId: 'v2' },
    ].map((build) => query?.picks(build)),
    [true, true, false],
  );
  const asked = reviews.length;
  await ask(read, { user: 'hpa', peer: client });
  assert.equal(reviews.length, asked, 'an allowed answer is taken as read for a while');
  assert.equal((await ask(`${read}?labelSelector=a%20b`, { user: 'hpa', peer: client })).code, 400);
  assert.equal((await ask(`${root}/namespaces/shop/temporal_backlog`, { user: 'hpa', peer: client })).code, 404);
  assert.equal(
    asks.length,
    1,
    'of the reads since, only the one answered asked (a bad selector, no such metric: none)',
  );
  assert.equal((await ask(`${root}/namespaces/shop/%E0`, { user: 'hpa', peer: client })).code, 400);
  assert.equal((await ask(read, { user: 'hpa', peer: client, method: 'POST' })).code, 405);
  leading = false;
  const standby = await ask(read, { user: 'hpa', peer: client });
  assert.deepEqual(
    [standby.code, standby.body.message],
    [503, 'this replica does not lead: the leader collects and serves the backlog metrics'],
  );
  assert.equal(
    handle({ url: '/validate-x', method: 'POST' } as IncomingMessage, {} as ServerResponse),
    false,
    'other paths are left to the server',
  );
});
