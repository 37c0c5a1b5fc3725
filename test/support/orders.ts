// Orders started on a worker deployment's task queue while a rollout ramps, as the analysis tests
// judge builds by them: unpinned, so routing decides which build each lands on.
import type { Client } from '@temporalio/client';
import type { TestContext } from 'node:test';
import { type ControlledNamespaceOptions, controlledNamespace, rolledOut } from './controller.ts';
import { temporalClient, testNamespace } from './environment.ts';

/** Starts an order every 100 ms on `queue` (none without one), unpinned: routing decides the build. */
export function ordersUntilStopped(client: Client, queue: string | undefined): { stop: () => Promise<number> } {
  let stopped = false;
  let started = 0;
  const loop = (async () => {
    while (!stopped && queue !== undefined) {
      // Spread over 0..99, so that a fail-30 build fails 30 % of whatever share it gets.
      const number = (started * 37) % 100;
      await client.workflow.start('order', {
        taskQueue: queue,
        workflowId: `order-${queue}-${started}`,
        args: [number],
      });
      started++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return started;
    },
  };
}

/**
 * The worker deployment `orders` of a new namespace, current at a build of behaviour `first`, then
 * given a build of behaviour `next` and `rollout`; with `orders`, orders are started from just
 * before the change until the test stops them. `options`: the namespace's controller's.
 */
export async function rolledOutTo(
  t: TestContext,
  prefix: string,
  change: { first: string; next: string; rollout: object; orders?: boolean },
  options: ControlledNamespaceOptions = {},
) {
  const namespace = await testNamespace(t, prefix);
  const client = await temporalClient(t);
  const ns = await controlledNamespace(t, namespace, options);
  await ns.createWorkerDeployment('orders', { replicas: 1, template: ns.template(change.first) });
  const v1 =
    (await ns.until('orders', 'the first build to be current', rolledOut)).status?.currentVersion?.buildID ?? '';
  const orders = ordersUntilStopped(client, change.orders === false ? undefined : ns.taskQueue);
  t.after(() => orders.stop());
  await ns.patchSpec('orders', { template: ns.template(change.next), rollout: change.rollout });
  return { namespace, client, ns, v1, orders };
}
