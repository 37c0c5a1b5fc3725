// A connection whose bearer token is a Kubernetes service-account token, end to end: a TLS front
// of the shared dev server has the real API server review the token of every call (TokenReview,
// for the connection's audience) and lets through only those it accepts. The controller sends the
// tokens of the connection's namespace's account (the namespace lets it request them), the worker
// Pods their own, from a projected volume; both are
// renewed every few seconds here (the controller's renewal option, the node agent's), so tokens
// rotate while a build is rolled out, and nothing may fail for it.
import { AuthenticationV1Api, CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TOKEN_MOUNT_PATH } from '../../src/k8s/versioned-deployment.ts';
import { makeCertificates } from '../support/certificates.ts';
import { connectionUntil, ready } from '../support/connection-status.ts';
import { controlledNamespace, rolledOut } from '../support/controller.ts';
import { grantAccountTokens } from '../support/controller-rbac.ts';
import {
  eventually,
  kubeConfig,
  sharedEnvironment,
  temporalClient,
  testNamespace,
  uniqueName,
} from '../support/environment.ts';
import { GrpcProxy } from '../support/grpc-proxy.ts';

const SERVER_NAME = 'temporal.twc.test';
const AUDIENCE = 'temporal.twc.test/workers';
const WORKER_ACCOUNT = 'orders-worker';
const CONTROLLER_ACCOUNT = 'orders-temporal';

/** Who the API server says presented a token, per token: the service account, and the Pod it is bound to. */
class TokenReviews {
  /** Distinct tokens seen, per caller. */
  readonly tokensOf = new Map<string, Set<string>>();
  readonly refusals: string[] = [];
  private readonly reviews = new Map<string, Promise<string | undefined>>();
  private readonly api = kubeConfig().makeApiClient(AuthenticationV1Api);

  /** The front's check: undefined lets the call through, else why not. */
  readonly verify = async (token: string | undefined): Promise<string | undefined> => {
    if (!token) return this.refused('no bearer token');
    let caller = this.reviews.get(token);
    if (!caller) {
      caller = this.review(token);
      this.reviews.set(token, caller);
    }
    const who = await caller;
    if (!who) return this.refused(`TokenReview did not accept a token for audience ${AUDIENCE}`);
    const tokens = this.tokensOf.get(who) ?? new Set<string>();
    tokens.add(token);
    this.tokensOf.set(who, tokens);
    return undefined;
  };

  /** The caller `system:serviceaccount:<ns>:<name>[ pod <name>]`, undefined when the API server refuses the token. */
  async review(token: string): Promise<string | undefined> {
    const { status } = await this.api.createTokenReview({ body: { spec: { token, audiences: [AUDIENCE] } } });
    if (!status?.authenticated || !status.audiences?.includes(AUDIENCE)) return undefined;
    const pod = status.user?.extra?.['authentication.kubernetes.io/pod-name']?.[0];
    return `${status.user?.username ?? ''}${pod ? ` pod ${pod}` : ''}`;
  }

  private refused(why: string): string {
    this.refusals.push(why);
    return why;
  }
}

const podsOf = async (namespace: string): Promise<V1Pod[]> =>
  (await kubeConfig().makeApiClient(CoreV1Api).listNamespacedPod({ namespace })).items;

test('with serviceAccountToken every call reaching Temporal carries a token the API server accepts for the audience, rotated during a rollout without an error', async (t) => {
  const namespace = await testNamespace(t, 'sa-token');
  const certs = await makeCertificates(t, SERVER_NAME);
  const reviews = new TokenReviews();
  const proxy = new GrpcProxy({
    upstream: sharedEnvironment().temporalAddress,
    server: certs.server,
    verifyBearer: reviews.verify,
  });
  await proxy.listen();
  t.after(() => proxy.close());
  const core = kubeConfig().makeApiClient(CoreV1Api);
  await core.createNamespacedSecret({
    namespace,
    body: { metadata: { name: 'private-ca' }, stringData: { 'ca.crt': certs.ca } },
  });
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: WORKER_ACCOUNT } } });

  // The review is no rubber stamp: a token of the same account for the API server's own audience is refused.
  const elsewhere = await core.createNamespacedServiceAccountToken({
    namespace,
    name: WORKER_ACCOUNT,
    body: { spec: { audiences: [], expirationSeconds: 600 } },
  });
  assert.equal(await reviews.review(elsewhere.status?.token ?? ''), undefined, 'a token for another audience');

  // As the README shows: the namespace lets the controller request its account's tokens.
  await grantAccountTokens(namespace, CONTROLLER_ACCOUNT);

  const ns = await controlledNamespace(t, namespace, {
    connectionSpec: {
      hostPort: proxy.address,
      tls: { serverName: SERVER_NAME, caCertSecretRef: { name: 'private-ca' } },
      serviceAccountToken: { audience: AUDIENCE, expirationSeconds: 600, serviceAccountName: CONTROLLER_ACCOUNT },
    },
    serviceAccountTokenRenewMs: 2_000,
  });
  await connectionUntil(namespace, 'reached with the namespace account’s token', ready('True', 'Connected'));
  const template = (behaviour: string) => {
    const base = ns.template(behaviour) as { spec: Record<string, unknown> };
    return { ...base, spec: { ...base.spec, serviceAccountName: WORKER_ACCOUNT } };
  };
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'AllAtOnce' },
    template: template('blue'),
  });
  const v1 = (await ns.until('orders', 'v1 to be current', rolledOut)).status?.currentVersion?.buildID ?? '';

  const [pod] = await podsOf(namespace);
  const variable = (name: string) => pod?.spec?.containers[0]?.env?.find((e) => e.name === name)?.value;
  assert.equal(variable('TEMPORAL_API_KEY_PATH'), `${TOKEN_MOUNT_PATH}/token`);
  const projected = pod?.spec?.volumes?.find((v) => v.name === 'temporal-token')?.projected?.sources;
  assert.deepEqual(JSON.parse(JSON.stringify(projected ?? null)), [
    { serviceAccountToken: { audience: AUDIENCE, expirationSeconds: 600, path: 'token' } },
  ]);
  assert.equal(
    pod?.spec?.volumes?.some((v) => v.secret && v.secret.secretName !== 'private-ca'),
    false,
    'no Secret holds a credential for the Pods',
  );

  // Past a renewal of each token (the controller's every 2 s, the Pods' every 3 s), an order makes
  // the v1 Pod call again: it does with its new token, read from the renewed file.
  await new Promise((resolve) => setTimeout(resolve, 4_000));
  const client = await temporalClient(t);
  await client.workflow.execute('order', { taskQueue: ns.taskQueue, workflowId: uniqueName('order'), args: [1] });
  // Then another rollout, while the tokens go on rotating.
  await ns.patchSpec('orders', { template: template('green') });
  const done = await ns.until(
    'orders',
    'v2 to be current after its ramp',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== v1,
  );
  assert.notEqual(done.status?.currentVersion?.buildID, v1);

  const controller = `system:serviceaccount:${namespace}:${CONTROLLER_ACCOUNT}`;
  const workers = [...reviews.tokensOf].filter(([who]) =>
    who.startsWith(`system:serviceaccount:${namespace}:${WORKER_ACCOUNT} pod `),
  );
  assert.deepEqual(reviews.refusals, [], 'no call was refused');
  assert.ok(
    (reviews.tokensOf.get(controller)?.size ?? 0) >= 3,
    `the controller rotated its token: ${reviews.tokensOf.get(controller)?.size ?? 0} tokens`,
  );
  assert.ok(
    workers.length >= 2,
    `the Pods of both builds called with their own tokens: ${workers.map(([w]) => w).join(', ')}`,
  );
  assert.ok(
    workers.some(([, tokens]) => tokens.size >= 2),
    `a Pod rotated its token: ${workers.map(([w, tokens]) => `${w}: ${tokens.size}`).join(', ')}`,
  );
  assert.deepEqual(
    [...reviews.tokensOf.keys()].filter((who) => who !== controller && !workers.some(([w]) => w === who)),
    [],
    'nobody else called',
  );
  const refused = await eventually('the controller’s request counts', async () => {
    const metric = await ns.metrics.registry.getSingleMetric('twc_temporal_requests_total')?.get();
    return metric?.values.filter((v) => v.labels.code === 'UNAUTHENTICATED' || v.labels.code === 'PERMISSION_DENIED');
  });
  assert.deepEqual(refused, [], 'Temporal refused no call of the controller');
});
