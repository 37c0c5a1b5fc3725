// NoPollers on the real cluster and server: a current build whose Pods stay Ready while its workers
// stopped polling says Degraded=True/NoPollers once Temporal forgets their polls (the shared
// server's matching.PollerHistoryTTL is 10s, and so is the controller's --poller-history here),
// with one Warning event and the metric; a build that polls all along says nothing of the kind.
// Both list their task queue in the status, from the leader's reads.
import { CoreV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { POLL_ONLY, pollOnlyFor } from '../../dev/node-agent/poller-host.ts';
import { versionedDeploymentName } from '../../src/k8s/names.ts';
import { condition, controlledNamespace, rolledOut } from '../support/controller.ts';
import { eventually, kubeConfig, testNamespace } from '../support/environment.ts';

/** LOCAL_DYNAMIC_CONFIG's matching.PollerHistoryTTL, which the shared dev server runs with. */
const SERVER_POLLER_HISTORY_MS = 10_000;

test('a current build whose Ready Pods stopped polling says NoPollers; one that polls does not', async (t) => {
  const namespace = await testNamespace(t, 'no-pollers');
  const ns = await controlledNamespace(t, namespace, {
    backlogMetrics: true,
    pollerHistoryMs: SERVER_POLLER_HISTORY_MS,
  });
  const quietQueue = ns.taskQueue;
  const busyQueue = `${ns.taskQueue}-busy`;
  // Its only Pod polls for 20s (the build registers and is promoted meanwhile), then never again,
  // and stays Ready: Kubernetes cannot tell it from a working one.
  await ns.createWorkerDeployment('quiet', { replicas: 1, template: ns.template(pollOnlyFor(20), quietQueue) });
  await ns.createWorkerDeployment('busy', { replicas: 1, template: ns.template(POLL_ONLY, busyQueue) });
  await ns.until('quiet', 'the quiet build to be current', rolledOut);

  const quiet = await ns.until(
    'quiet',
    'Degraded=True/NoPollers',
    (twd) => condition(twd, 'Degraded')?.reason === 'NoPollers',
    90_000,
  );
  const buildId = quiet.status?.currentVersion?.buildID ?? '';
  const degraded = condition(quiet, 'Degraded');
  assert.equal(degraded?.status, 'True');
  assert.match(
    degraded?.message ?? '',
    new RegExp(
      `^build ${buildId} is current and its Deployment ${versionedDeploymentName('quiet', buildId)} has had every Pod Ready since \\S+, yet Temporal remembers no poller of it on workflow task queue ${quietQueue} within its poller history \\(10s\\): check the workers' TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_DEPLOYMENT_NAME \\(${namespace}/quiet\\) and TEMPORAL_WORKER_BUILD_ID`,
    ),
  );
  assert.equal(condition(quiet, 'Ready')?.status, 'True', 'the rollout is done all the same');
  assert.deepEqual(quiet.status?.currentVersion?.taskQueues, [{ name: quietQueue, type: 'workflow' }]);
  assert.equal(quiet.status?.currentVersion?.pollers, 0);
  assert.deepEqual((await ns.buildDeployments()).get(buildId)?.replicas, 1, 'nothing scaled');

  // The busy build was made at the same time: Ready as long, and polling all along.
  const busy = await ns.read('busy');
  assert.ok(rolledOut(busy));
  assert.equal(condition(busy, 'Degraded'), undefined, JSON.stringify(busy.status?.conditions));
  assert.deepEqual(busy.status?.currentVersion?.taskQueues, [{ name: busyQueue, type: 'workflow' }]);
  assert.equal(busy.status?.currentVersion?.pollers, 1);

  const gauge = async () =>
    Object.fromEntries(
      ((await ns.metrics.registry.getSingleMetric('twc_builds_without_pollers')?.get())?.values ?? [])
        .filter((v) => v.labels.namespace === namespace)
        .map((v) => [String(v.labels.worker_deployment), v.value]),
    );
  assert.deepEqual(await gauge(), { quiet: 1, busy: 0 });

  // Reconciles go on (the poll interval is 1s): the Warning is written when NoPollers starts, once.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const warnings = await eventually('the Warning event', async () => {
    const found = (await core.listNamespacedEvent({ namespace })).items.filter((e) => e.reason === 'NoPollers');
    return found.length > 0 ? found : undefined;
  });
  assert.deepEqual(
    warnings.map((e) => [e.type, e.involvedObject.name, e.count, e.message]),
    [['Warning', 'quiet', 1, degraded?.message]],
  );
});
