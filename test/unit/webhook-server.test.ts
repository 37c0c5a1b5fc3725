// The webhook's port is open to every Pod of the cluster: a body past 1 MiB is refused (413)
// without being held or judged, a request that does not arrive in time is dropped (408), and the
// server answers the next one either way.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_ADMISSION_REVIEW_BYTES } from '../../src/webhook/server.ts';
import { type TestWebhook, testWebhook } from '../support/webhook-server.ts';

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

test("a twor's copies are judged by the rights of the ServiceAccount they are written as, never the controller's; with none, it is refused naming the field", async (t) => {
  const reviews: { user?: string; groups?: string[]; verb?: string }[] = [];
  const answer = (verb: string, path: string, body: unknown) => {
    if (verb === 'GET' && path === '/apis/policy/v1')
      return { resources: [{ name: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true }] };
    if (verb !== 'POST' || !path.endsWith('/subjectaccessreviews')) return undefined;
    const { spec } = body as { spec: { user: string; groups: string[]; resourceAttributes: { verb: string } } };
    reviews.push({ user: spec.user, groups: spec.groups, verb: spec.resourceAttributes.verb });
    // The author may; the account may create and delete, not patch.
    return { status: { allowed: spec.user === 'jane' || spec.resourceAttributes.verb !== 'patch' } };
  };
  const twor = (serviceAccountName?: string) =>
    JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'pdb',
        operation: 'CREATE',
        namespace: 'shop',
        userInfo: { username: 'jane' },
        object: {
          apiVersion: 'temporal.io/v1alpha1',
          kind: 'TemporalWorkerOwnedResource',
          metadata: { name: 'pdb', namespace: 'shop' },
          spec: {
            workerRef: { name: 'orders' },
            ...(serviceAccountName ? { serviceAccountName } : {}),
            object: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', spec: { minAvailable: 1 } },
          },
        },
      },
    });
  const verdict = async (webhook: TestWebhook, body: string) =>
    (JSON.parse((await webhook.send(body)).body) as { response: { allowed: boolean; status?: { message?: string } } })
      .response;

  const withoutDefault = await testWebhook(t, { answer });
  const missing = await verdict(withoutDefault, twor());
  assert.equal(missing.allowed, false);
  assert.match(missing.status?.message ?? '', /^spec\.serviceAccountName: unset, and the controller has no default/);
  const deletion = await verdict(withoutDefault, twor().replace('"CREATE"', '"DELETE"'));
  assert.equal(deletion.allowed, true, 'a twor without an account may still be deleted');

  const withDefault = await testWebhook(t, { answer, ownedResourcesServiceAccount: 'copier' });
  reviews.length = 0;
  const denied = await verdict(withDefault, twor('pdb-writer'));
  assert.deepEqual(
    reviews.map((r) => `${r.user} ${r.verb}`),
    [
      'jane create',
      'system:serviceaccount:shop:pdb-writer create',
      'system:serviceaccount:shop:pdb-writer patch',
      'system:serviceaccount:shop:pdb-writer list',
      'system:serviceaccount:shop:pdb-writer delete',
    ],
    'spec.serviceAccountName over the default; no SelfSubjectAccessReview of the controller',
  );
  assert.deepEqual(reviews[1]?.groups, [
    'system:serviceaccounts',
    'system:serviceaccounts:shop',
    'system:authenticated',
  ]);
  assert.equal(denied.allowed, false);
  assert.match(
    denied.status?.message ?? '',
    /^spec\.serviceAccountName: ServiceAccount shop\/pdb-writer, which the controller writes the copies as, may not patch poddisruptionbudgets\.policy in namespace shop/,
  );
});

test('an allowed author and ServiceAccount are asked once a minute, a denial every time; only an autoscaler twor reads its worker deployment', async (t) => {
  const answer = (verb: string, path: string, body: unknown) => {
    if (verb === 'GET' && path === '/apis/policy/v1')
      return { resources: [{ name: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true }] };
    if (verb !== 'POST' || !path.endsWith('/subjectaccessreviews')) return undefined;
    return { status: { allowed: (body as { spec: { user: string } }).spec.user !== 'mallory' } };
  };
  const webhook = await testWebhook(t, { answer, ownedResourcesServiceAccount: 'copier' });
  const pdb = (user: string) =>
    JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'pdb',
        operation: 'CREATE',
        namespace: 'shop',
        userInfo: { username: user },
        object: {
          apiVersion: 'temporal.io/v1alpha1',
          kind: 'TemporalWorkerOwnedResource',
          metadata: { name: 'pdb', namespace: 'shop' },
          spec: {
            workerRef: { name: 'orders' },
            object: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', spec: { minAvailable: 1 } },
          },
        },
      },
    });
  const allowed = async (body: string) =>
    (JSON.parse((await webhook.send(body)).body) as { response: { allowed: boolean } }).response.allowed;
  const reviews = () => webhook.calls.filter((c) => c.endsWith('/subjectaccessreviews')).length;

  assert.equal(await allowed(pdb('jane')), true);
  assert.equal(reviews(), 5, "the author's create, the account's four verbs");
  assert.ok(
    !webhook.calls.some((c) => c.includes('temporalworkerdeployments')),
    'a PodDisruptionBudget fights no replica count',
  );
  assert.equal(await allowed(pdb('jane')), true);
  assert.equal(reviews(), 5, 'both remembered as allowed');
  assert.equal(await allowed(pdb('mallory')), false);
  assert.equal(await allowed(pdb('mallory')), false);
  assert.equal(reviews(), 7, 'a denial is asked again');
});
