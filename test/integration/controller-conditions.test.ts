// What the status says when the controller waits: on a human (Manual) or on Temporal.
import { AppsV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LABELS } from '../../src/k8s/names.ts';
import type { Metrics } from '../../src/runtime/metrics.ts';
import { condition, controlledNamespace, rolledOut } from '../support/controller.ts';
import { eventually, kubeConfig, sharedEnvironment, testNamespace } from '../support/environment.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';

test('Manual: the build runs and registers, and routing is left alone, as the status says', async (t) => {
  const namespace = await testNamespace(t, 'manual');
  const ns = await controlledNamespace(t, namespace);
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'Manual' },
    template: ns.template('blue'),
  });
  const registered = await eventually(
    'the build to register',
    async () => {
      const twd = await ns.read('orders');
      return twd.status?.targetVersion?.status === 'Inactive' && twd.status.targetVersion.healthySince
        ? twd
        : undefined;
    },
    90_000,
  );
  assert.equal(registered.status?.currentVersion, undefined, 'never promoted');
  const ready = registered.status?.conditions?.find((c) => c.type === 'Ready');
  assert.equal(ready?.status, 'False');
  assert.match(ready?.message ?? '', /Manual strategy leaves routing to you/);
});

test('an unreachable Temporal: Progressing=False/TemporalUnreachable, and no Deployment is touched, not even a drained build due to be scaled down', async (t) => {
  const namespace = await testNamespace(t, 'unreachable');
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const [host = '', port = ''] = sharedEnvironment().temporalAddress.split(':');
  const proxy = new TcpProxy({ host, port: Number(port) });
  await proxy.listen();
  t.after(() => proxy.cut());
  const address = `127.0.0.1:${proxy.port}`;
  const ns = await controlledNamespace(t, namespace, { temporalAddress: address });
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    sunset: { scaledownDelay: '20s', deleteDelay: '1h' },
    template: ns.template('blue'),
  });
  const v1 =
    (await ns.until('orders', 'the first build to be current', rolledOut)).status?.currentVersion?.buildID ?? '';
  await ns.patchSpec('orders', { template: ns.template('green') });
  await ns.until(
    'orders',
    'v1 to be drained: due to be scaled down 20 s later',
    (twd) =>
      rolledOut(twd) &&
      twd.status?.deprecatedVersions?.some((v) => v.buildID === v1 && v.status === 'Drained') === true,
  );

  // From here on, while Temporal is out of reach, no Deployment may change.
  const deployments = async () =>
    (await apps.listNamespacedDeployment({ namespace })).items
      .map(
        (d) =>
          `${d.metadata?.labels?.[LABELS.buildId]} ${d.metadata?.uid} generation ${d.metadata?.generation} replicas ${d.spec?.replicas}`,
      )
      .sort();
  const before = await deployments();
  const writesBefore = await deploymentWrites(ns.metrics);
  assert.equal(before.filter((d) => d.endsWith('replicas 1')).length, 2, 'both builds run a replica');
  await proxy.cut();
  const down = await ns.until(
    'orders',
    'the outage to show',
    (twd) => condition(twd, 'Progressing')?.reason === 'TemporalUnreachable',
    60_000,
  );
  assert.equal(condition(down, 'Progressing')?.status, 'False');
  assert.match(condition(down, 'Progressing')?.message ?? '', new RegExp(address.replaceAll('.', '\\.')));
  // Past v1's scaledownDelay, with a reconcile every second against the absent server.
  await new Promise((resolve) => setTimeout(resolve, 25_000));
  assert.deepEqual(await deploymentWrites(ns.metrics), writesBefore, 'no request changed a Deployment');
  assert.deepEqual(await deployments(), before, 'every Deployment as it was: none deleted, scaled or rolled');

  // The scale-down was due: it happens as soon as Temporal can say v1 is still drained.
  await proxy.listen();
  await eventually(
    'v1 to be scaled down once Temporal is back',
    async () => ((await ns.buildDeployments()).get(v1)?.replicas === 0 ? true : undefined),
    60_000,
  );
});

/** The controller's requests that create, change or delete Deployments, by verb and resource. */
async function deploymentWrites(metrics: Metrics): Promise<Record<string, number>> {
  const values = (await metrics.registry.getSingleMetric('twc_kubernetes_requests_total')?.get())?.values ?? [];
  const writes: Record<string, number> = {};
  for (const v of values) {
    if (
      ['get', 'list', 'watch'].includes(String(v.labels.verb)) ||
      !String(v.labels.resource).startsWith('deployments')
    )
      continue;
    const key = `${v.labels.verb} ${v.labels.resource}`;
    writes[key] = (writes[key] ?? 0) + v.value;
  }
  return writes;
}
