// A build whose Pods cannot run says so at once, in the words of its Pods, long before the
// Deployment's progress deadline: which Pod, which container, the reason and the message.
import { CoreV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { condition, controlledNamespace } from '../support/controller.ts';
import { eventually, kubeConfig, testNamespace } from '../support/environment.ts';

test('a Pod in CreateContainerConfigError is named in the condition within seconds, with one Warning event', async (t) => {
  const namespace = await testNamespace(t, 'pod-failure');
  const ns = await controlledNamespace(t, namespace);
  const template = ns.template('blue') as { spec: { containers: { env: object[] }[] } };
  template.spec.containers[0]?.env.push({
    name: 'PASSWORD',
    valueFrom: { secretKeyRef: { name: 'no-such-secret', key: 'password' } },
  });
  // The default progressDeadlineSeconds (600): only the Pods can say anything in the next minutes.
  await ns.createWorkerDeployment('orders', { replicas: 1, template });
  const failing = await ns.until(
    'orders',
    "the Pods' failure in the condition",
    (twd) => /CreateContainerConfigError/.test(condition(twd, 'Progressing')?.message ?? ''),
    20_000,
  );
  const buildId = failing.status?.targetVersion?.buildID ?? '';
  const progressingNow = condition(failing, 'Progressing');
  // The cause is known before the Pods say it: the Secret the template reads does not exist.
  assert.equal(progressingNow?.reason, 'ConfigurationMissing');
  assert.equal(progressingNow?.status, 'True', 'the Deployment may still make it before its deadline');
  assert.equal(condition(failing, 'Stalled')?.status, 'False');
  assert.equal(condition(failing, 'Ready')?.reason, 'ConfigurationMissing');
  const message = progressingNow?.message ?? '';
  assert.match(
    message,
    new RegExp(`Pod orders-${buildId}-[a-z0-9]+-[a-z0-9]+ container worker`),
    'names Pod and container',
  );
  assert.match(message, /no-such-secret/, "gives the Pod's message");
  assert.match(
    message,
    new RegExp(
      `kubectl describe pods -n ${namespace} -l temporal.io/deployment-name=orders,temporal.io/build-id=${buildId}`,
    ),
    "a selector of this worker deployment's Pods only",
  );

  // Reconciles go on (the poll interval is 1s); the problem is reported once.
  await new Promise((resolve) => setTimeout(resolve, 4000));
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const warnings = await eventually('the Warning event', async () => {
    const found = (await core.listNamespacedEvent({ namespace })).items.filter(
      (e) => e.type === 'Warning' && e.reason === 'PodsFailing',
    );
    return found.length > 0 ? found : undefined;
  });
  assert.equal(warnings.length, 1, `one event for one problem: ${warnings.map((e) => e.message).join(' | ')}`);
  assert.equal(warnings[0]?.count, 1, 'not written again at every reconcile');
  assert.match(warnings[0]?.message ?? '', /CreateContainerConfigError.*no-such-secret/);
});

test('a Pod no node can take is named in the condition with what the scheduler said', async (t) => {
  const namespace = await testNamespace(t, 'pod-unschedulable');
  const ns = await controlledNamespace(t, namespace);
  const template = ns.template('blue') as { spec: { nodeSelector?: Record<string, string> } };
  template.spec.nodeSelector = { 'node-pool': 'gpu' };
  await ns.createWorkerDeployment('orders', { replicas: 1, template });
  const waiting = await ns.until(
    'orders',
    'the unschedulable Pod in the condition',
    (twd) => /Unschedulable/.test(condition(twd, 'Progressing')?.message ?? ''),
    20_000,
  );
  const progressing = condition(waiting, 'Progressing');
  assert.equal(progressing?.reason, 'PodsFailing');
  assert.equal(progressing?.status, 'True', 'a node may still come (a cluster autoscaler)');
  assert.match(
    progressing?.message ?? '',
    /Pod orders-[a-z0-9-]+: Unschedulable: 0\/1 nodes are available: 1 node\(s\) didn't match Pod's node affinity\/selector\./,
  );
});
