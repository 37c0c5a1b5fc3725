// The validating webhook of TemporalWorkerOwnedResources, called by the real API server: every
// refusal comes back to the client through it, naming the field; a user who may not create the
// embedded kind is refused (impersonated), and so is anything the ServiceAccount the controller
// writes the copies as may not make.
import {
  AdmissionregistrationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  RbacAuthorizationV1Api,
  setHeaderOptions,
} from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { test, type TestContext } from 'node:test';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import { exposeWebhook, machineAddress, registerWebhook } from '../../dev/localenv/webhook.ts';
import type { KubernetesApi } from '../../src/runtime/kube/api-client.ts';
import { jsonLogger, type Logger, silentLogger } from '../../src/runtime/logger.ts';
import { certificatesOf } from '../../src/webhook/certificate-issuer.ts';
import { DEFAULT_BANNED_KINDS } from '../../src/webhook/owned-resource-admission.ts';
import { SelfManagedCertificates } from '../../src/webhook/self-managed-certificates.ts';
import { startWebhook } from '../../src/webhook/server.ts';
import { COPY_ACCOUNT, grantCopyAccount, grantEdit } from '../support/controller-rbac.ts';
import { createOwnedResource } from '../support/owned-resources.ts';
import { eventually, kubeConfig, kubernetesApi, testNamespace, uniqueName } from '../support/environment.ts';

const pdb = {
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  spec: { minAvailable: 1, selector: { matchLabels: {} } },
};

/**
 * Serves the webhook as `twc run` does: judging with `api`'s credentials, its certificate
 * self-managed in a Secret of `namespace`, called by the API server through a Service of
 * `namespace`, and registered for `namespace` only; all undone after the test.
 */
async function webhookFor(
  t: TestContext,
  namespace: string,
  api: KubernetesApi,
  certificateLifetimeMs = 3_600_000,
  certificateLog: Logger = silentLogger,
): Promise<{ secret: string; configuration: string; host: string; endpoint: { address: string; port: number } }> {
  const service = { namespace, name: 'twc-webhook' };
  const configuration = uniqueName('twor-webhook');
  // Only this test's namespace: the other tests share the API server.
  await registerWebhook(kubeConfig(), { name: configuration, service, namespaces: [namespace] });
  t.after(() =>
    kubeConfig()
      .makeApiClient(AdmissionregistrationV1Api)
      .deleteValidatingWebhookConfiguration({ name: configuration })
      .then(() => undefined),
  );
  const secret = 'twc-webhook-tls';
  const address = machineAddress();
  const webhook = await startWebhook({
    bindAddress: { host: address, port: 0 },
    certificates: new SelfManagedCertificates({
      api: kubernetesApi(t),
      secret: { namespace, name: secret },
      configuration,
      hosts: [`${service.name}.${namespace}.svc`],
      lifetimeMs: certificateLifetimeMs,
      log: certificateLog,
    }),
    api,
    bannedKinds: DEFAULT_BANNED_KINDS,
    ownedResourcesServiceAccount: COPY_ACCOUNT,
    log: silentLogger,
  });
  t.after(() => webhook.close());
  const endpoint = { address, port: webhook.port };
  await exposeWebhook(kubeConfig(), service, endpoint);
  return { secret, configuration, host: `${service.name}.${namespace}.svc`, endpoint };
}

/** The webhook answers once the API server has loaded its configuration: a banned kind is then refused by it. */
async function webhookEffective(namespace: string): Promise<void> {
  await eventually('the API server to call the webhook', async () =>
    /denied the request: spec\.object\.kind: Deployment may not be owned/.test(
      await createOwnedResource(namespace, { apiVersion: 'apps/v1', kind: 'Deployment' }),
    )
      ? true
      : undefined,
  );
}

test('each refusal comes back from the API server naming the field; a valid twor is admitted', async (t) => {
  const namespace = await testNamespace(t, 'webhook');
  await grantCopyAccount(namespace);
  await webhookFor(t, namespace, kubernetesApi(t));
  await webhookEffective(namespace);
  assert.equal(await createOwnedResource(namespace, pdb), '', 'a PodDisruptionBudget is admitted');
  assert.equal(
    await createOwnedResource(namespace, { ...pdb, spec: { selector: { matchLabels: { app: 'x' } } } }),
    '',
    "labels of the user's own narrow the selector: the build's join them",
  );
  const refused: [Record<string, unknown>, RegExp][] = [
    [
      {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        spec: { scaleTargetRef: {}, minReplicas: 0, maxReplicas: 3 },
      },
      /spec\.object\.spec\.minReplicas: 0/,
    ],
    [
      { ...pdb, metadata: { labels: { b: '{{ .Build }}' } } },
      /spec\.object\.metadata\.labels\.b: \{\{ \.Build \}\} is not a placeholder/,
    ],
    [
      { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', value: 1 },
      /spec\.object\.kind: PriorityClass of scheduling\.k8s\.io\/v1 is cluster-scoped/,
    ],
    [
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
      /spec\.object\.kind: ClusterRole of rbac\.authorization\.k8s\.io\/v1 is an RBAC kind/,
    ],
    [
      { apiVersion: 'widgets.example.com/v1', kind: 'Widget' },
      /spec\.object\.kind: the API server does not serve Widget of widgets\.example\.com\/v1 yet/,
    ],
    [
      {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        spec: { scaleTargetRef: { name: 'orders' }, maxReplicas: 3 },
      },
      /spec\.object\.spec\.scaleTargetRef: must be \{\}/,
    ],
  ];
  for (const [object, refusal] of refused) {
    const message = await createOwnedResource(namespace, object);
    assert.match(message, /admission webhook "temporalworkerownedresources\.temporal\.io" denied the request/);
    assert.match(message, refusal);
  }

  // What the CRD's schema and rules refuse, before the webhook is asked, naming the field too.
  const refusedBySchema: [Record<string, unknown>, RegExp][] = [
    [{ kind: 'PodDisruptionBudget', spec: pdb.spec }, /spec\.object\.apiVersion: Required value/],
    [{ apiVersion: 'policy/v1', spec: pdb.spec }, /spec\.object\.kind: Required value/],
    [{ ...pdb, metadata: { name: 'fixed' } }, /spec\.object\.metadata: .*metadata\.name .* set by the controller/],
    [
      { ...pdb, metadata: { namespace: 'x' } },
      /spec\.object\.metadata: .*metadata\.namespace are set by the controller/,
    ],
  ];
  for (const [object, refusal] of refusedBySchema) assert.match(await createOwnedResource(namespace, object), refusal);

  // workerRef.name never changes: the CRD's own rule refuses it before the webhook is asked.
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  const object = { group: GROUP, version: VERSION, namespace, plural: KINDS.TemporalWorkerOwnedResource.plural };
  const [admitted] = ((await custom.listNamespacedCustomObject(object)) as { items: { metadata: { name: string } }[] })
    .items;
  await assert.rejects(
    custom.patchNamespacedCustomObject(
      { ...object, name: admitted?.metadata.name ?? '', body: { spec: { workerRef: { name: 'billing' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    ),
    (error: { body?: string }) => /spec\.workerRef\.name: Invalid value.*immutable/.test(error.body ?? ''),
  );

  // jane may create twors here, but not PodDisruptionBudgets: she may not have the controller make them.
  const rbac = kubeConfig().makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace,
    body: {
      metadata: { name: 'twor-editor' },
      rules: [{ apiGroups: [GROUP], resources: [KINDS.TemporalWorkerOwnedResource.plural], verbs: ['create'] }],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name: 'jane' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'twor-editor' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'jane' }],
    },
  });
  assert.match(
    await createOwnedResource(namespace, pdb, 'jane'),
    new RegExp(`spec\\.object\\.kind: jane may not create poddisruptionbudgets\\.policy in namespace ${namespace}`),
  );
});

test('a ServiceAccount the copies are written as that may not make the kind: the webhook refuses, naming it and the verbs', async (t) => {
  const namespace = await testNamespace(t, 'webhook-sa');
  // It may read the namespace's objects, not write them.
  await grantCopyAccount(namespace, COPY_ACCOUNT, 'view');
  await webhookFor(t, namespace, kubernetesApi(t));
  await webhookEffective(namespace);
  assert.match(
    await createOwnedResource(namespace, pdb),
    new RegExp(
      `spec\\.serviceAccountName: ServiceAccount ${namespace}/${COPY_ACCOUNT}, which the controller writes the copies as, may not create, patch, delete poddisruptionbudgets\\.policy in namespace ${namespace}`,
    ),
  );
});

test('the self-managed certificate and its CA are renewed while requests flow, and none is refused', async (t) => {
  const namespace = await testNamespace(t, 'webhook-renewal');
  await grantCopyAccount(namespace);
  // Serving certificates of 12s, renewed every 8s; a CA of 48s, renewed at 32s and trusted beside the old one.
  // What the keeper did, and each caBundle the Secret held, to explain a failure.
  const story: string[] = [];
  const keeperLog = jsonLogger('info', { write: (line) => story.push(line.trim()) });
  const { secret, configuration, host, endpoint } = await webhookFor(t, namespace, kubernetesApi(t), 12_000, keeperLog);
  await webhookEffective(namespace);
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const serving = new Set<string>();
  const authorities = new Set<string>();
  let mostTrusted = 0;
  let movedToNewCa = false;
  const admission = kubeConfig().makeApiClient(AdmissionregistrationV1Api);
  const handshakes: string[] = [];
  // A new connection, as the API server makes one, trusting the caBundle as published now.
  const handshake = async () => {
    const published = await admission.readValidatingWebhookConfiguration({ name: configuration });
    const ca = Buffer.from(published.webhooks?.[0]?.clientConfig.caBundle ?? '', 'base64').toString('utf8');
    handshakes.push(
      await new Promise<string>((resolve) => {
        const socket = connect({ host: endpoint.address, port: endpoint.port, servername: host, ca }, () => {
          socket.end();
          resolve('');
        });
        socket.on('error', (error: Error) => resolve(error.message));
      }),
    );
  };
  const look = async () => {
    const data = (await core.readNamespacedSecret({ namespace, name: secret })).data ?? {};
    serving.add(new X509Certificate(Buffer.from(data['tls.crt'] ?? '', 'base64')).fingerprint256);
    const bundle = certificatesOf(Buffer.from(data['ca.crt'] ?? '', 'base64').toString('utf8'));
    for (const authority of bundle) authorities.add(authority.fingerprint256);
    mostTrusted = Math.max(mostTrusted, bundle.length);
    const cert = new X509Certificate(Buffer.from(data['tls.crt'] ?? '', 'base64'));
    if (bundle.length === 2 && bundle[1] && cert.checkIssued(bundle[1])) movedToNewCa = true;
    const said = `${new Date().toISOString()} the Secret's caBundle: ${bundle.map((a) => a.fingerprint256.slice(0, 8)).join(', ')}`;
    if (!story.at(-1)?.endsWith(said.slice(25))) story.push(said);
  };
  const refusals: string[] = [];
  let admitted = 0;
  // Until the serving certificate has moved to a renewed CA (at about 33s), and at most 70s.
  const deadline = Date.now() + 70_000;
  const going = () => Date.now() < deadline && !(movedToNewCa && serving.size >= 4);
  const sender = async () => {
    while (going()) {
      const refusal = await createOwnedResource(namespace, pdb);
      if (refusal) refusals.push(refusal);
      else admitted += 1;
    }
  };
  const watcher = async () => {
    while (going()) {
      await look();
      await handshake();
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };
  await Promise.all([sender(), sender(), watcher()]);
  assert.deepEqual(refusals, [], `${refusals.length} of ${refusals.length + admitted} creates refused`);
  assert.ok(admitted > 50, `only ${admitted} creates went through`);
  assert.deepEqual(
    handshakes.filter(Boolean),
    [],
    `${handshakes.filter(Boolean).length} of ${handshakes.length} new connections refused`,
  );
  assert.ok(serving.size >= 4, `the serving certificate was renewed ${serving.size - 1} times, not every 8s`);
  assert.ok(movedToNewCa, `the serving certificate moved to the renewed CA:\n${story.join('\n')}`);
  assert.equal(authorities.size, 2, `the CA was renewed once:\n${story.join('\n')}`);
  assert.equal(mostTrusted, 2, `the old CA stayed in the caBundle beside the new one:\n${story.join('\n')}`);
});

test("a namespace edit user's RoleBinding owned resource is refused, whatever the controller may do", async (t) => {
  const namespace = await testNamespace(t, 'webhook-rbac');
  await webhookFor(t, namespace, kubernetesApi(t));
  await webhookEffective(namespace);
  await grantEdit(namespace, 'mallory');
  const roleBinding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'mallory' }],
  };
  const message = await createOwnedResource(namespace, roleBinding, 'mallory');
  assert.match(message, /admission webhook "temporalworkerownedresources\.temporal\.io" denied the request/);
  assert.match(message, /spec\.object\.kind: RoleBinding of rbac\.authorization\.k8s\.io\/v1 is an RBAC kind/);
});
