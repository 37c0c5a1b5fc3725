// The validating webhook of TemporalWorkerOwnedResources, called by the real API server: every
// refusal comes back to the client through it, naming the field; a user who may not create the
// embedded kind is refused (impersonated), and so is anything when the controller may not apply
// the kind (the webhook run with a service account's token instead of the admin's).
import {
  AdmissionregistrationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  RbacAuthorizationV1Api,
  setHeaderOptions,
} from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { parse, stringify } from 'yaml';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import { makeWebhookCertificate, registerWebhook, WEBHOOK_HOST } from '../../src/localenv/webhook.ts';
import { KubernetesApi } from '../../src/runtime/kube/api-client.ts';
import { kubeconfigAccess } from '../../src/runtime/kube/cluster-access.ts';
import { silentLogger } from '../../src/runtime/logger.ts';
import { DEFAULT_BANNED_KINDS } from '../../src/webhook/owned-resource-admission.ts';
import { startWebhook } from '../../src/webhook/server.ts';
import {
  eventually,
  kubeConfig,
  kubernetesApi,
  sharedEnvironment,
  testNamespace,
  uniqueName,
} from '../support/environment.ts';

const pdb = {
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  spec: { minAvailable: 1, selector: { matchLabels: {} } },
};

/** Serves the webhook with `api`'s credentials and registers it for `namespace` only; both undone after the test. */
async function webhookFor(t: TestContext, namespace: string, api: KubernetesApi): Promise<void> {
  const certDir = mkdtempSync(path.join(tmpdir(), 'twc-webhook-'));
  const ca = await makeWebhookCertificate(certDir);
  const webhook = await startWebhook({
    bindAddress: { host: WEBHOOK_HOST, port: 0 },
    certDir,
    api,
    bannedKinds: DEFAULT_BANNED_KINDS,
    log: silentLogger,
  });
  t.after(() => webhook.close());
  const name = uniqueName('twor-webhook');
  // Only this test's namespace: the other tests share the API server.
  await registerWebhook(kubeConfig(), { name, port: webhook.port, ca, namespaces: [namespace] });
  t.after(() =>
    kubeConfig()
      .makeApiClient(AdmissionregistrationV1Api)
      .deleteValidatingWebhookConfiguration({ name })
      .then(() => undefined),
  );
}

/** Creates a twor as `user` (impersonated) or the admin; resolves to the API server's refusal, or '' when it was created. */
async function attempt(namespace: string, object: Record<string, unknown>, user?: string): Promise<string> {
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  try {
    await custom.createNamespacedCustomObject(
      {
        group: GROUP,
        version: VERSION,
        namespace,
        plural: KINDS.TemporalWorkerOwnedResource.plural,
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'TemporalWorkerOwnedResource',
          metadata: { name: uniqueName('twor') },
          spec: { workerRef: { name: 'orders' }, object },
        },
      },
      user ? setHeaderOptions('Impersonate-User', user) : undefined,
    );
    return '';
  } catch (error) {
    const body = (error as { body?: string }).body ?? String(error);
    return (JSON.parse(body) as { message?: string }).message ?? body;
  }
}

/** The webhook answers once the API server has loaded its configuration: a banned kind is then refused by it. */
async function webhookEffective(namespace: string): Promise<void> {
  await eventually('the API server to call the webhook', async () =>
    /denied the request: spec\.object\.kind: Deployment may not be owned/.test(
      await attempt(namespace, { apiVersion: 'apps/v1', kind: 'Deployment' }),
    )
      ? true
      : undefined,
  );
}

test('each refusal comes back from the API server naming the field; a valid twor is admitted', async (t) => {
  const namespace = await testNamespace(t, 'webhook');
  await webhookFor(t, namespace, kubernetesApi(t));
  await webhookEffective(namespace);
  assert.equal(await attempt(namespace, pdb), '', 'a PodDisruptionBudget is admitted');
  const refused: [Record<string, unknown>, RegExp][] = [
    [
      { ...pdb, spec: { selector: { matchLabels: { app: 'x' } } } },
      /spec\.object\.spec\.selector\.matchLabels: must be \{\}/,
    ],
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
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
      /spec\.object\.kind: ClusterRole of rbac\.authorization\.k8s\.io\/v1 is cluster-scoped/,
    ],
  ];
  for (const [object, refusal] of refused) {
    const message = await attempt(namespace, object);
    assert.match(message, /admission webhook "temporalworkerownedresources\.temporal\.io" denied the request/);
    assert.match(message, refusal);
  }

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
    await attempt(namespace, pdb, 'jane'),
    new RegExp(`spec\\.object\\.kind: jane may not create poddisruptionbudgets\\.policy in namespace ${namespace}`),
  );
});

test('a controller that may not apply the kind: the webhook refuses, naming its identity and the verbs', async (t) => {
  const namespace = await testNamespace(t, 'webhook-sa');
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const rbac = kubeConfig().makeApiClient(RbacAuthorizationV1Api);
  // A service account that may review access, and nothing else.
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'limited' } } });
  const role = uniqueName('access-reviewer');
  await rbac.createClusterRole({
    body: {
      metadata: { name: role },
      rules: [{ apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] }],
    },
  });
  t.after(() => rbac.deleteClusterRole({ name: role }).then(() => undefined));
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: role },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'ServiceAccount', name: 'limited', namespace }],
    },
  });
  t.after(() => rbac.deleteClusterRoleBinding({ name: role }).then(() => undefined));
  const token = await core.createNamespacedServiceAccountToken({
    namespace,
    name: 'limited',
    body: { spec: { audiences: [], expirationSeconds: 600 } },
  });
  // The shared kubeconfig with the service account's token in place of the admin's.
  const kubeconfig = parse(readFileSync(sharedEnvironment().kubeconfigPath, 'utf8')) as {
    users: { user: Record<string, unknown> }[];
  };
  for (const entry of kubeconfig.users) entry.user = { token: token.status?.token };
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'twc-limited-')), 'kubeconfig');
  writeFileSync(file, stringify(kubeconfig));
  const api = new KubernetesApi({ access: kubeconfigAccess({ file }) });
  t.after(() => api.close());
  await webhookFor(t, namespace, api);
  await webhookEffective(namespace);
  assert.match(
    await attempt(namespace, pdb),
    new RegExp(
      `spec\\.object\\.kind: the controller \\(system:serviceaccount:${namespace}:limited\\) may not create, patch, delete poddisruptionbudgets\\.policy in namespace ${namespace}`,
    ),
  );
});
