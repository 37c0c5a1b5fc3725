// Owned resources on the real API server, with the real disruption and HPA controllers: the
// examples twor-pdb.yaml and twor-hpa.yaml as they are give each live build its own
// PodDisruptionBudget and HorizontalPodAutoscaler, named, owned and filled in; the PDB counts its
// build's Pods, the HPA scales its build to minReplicas; a copy the API server refuses is said
// alone and the rollout completes; a twor without its worker deployment says so until it comes;
// deleting a twor deletes its copies, and deleting the worker deployment deletes its twor; a copy
// is written as the twor's ServiceAccount, and one it may not make is not made at all; an HPA
// whose floor follows its build's state is lowered once its build stops being current.
import {
  ApiextensionsV1Api,
  AppsV1Api,
  AutoscalingV2Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  PolicyV1Api,
  setHeaderOptions,
  type V2HorizontalPodAutoscaler,
  type V1PodDisruptionBudget,
} from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import type { TemporalWorkerOwnedResource } from '../../src/api/temporal-worker-owned-resource.ts';
import { copyName } from '../../src/k8s/owned-resource-copies.ts';
import { controlledNamespace, deleteWorkerDeployment, gone, rolledOut } from '../support/controller.ts';
import { grantCopyAccount } from '../support/controller-rbac.ts';
import { eventually, kubeConfig, testNamespace } from '../support/environment.ts';
import { create, type Manifest, readManifests } from '../support/manifests.ts';

const EXAMPLES = path.join(import.meta.dirname, '../../examples');
const example = (file: string): Manifest => readManifests(path.join(EXAMPLES, file))[0] as Manifest;
const twors = { group: GROUP, version: VERSION, plural: KINDS.TemporalWorkerOwnedResource.plural };

/** client-node's class instances as plain data, to compare with literals. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

async function readTwor(namespace: string, name: string): Promise<TemporalWorkerOwnedResource> {
  return (await kubeConfig()
    .makeApiClient(CustomObjectsApi)
    .getNamespacedCustomObject({ ...twors, namespace, name })) as TemporalWorkerOwnedResource;
}

/** The twor once every copy of these builds is applied. */
function appliedTo(namespace: string, name: string, builds: string[]): Promise<TemporalWorkerOwnedResource> {
  let seen: unknown;
  return eventually(
    `${name} applied to ${builds.join(', ')}`,
    async () => {
      const twor = await readTwor(namespace, name);
      seen = twor.status;
      const versions = twor.status?.versions ?? [];
      const done = builds.every((b) => versions.some((v) => v.buildID === b && v.applied));
      return done && twor.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' ? twor : undefined;
    },
    60_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; status: ${JSON.stringify(seen)}`);
  });
}

test('the PDB and HPA examples: a copy per live build, named, owned, filled in, and acted on by the real controllers', async (t) => {
  const namespace = await testNamespace(t, 'twor');
  const ns = await controlledNamespace(t, namespace);
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const policy = kubeConfig().makeApiClient(PolicyV1Api);
  const autoscaling = kubeConfig().makeApiClient(AutoscalingV2Api);
  // No replicas: the HPA owns them.
  await ns.createWorkerDeployment('orders', { template: ns.template('blue') });
  const blue = (await ns.until('orders', 'blue current', rolledOut)).status?.currentVersion?.buildID ?? '';
  await ns.patchSpec('orders', { template: ns.template('green') });
  const green =
    (await ns.until('orders', 'green current', (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== blue))
      .status?.currentVersion?.buildID ?? '';
  await create(example('twor-pdb.yaml'), namespace);
  await create(example('twor-hpa.yaml'), namespace);

  const pdbTwor = await appliedTo(namespace, 'orders-pdb', [blue, green]);
  const hpaTwor = await appliedTo(namespace, 'orders-hpa', [blue, green]);
  const deployments = await ns.buildDeployments();
  for (const build of [blue, green]) {
    const deployment = await apps.readNamespacedDeployment({ namespace, name: deployments.get(build)?.name ?? '' });
    const owner = [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: deployment.metadata?.name,
        uid: deployment.metadata?.uid,
        controller: true,
      },
    ];

    const pdbName = copyName('orders', 'orders-pdb', build);
    assert.equal(pdbTwor.status?.versions?.find((v) => v.buildID === build)?.resourceName, pdbName);
    const pdb: V1PodDisruptionBudget = await policy.readNamespacedPodDisruptionBudget({ namespace, name: pdbName });
    assert.deepEqual(plain(pdb.metadata?.ownerReferences), owner);
    assert.equal(pdb.metadata?.labels?.team, 'orders', "the twor's own labels");
    assert.equal(pdb.metadata?.labels?.['temporal.io/owned-resource'], 'orders-pdb');
    assert.deepEqual(plain(pdb.spec?.selector?.matchLabels), {
      'temporal.io/deployment-name': 'orders',
      'temporal.io/build-id': build,
    });

    const hpaName = copyName('orders', 'orders-hpa', build);
    assert.equal(hpaTwor.status?.versions?.find((v) => v.buildID === build)?.resourceName, hpaName);
    const hpa: V2HorizontalPodAutoscaler = await autoscaling.readNamespacedHorizontalPodAutoscaler({
      namespace,
      name: hpaName,
    });
    assert.deepEqual(plain(hpa.metadata?.ownerReferences), owner);
    assert.deepEqual(plain(hpa.spec.scaleTargetRef), {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: deployment.metadata?.name,
    });

    // The HPA controller raised the build from the Deployment's default of 1 to minReplicas (2),
    // and the disruption controller counts the build's Pods under its PDB.
    await eventually(
      `the HPA to scale ${build} to 2 and the PDB to count its Pods`,
      async () => {
        const scaled = await apps.readNamespacedDeployment({ namespace, name: deployment.metadata?.name ?? '' });
        const counted = await policy.readNamespacedPodDisruptionBudget({ namespace, name: pdbName });
        return scaled.spec?.replicas === 2 && counted.status?.expectedPods === 2 && counted.status.currentHealthy === 2
          ? true
          : undefined;
      },
      60_000,
    );
  }
  const owners = (await readTwor(namespace, 'orders-hpa')).metadata.ownerReferences ?? [];
  assert.deepEqual(
    owners.map((o) => [o.kind, o.name, o.controller]),
    [['TemporalWorkerDeployment', 'orders', true]],
  );

  // Deleting a twor deletes its copies; deleting the worker deployment deletes the other twor.
  await kubeConfig()
    .makeApiClient(CustomObjectsApi)
    .deleteNamespacedCustomObject({ ...twors, namespace, name: 'orders-pdb' });
  await eventually('the PDB copies to go with their twor', async () => {
    const left = (await policy.listNamespacedPodDisruptionBudget({ namespace })).items;
    return left.length === 0 ? true : undefined;
  });
  await eventually('the twor to be gone', () => gone(() => readTwor(namespace, 'orders-pdb')));
  await deleteWorkerDeployment(namespace, 'orders');
  await eventually(
    'the HPA twor to go with its worker deployment',
    () => gone(() => readTwor(namespace, 'orders-hpa')),
    90_000,
  );
});

test('a twor whose worker deployment does not exist says so, and gets its copies once it does', async (t) => {
  const namespace = await testNamespace(t, 'twor-orphan');
  const ns = await controlledNamespace(t, namespace);
  await create(example('twor-pdb.yaml'), namespace);
  const waiting = await eventually('the twor to say its worker deployment is missing', async () => {
    const twor = await readTwor(namespace, 'orders-pdb');
    const stalled = twor.status?.conditions?.find((c) => c.type === 'Stalled');
    return stalled?.status === 'True' ? stalled : undefined;
  });
  assert.equal(waiting.reason, 'WorkerDeploymentNotFound');
  assert.match(waiting.message ?? '', new RegExp(`TemporalWorkerDeployment ${namespace}/orders does not exist`));

  await ns.createWorkerDeployment('orders', { replicas: 1, template: ns.template('blue') });
  const done = await ns.until('orders', 'the build current', rolledOut);
  const applied = await appliedTo(namespace, 'orders-pdb', [done.status?.currentVersion?.buildID ?? '']);
  const stalled = applied.status?.conditions?.find((c) => c.type === 'Stalled');
  assert.notEqual(stalled?.status, 'True', 'no longer stalled');
});

test('a copy the API server refuses is said for its build alone, and the rollout completes', async (t) => {
  const namespace = await testNamespace(t, 'twor-refused');
  const ns = await controlledNamespace(t, namespace);
  await create(
    {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'TemporalWorkerOwnedResource',
      metadata: { name: 'both' },
      // Both fields: the API server refuses a PDB that sets the two.
      spec: {
        workerRef: { name: 'orders' },
        object: {
          apiVersion: 'policy/v1',
          kind: 'PodDisruptionBudget',
          spec: { minAvailable: 1, maxUnavailable: 1, selector: { matchLabels: {} } },
        },
      },
    },
    namespace,
  );
  await create(example('twor-pdb.yaml'), namespace);
  await ns.createWorkerDeployment('orders', { replicas: 1, template: ns.template('blue') });
  const done = await ns.until('orders', 'the build current despite the refused copy', rolledOut);
  const build = done.status?.currentVersion?.buildID ?? '';
  await appliedTo(namespace, 'orders-pdb', [build]);
  const refused = await eventually('the refusal in the status', async () => {
    const twor = await readTwor(namespace, 'both');
    const entry = twor.status?.versions?.find((v) => v.buildID === build);
    return entry && !entry.applied ? twor : undefined;
  });
  const entry = refused.status?.versions?.[0];
  assert.match(entry?.message ?? '', /minAvailable|maxUnavailable/, "the API server's words");
  const stalled = refused.status?.conditions?.find((c) => c.type === 'Stalled');
  assert.deepEqual([stalled?.status, stalled?.reason], ['True', 'CopiesNotApplied']);
});

test('a field removed from a twor leaves its copies; a drained build loses its HPA before it is scaled to zero', async (t) => {
  const namespace = await testNamespace(t, 'twor-lifecycle');
  const ns = await controlledNamespace(t, namespace);
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const policy = kubeConfig().makeApiClient(PolicyV1Api);
  const autoscaling = kubeConfig().makeApiClient(AutoscalingV2Api);
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  await ns.createWorkerDeployment('orders', {
    template: ns.template('blue'),
    sunset: { scaledownDelay: '2s', deleteDelay: '1h' },
  });
  const blue = (await ns.until('orders', 'blue current', rolledOut)).status?.currentVersion?.buildID ?? '';
  const pdb = example('twor-pdb.yaml') as Manifest & {
    spec: { object: { metadata: { labels: Record<string, string> } } };
  };
  pdb.spec.object.metadata.labels = { team: 'orders', extra: 'yes' };
  await create(pdb, namespace);
  await create(example('twor-hpa.yaml'), namespace);
  await appliedTo(namespace, 'orders-pdb', [blue]);
  await appliedTo(namespace, 'orders-hpa', [blue]);
  const pdbName = copyName('orders', 'orders-pdb', blue);
  assert.equal(
    (await policy.readNamespacedPodDisruptionBudget({ namespace, name: pdbName })).metadata?.labels?.extra,
    'yes',
  );

  // Server-side apply under the twor's own field manager: what the twor no longer sets goes.
  await custom.patchNamespacedCustomObject(
    { ...twors, namespace, name: 'orders-pdb', body: { spec: { object: { metadata: { labels: { extra: null } } } } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  await eventually('the removed label to leave the copy', async () => {
    const copy = await policy.readNamespacedPodDisruptionBudget({ namespace, name: pdbName });
    return copy.metadata?.labels?.extra === undefined && copy.metadata?.labels?.team === 'orders' ? true : undefined;
  });

  // blue drains once green is current, and 2 s later is scaled to zero: its HPA goes first.
  await ns.patchSpec('orders', { template: ns.template('green') });
  const hpaName = copyName('orders', 'orders-hpa', blue);
  const blueDeployment = (await ns.buildDeployments()).get(blue)?.name ?? '';
  await eventually(
    "blue's Deployment at zero replicas",
    async () =>
      (await apps.readNamespacedDeployment({ namespace, name: blueDeployment })).spec?.replicas === 0
        ? true
        : undefined,
    120_000,
  );
  await assert.rejects(
    autoscaling.readNamespacedHorizontalPodAutoscaler({ namespace, name: hpaName }),
    /404|not found/i,
  );
  const events = (await kubeConfig().makeApiClient(CoreV1Api).listNamespacedEvent({ namespace })).items;
  const at = (reason: string, about: string) =>
    events.find((e) => e.reason === reason && (e.message ?? '').includes(about))?.firstTimestamp ??
    events.find((e) => e.reason === reason && (e.message ?? '').includes(about))?.eventTime;
  const deleted = at('OwnedResourceDeleted', hpaName);
  const scaled = at('DeploymentScaled', blueDeployment);
  assert.ok(deleted && scaled, `both events: ${events.map((e) => `${e.reason}: ${e.message}`).join(' | ')}`);
  assert.ok(new Date(deleted) <= new Date(scaled), 'the HPA went before the scale to zero');
  await eventually("the twor's status to drop blue's copy", async () =>
    (await readTwor(namespace, 'orders-hpa')).status?.versions?.some((v) => v.buildID === blue) ? undefined : true,
  );
});

test("a twor's ServiceAccount that may not create ConfigMaps cannot have the controller make one, webhook or not: Stalled=True/CopyForbidden and no object; granted, the copy appears", async (t) => {
  const namespace = await testNamespace(t, 'twor-forbidden');
  const ns = await controlledNamespace(t, namespace);
  // The namespace's view role: it may read ConfigMaps, not create them. No webhook judges this
  // namespace: the API server's RBAC alone keeps the controller's rights out of reach.
  await grantCopyAccount(namespace, 'reader', 'view');
  const twor = {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'TemporalWorkerOwnedResource',
    metadata: { name: 'settings' },
    spec: {
      workerRef: { name: 'orders' },
      serviceAccountName: 'reader',
      object: { apiVersion: 'v1', kind: 'ConfigMap', data: { build: '{{ .BuildID }}' } },
    },
  };
  await create(twor, namespace);
  await ns.createWorkerDeployment('orders', { replicas: 1, template: ns.template('blue') });
  const forbidden = await eventually('the copy to be refused to the ServiceAccount', async () => {
    const stalled = (await readTwor(namespace, 'settings')).status?.conditions?.find((c) => c.type === 'Stalled');
    return stalled?.reason === 'CopyForbidden' ? stalled : undefined;
  });
  assert.equal(forbidden.status, 'True');
  assert.match(forbidden.message ?? '', new RegExp(`^ServiceAccount ${namespace}/reader may not patch ConfigMap `));
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const copies = async () =>
    (await core.listNamespacedConfigMap({ namespace, labelSelector: 'temporal.io/owned-resource=settings' })).items;
  assert.deepEqual(await copies(), [], "no ConfigMap was made with the controller's rights");

  await grantCopyAccount(namespace, 'writer');
  await kubeConfig()
    .makeApiClient(CustomObjectsApi)
    .patchNamespacedCustomObject(
      { ...twors, namespace, name: 'settings', body: { spec: { serviceAccountName: 'writer' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  const [copy] = await eventually('the copy once its ServiceAccount may create it', async () => {
    const listed = await copies();
    return listed.length > 0 ? listed : undefined;
  });
  assert.equal(copy?.metadata?.ownerReferences?.[0]?.kind, 'Deployment', "owned by the build's Deployment");
  const ready = await eventually('the twor ready', async () => {
    const condition = (await readTwor(namespace, 'settings')).status?.conditions?.find((c) => c.type === 'Ready');
    return condition?.status === 'True' ? condition : undefined;
  });
  assert.equal(ready.reason, 'Applied');
});

test('a twor of a kind the API server does not serve yet, stored where no webhook judges: once its CRD is installed, no object of it appears that the namespace ServiceAccount may not make', async (t) => {
  const namespace = await testNamespace(t, 'twor-unserved');
  const ns = await controlledNamespace(t, namespace);
  // edit does not reach a kind installed later: nothing aggregates it.
  await grantCopyAccount(namespace, 'editor', 'edit');
  const group = `${namespace}.example.com`;
  await create(
    {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'TemporalWorkerOwnedResource',
      metadata: { name: 'gadget' },
      spec: {
        workerRef: { name: 'orders' },
        serviceAccountName: 'editor',
        object: { apiVersion: `${group}/v1`, kind: 'Gadget', spec: { build: '{{ .BuildID }}' } },
      },
    },
    namespace,
  );
  await ns.createWorkerDeployment('orders', { replicas: 1, template: ns.template('blue') });
  await ns.until('orders', 'the build to roll out, the twor notwithstanding', rolledOut);

  const extensions = kubeConfig().makeApiClient(ApiextensionsV1Api);
  const crd = `gadgets.${group}`;
  await extensions.createCustomResourceDefinition({
    body: {
      metadata: { name: crd },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
          },
        ],
      },
    },
  });
  t.after(() => extensions.deleteCustomResourceDefinition({ name: crd }).catch(() => undefined));
  const forbidden = await eventually(
    'the copy, its kind now served, to be refused to the ServiceAccount',
    async () => {
      const stalled = (await readTwor(namespace, 'gadget')).status?.conditions?.find((c) => c.type === 'Stalled');
      return stalled?.reason === 'CopyForbidden' ? stalled : undefined;
    },
    120_000,
  );
  assert.match(forbidden.message ?? '', new RegExp(`^ServiceAccount ${namespace}/editor may not patch Gadget `));
  const gadgets = (await kubeConfig()
    .makeApiClient(CustomObjectsApi)
    .listNamespacedCustomObject({ group, version: 'v1', plural: 'gadgets', namespace })) as { items: unknown[] };
  assert.deepEqual(gadgets.items, [], "no Gadget was made with the controller's rights");
});

test("twor-hpa-by-state.yaml: the real HPA controller holds each build at its state's floor, and a build's copy follows it when it stops being current", async (t) => {
  const namespace = await testNamespace(t, 'twor-states');
  const ns = await controlledNamespace(t, namespace);
  const autoscaling = kubeConfig().makeApiClient(AutoscalingV2Api);
  await ns.createWorkerDeployment('orders', { template: ns.template('blue') });
  const blue = (await ns.until('orders', 'blue current', rolledOut)).status?.currentVersion?.buildID ?? '';
  await create(example('twor-hpa-by-state.yaml'), namespace);
  const replicasOf = async (build: string) => (await ns.buildDeployments()).get(build)?.replicas;
  await eventually(
    'blue held at the current floor, 3',
    async () => ((await replicasOf(blue)) === 3 ? true : undefined),
    90_000,
  );
  const blueHpa = await autoscaling.readNamespacedHorizontalPodAutoscaler({
    namespace,
    name: copyName('orders', 'orders-hpa-by-state', blue),
  });
  assert.deepEqual(blueHpa.metadata?.annotations, {
    'worker-deployment': `${namespace}/orders`,
    'build-state': 'Current',
  });

  await ns.patchSpec('orders', { template: ns.template('green') });
  const green =
    (await ns.until('orders', 'green current', (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== blue))
      .status?.currentVersion?.buildID ?? '';
  await eventually(
    'green held at 3 and blue, no longer current, lowered to 1',
    async () => ((await replicasOf(green)) === 3 && (await replicasOf(blue)) === 1 ? true : undefined),
    90_000,
  );
  const lowered = await autoscaling.readNamespacedHorizontalPodAutoscaler({
    namespace,
    name: copyName('orders', 'orders-hpa-by-state', blue),
  });
  assert.match(lowered.metadata?.annotations?.['build-state'] ?? '', /^Drain(ing|ed)$/);
  assert.deepEqual([lowered.spec?.minReplicas, lowered.spec?.maxReplicas], [1, 1]);
});
