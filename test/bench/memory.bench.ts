// `node test/bench/memory.bench.ts` (starts the local environment: run it under the lock): the
// controller's memory as users run it, in the case issue 40 measured beside the Go controller.
// `twc run` as the image runs it (twc-process.ts) with its defaults (leader election, the webhook,
// backlog metrics), one worker deployment of 2 replicas (AllAtOnce; Pods of the node agent that
// only poll Temporal) rolled out 5 times, then `--more` others (50) created at once with one Pod
// each. Prints the controller's RSS and peak RSS after each step beside the goals. Prints figures; asserts nothing.
//
// TWC_HEAP_SNAPSHOTS=<dir> has the controller write heap snapshots as it grows (twc-process.ts).
// `--capture` writes, after the second rollout, what the controller lists
// (test/support/captured-objects.json, captured-objects.ts).
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { parseArgs } from 'node:util';
import { CRD_DIR } from '../../scripts/generate.ts';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { startEnvironment } from '../../dev/localenv/environment.ts';
import { POLL_ONLY } from '../../dev/node-agent/poller-host.ts';
import { sampleWorkerTemplate } from '../support/sample-template.ts';
import { CAPTURED, CAPTURED_OBJECTS, captureObjects, NAMESPACE } from './captured-objects.ts';
import { createConnection, createNamespace, createWorkerDeployment } from './objects.ts';
import { until } from './poll.ts';
import { memoryOf, scrape, startTwc } from './twc-process.ts';

const { values } = parseArgs({
  options: {
    rollouts: { type: 'string', default: '5' },
    more: { type: 'string', default: '50' },
    capture: { type: 'boolean', default: false },
  },
});
const rollouts = Number(values.rollouts);
const more = Number(values.more);
/** Issue 40's goals, and the Go controller's figures of the same case on the same machine. */
const GOALS = { afterRolloutsMiB: 100 };
const GO = { afterRolloutsMiB: 60, withMoreMiB: 70 };

const environment = await startEnvironment({ crdDir: CRD_DIR, log: (line) => console.error(line) });
const custom = environment.kubeconfig.makeApiClient(CustomObjectsApi);
const object = { group: GROUP, version: VERSION, namespace: NAMESPACE, plural: KINDS.TemporalWorkerDeployment.plural };
const template = (name: string, build: number) =>
  sampleWorkerTemplate(name, POLL_ONLY, [{ name: 'ROLLOUT', value: String(build) }]);
const lines: string[] = [];
try {
  await createNamespace(environment, NAMESPACE);
  await createConnection(environment, NAMESPACE);
  const twc = await startTwc(environment, NAMESPACE, []);
  const step = async (what: string) => {
    const { rssMiB, peakMiB } = memoryOf(twc.pid);
    const metrics = await scrape(twc);
    const mib = (series: string) => ((metrics.get(series) ?? 0) / 1024 / 1024).toFixed(0);
    lines.push(
      `  ${what}: RSS ${rssMiB.toFixed(0)} MiB, peak ${peakMiB.toFixed(0)} MiB; V8 heap ${mib('nodejs_heap_size_used_bytes')} of ${mib('nodejs_heap_size_total_bytes')} MiB, external ${mib('nodejs_external_memory_bytes')} MiB`,
    );
    return peakMiB;
  };
  try {
    await step('started (caches synced)');
    await createWorkerDeployment(environment, NAMESPACE, CAPTURED, {
      replicas: 2,
      rollout: { strategy: 'AllAtOnce' },
      template: template(CAPTURED, 0),
    });
    await until(() => allCurrent([CAPTURED]), { intervalMs: 1000 });
    await step('one worker deployment Current');
    for (let build = 1; build <= rollouts; build++) {
      await custom.patchNamespacedCustomObject(
        { ...object, name: CAPTURED, body: { spec: { template: template(CAPTURED, build) } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      await until(() => allCurrent([CAPTURED]), { intervalMs: 1000 });
      if (build === 2 && values.capture) {
        // A poll interval more: the old builds' Pods and Deployments as they settle.
        await new Promise((resolve) => setTimeout(resolve, 10_000));
        console.error(`wrote ${CAPTURED_OBJECTS}: ${await captureObjects(environment)}`);
      }
    }
    // Two poll intervals of the idle controller, as the Go figure was read.
    await new Promise((resolve) => setTimeout(resolve, 20_000));
    const afterRollouts = await step(`after ${rollouts} rollouts and 20 s idle`);
    lines.push(
      `    goal: peak ≤ ${GOALS.afterRolloutsMiB} MiB, ${afterRollouts <= GOALS.afterRolloutsMiB ? 'met' : 'NOT met'}; Go controller ${GO.afterRolloutsMiB} MiB`,
    );
    if (more > 0) {
      const names = Array.from({ length: more }, (_, i) => `more-${i}`);
      await Promise.all(
        names.map((name) =>
          createWorkerDeployment(environment, NAMESPACE, name, {
            replicas: 1,
            rollout: { strategy: 'AllAtOnce' },
            template: template(name, 0),
          }),
        ),
      );
      await until(() => allCurrent(names), { intervalMs: 2000 });
      await step(`${more} more worker deployments Current`);
      lines.push(`    Go controller: peak ${GO.withMoreMiB} MiB`);
    }
  } finally {
    await twc.stop();
  }
} finally {
  await environment.stop();
  console.log(
    `controller memory, \`twc run\` as the image runs it, with its defaults (peak: VmHWM since its start):\n${lines.join('\n')}`,
  );
}

/** Each of `names` has its target build Current, for the spec it has now. */
async function allCurrent(names: string[]): Promise<boolean> {
  const { items } = (await custom.listNamespacedCustomObject(object)) as { items: TemporalWorkerDeployment[] };
  return names.every((name) => {
    const twd = items.find((t) => t.metadata.name === name);
    const status = twd?.status;
    return (
      status?.observedGeneration === twd?.metadata.generation &&
      status?.currentVersion?.buildID !== undefined &&
      status.currentVersion.buildID === status.targetVersion?.buildID
    );
  });
}
