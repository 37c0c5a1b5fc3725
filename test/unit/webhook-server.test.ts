// The webhook's port is open to every Pod of the cluster: a body past 1 MiB is refused (413)
// without being held or judged, a request that does not arrive in time is dropped (408), and the
// server answers the next one either way.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_ADMISSION_REVIEW_BYTES } from '../../src/webhook/server.ts';
import { testWebhook } from '../support/webhook-server.ts';

const review = (uid: string) =>
  JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid, operation: 'CREATE' } });

test('a 50 MiB body is refused with 413 before it is judged, and the server answers the next request', async (t) => {
  const webhook = await testWebhook(t);
  const padding = ' '.repeat(50 * 1024 * 1024 - review('big').length);
  const big = await webhook.send(review('big').replace('{', `{${padding}`));
  assert.equal(big.status, 413);
  assert.match(big.body, new RegExp(`larger than ${MAX_ADMISSION_REVIEW_BYTES} bytes`));
  assert.deepEqual(webhook.calls, [], 'nothing was asked of the API server for it');
  const next = await webhook.send(review('next'));
  assert.equal(next.status, 200);
  assert.equal((JSON.parse(next.body) as { response: { uid: string } }).response.uid, 'next');
});

test('a body just within 1 MiB is read and judged', async (t) => {
  const webhook = await testWebhook(t);
  const padding = ' '.repeat(MAX_ADMISSION_REVIEW_BYTES - review('fits').length);
  assert.equal((await webhook.send(review('fits').replace('{', `{${padding}`))).status, 200);
});

test('a request whose body never ends is answered 408 once the request timeout passes', async (t) => {
  const webhook = await testWebhook(t, { requestTimeoutMs: 500 });
  const started = Date.now();
  const slow = await webhook.send('{"request":', { stall: true });
  assert.equal(slow.status, 408);
  assert.ok(Date.now() - started < 5_000, 'within the timeout, not the default');
  assert.equal((await webhook.send(review('after'))).status, 200);
});

test('a request target that is no URL is answered 404, and the server answers the next request', async (t) => {
  const webhook = await testWebhook(t);
  assert.equal((await webhook.send(review('odd'), { path: 'http://[' })).status, 404);
  assert.equal((await webhook.send(review('after'))).status, 200);
});

test('a RoleBinding owned resource is refused by the handler before discovery or any access review: whatever its author may do', async (t) => {
  const webhook = await testWebhook(t);
  const twor = {
    apiVersion: 'temporal.io/v1alpha1',
    kind: 'TemporalWorkerOwnedResource',
    metadata: { name: 'grant', namespace: 'shop' },
    spec: {
      workerRef: { name: 'orders' },
      object: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'User', name: 'mallory' }],
      },
    },
  };
  const answer = await webhook.send(
    JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: { uid: 'rb', operation: 'CREATE', namespace: 'shop', userInfo: { username: 'admin' }, object: twor },
    }),
  );
  assert.equal(answer.status, 200);
  const { response } = JSON.parse(answer.body) as { response: { allowed: boolean; status?: { message?: string } } };
  assert.equal(response.allowed, false);
  assert.match(
    response.status?.message ?? '',
    /spec\.object\.kind: RoleBinding of rbac\.authorization\.k8s\.io\/v1 is an RBAC kind/,
  );
  assert.deepEqual(webhook.calls, [], 'refused on the object alone');
});
