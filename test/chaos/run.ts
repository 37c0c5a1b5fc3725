// `npm run chaos`: rollouts on the local environment with real workflows pinned to every build, a
// PodDisruptionBudget rendered for each live build and the pinned-workflow ladder signalling old
// ones, while the leader of two controller replicas is killed (SIGKILL) and restarted, Temporal is cut
// off from it, the answers of the API server and Temporal are slowed down, and
// kube-apiserver, etcd and the Temporal server crash and start again, at points chosen from a
// seed that is printed (`--seed` replays a run). The rules of the promise are
// checked every second (invariants.ts); at the end every rollout must reach its target and
// every pinned workflow finish on the build it started on. Prints a report; exits 1 on any breach.
import {
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  PolicyV1Api,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { Client, Connection } from '@temporalio/client';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CRD_DIR } from '../../scripts/generate.ts';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { startEnvironment } from '../../dev/localenv/environment.ts';
import { grantOwnedResourcesAccount, OWNED_RESOURCES_ACCOUNT } from '../../dev/localenv/owned-resources-account.ts';
import { freePort } from '../../dev/localenv/ports.ts';
import { Component, ComponentError } from '../../dev/localenv/process.ts';
import { errorMessage } from '../../src/runtime/kube/api-errors.ts';
import { LABELS, temporalDeploymentName } from '../../src/k8s/names.ts';
import { copyName } from '../../src/k8s/owned-resource-copies.ts';
import type { RunReport } from '../../dev/sample-worker/workflows.ts';
import { createConnection, createNamespace, createWorkerDeployment } from '../bench/objects.ts';
import { sampleWorkerTemplate } from '../support/sample-template.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';
import { type Fault, planFaults } from './faults.ts';
import { InvariantWatch } from './invariants.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    duration: { type: 'string', default: '1800' },
    kills: { type: 'string', default: '50' },
    every: { type: 'string', default: '12' },
    'worker-deployments': { type: 'string', default: '3' },
  },
});
const seed = values.seed ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const duration = Number(values.duration);
const faults = planFaults({ seed, duration, every: Number(values.every), kills: Number(values.kills) });
const names = Array.from({ length: Number(values['worker-deployments']) }, (_, i) => `chaos-${i}`);
const namespace = 'chaos';
console.log(
  `chaos: seed ${seed} (replay with --seed ${seed}), ${duration} s, ${faults.length} faults planned, ${names.length} worker deployments`,
);

// Its folder (every component's log, the controllers' included) is kept when a rule breaks.
const environment = await startEnvironment({ crdDir: CRD_DIR, temporalKeepState: true, keepDir: true, log: () => {} });
const started = Date.now();
const seconds = () => (Date.now() - started) / 1000;
const custom = environment.kubeconfig.makeApiClient(CustomObjectsApi);
const apps = environment.kubeconfig.makeApiClient(AppsV1Api);
const temporal = new Client({
  connection: await Connection.connect({ address: environment.temporalAddress }),
  namespace: environment.temporalNamespace,
});
const [host = '127.0.0.1', port = '0'] = environment.temporalAddress.split(':');
// The controllers reach Temporal through this: cut, Temporal is out of their reach (and only theirs).
const proxy = new TcpProxy({ host, port: Number(port) });
await proxy.listen();
// And the API server through this one, which slows their answers down as the other does.
const apiServer = new URL(environment.kubeconfig.getCurrentCluster()?.server ?? '');
const apiProxy = new TcpProxy({ host: apiServer.hostname, port: Number(apiServer.port) });
await apiProxy.listen();
const proxiedKubeconfig = path.join(environment.dir, 'kubeconfig-through-proxy');
await writeFile(
  proxiedKubeconfig,
  (await readFile(environment.kubeconfigPath, 'utf8')).replaceAll(
    apiServer.origin,
    `https://${apiServer.hostname}:${apiProxy.port}`,
  ),
);
/** Two replicas, as the chart runs them: one leads, the other stands by (POD_NAME names each in the Lease). */
const REPLICAS = ['chaos-a', 'chaos-b'] as const;
type Replica = (typeof REPLICAS)[number];
const healthPorts = { 'chaos-a': await freePort(), 'chaos-b': await freePort() };
const metricsPorts = { 'chaos-a': await freePort(), 'chaos-b': await freePort() };
let controllerRuns = 0;
let stopping = false;
// The invariant checker's loop, stopped and awaited before the Temporal connection closes: a call of
// it still retrying then would throw from the SDK's retry timer and end the process before the
// run's own error, if any, is told.
let checking = true;
let checker: Promise<void> = Promise.resolve();
/** A replica that exits of itself (as on losing the Lease) is started again, as the kubelet restarts a container. */
const startController = (replica: Replica): Component => {
  const component = new Component({
    name: replica,
    env: { ...process.env, POD_NAME: replica },
    command: process.execPath,
    args: [
      path.join(import.meta.dirname, '../../src/cli/main.ts'),
      'run',
      `--kubeconfig=${proxiedKubeconfig}`,
      `--namespace=${namespace}`,
      '--identity=twc-chaos',
      `--owned-resources-service-account=${OWNED_RESOURCES_ACCOUNT}`,
      '--poll-interval=2s',
      `--temporal-connect-to=${environment.temporalAddress}=127.0.0.1:${proxy.port}`,
      `--metrics-bind-address=127.0.0.1:${metricsPorts[replica]}`,
      `--health-probe-bind-address=127.0.0.1:${healthPorts[replica]}`,
      '--webhook-bind-address=0',
    ],
    logFile: path.join(environment.dir, `controller-${++controllerRuns}.log`),
  });
  void component.exited.then(async () => {
    if (stopping || controllers.get(replica) !== component) return;
    report.exits++;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (!stopping && controllers.get(replica) === component) controllers.set(replica, startController(replica));
  });
  return component;
};
const report = {
  kills: 0,
  cuts: 0,
  slowed: 0,
  restarts: 0,
  exits: 0,
  rollouts: 0,
  converge: [] as number[],
  /** Convergences slower than SLOW_CONVERGENCE_S: after which fault, and what was awaited last. */
  slow: [] as string[],
  checksMissed: 0,
};
const controllers = new Map<Replica, Component>();
for (const replica of REPLICAS) controllers.set(replica, startController(replica));
/** Resolves once every replica answers its readiness probe (a replica started again meanwhile included). */
const ready = async () => {
  for (const replica of REPLICAS) {
    for (;;) {
      const component = controllers.get(replica);
      const answered = await component
        ?.waitUntil(
          'ready',
          async () => ((await fetch(`http://127.0.0.1:${healthPorts[replica]}/readyz`)).ok ? true : undefined),
          60_000,
        )
        .then(() => true)
        .catch((error: unknown) => {
          // Exited while waiting: its successor is waited for.
          if (controllers.get(replica) !== component || (error instanceof ComponentError && error.exitedEarly))
            return false;
          throw error;
        });
      if (answered) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
};
const coordination = environment.kubeconfig.makeApiClient(CoordinationV1Api);
/** The replica holding the Lease (the first when none does yet). */
const leader = async (): Promise<Replica> => {
  const lease = await coordination
    .readNamespacedLease({ name: 'temporal-worker-controller', namespace: 'default' })
    .catch(() => undefined);
  return REPLICAS.find((replica) => lease?.spec?.holderIdentity?.startsWith(`${replica}_`)) ?? REPLICAS[0];
};

const watch = new InvariantWatch({
  apps,
  core: environment.kubeconfig.makeApiClient(CoreV1Api),
  client: temporal,
  namespace,
  workerDeployments: names,
  temporalNamespace: environment.temporalNamespace,
});
const RESTARTS = {
  'restart-kube-apiserver': 'kube-apiserver',
  'restart-etcd': 'etcd',
  'restart-temporal': 'temporal',
} as const;
const object = { group: GROUP, version: VERSION, namespace };
const read = async (name: string) =>
  (await custom.getNamespacedCustomObject({
    ...object,
    plural: KINDS.TemporalWorkerDeployment.plural,
    name,
  })) as TemporalWorkerDeployment;
/** Reconciles of worker deployments that did not fail, by the replicas running now. */
const reconciles = async () => {
  let sum = 0;
  for (const replica of REPLICAS) {
    const text = await fetch(`http://127.0.0.1:${metricsPorts[replica]}/metrics`)
      .then((response) => response.text())
      .catch(() => '');
    const lines = text.matchAll(
      /^controller_runtime_reconcile_total\{controller="temporalworkerdeployment",result="(?:success|requeue_after)"\} (\d+)/gm,
    );
    for (const [, count] of lines) sum += Number(count);
  }
  return sum;
};
/**
 * Reconciling again (as many reconciles that did not fail since `since` as worker deployments), and every
 * status observed its spec, says the current build Temporal says, and none says Temporal is out of reach.
 * Otherwise what is still awaited, so that a slow convergence says on what.
 */
const converged = async (since: number): Promise<true | string> => {
  const done = (await reconciles()) - since;
  if (done < names.length) return `${done} reconciles of ${names.length} since the fault ended`;
  for (const name of names) {
    const twd = await read(name);
    if (twd.status?.observedGeneration !== twd.metadata.generation)
      return `${name}: status of generation ${twd.status?.observedGeneration} for ${twd.metadata.generation}`;
    const unreachable = twd.status?.conditions?.find((c) => c.reason === 'TemporalUnreachable');
    if (unreachable) return `${name}: ${unreachable.type} TemporalUnreachable: ${unreachable.message}`;
    const described = await afterFaults(`describing ${name} in Temporal`, () =>
      temporal.workflowService.describeWorkerDeployment({
        namespace: environment.temporalNamespace,
        deploymentName: temporalDeploymentName(namespace, name),
      }),
    );
    const current = described.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId ?? undefined;
    if (current !== twd.status?.currentVersion?.buildID)
      return `${name}: status says current ${twd.status?.currentVersion?.buildID}, Temporal ${current}`;
  }
  return true;
};
/** Past this, a convergence is reported with what it waited on last. */
const SLOW_CONVERGENCE_S = 30;
try {
  await createNamespace(environment, namespace);
  await grantOwnedResourcesAccount(environment.kubeconfig, namespace);
  await createConnection(environment, namespace);
  const template = (name: string, build: number) => sampleWorkerTemplate(name, `build-${build}`);
  for (const name of names)
    await createWorkerDeployment(environment, namespace, name, {
      replicas: 1,
      rollout: {
        strategy: 'Progressive',
        // The shortest pause the schema allows.
        steps: [{ rampPercentage: 50, pauseDuration: '30s' }],
        gate: { workflowType: 'gate' },
      },
      // The ladder's first step only: the run's workflows ignore the request, so none is stopped.
      sunset: { scaledownDelay: '5s', deleteDelay: '10s', pinnedWorkflows: { signalAfter: '20s' } },
      template: template(name, 0),
    });
  for (const name of names)
    await custom.createNamespacedCustomObject({
      ...object,
      plural: KINDS.TemporalWorkerOwnedResource.plural,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'TemporalWorkerOwnedResource',
        metadata: { name: `${name}-pdb` },
        spec: {
          workerRef: { name },
          object: {
            apiVersion: 'policy/v1',
            kind: 'PodDisruptionBudget',
            spec: { minAvailable: 1, selector: { matchLabels: {} } },
          },
        },
      },
    });
  await ready();

  const builds = new Map(names.map((name) => [name, 0]));
  /** Pinned workflows by worker deployment, in the order their builds became current. */
  /** Builds whose workflows the ladder signalled, as their status said. */
  const signalled = new Set<string>();
  const pinned = new Map<string, { buildId: string; handles: ReturnType<Client['workflow']['getHandle']>[] }[]>();
  const done = (twd: TemporalWorkerDeployment) =>
    twd.status?.currentVersion?.buildID !== undefined &&
    twd.status.currentVersion.buildID === twd.status.targetVersion?.buildID &&
    twd.status.targetVersion.rampPercentage === undefined &&
    twd.status.observedGeneration === twd.metadata.generation;
  /** Each worker deployment whose rollout completed gets pinned workflows on its new build, then the next build. */
  const drive = async (rollOn: boolean) => {
    for (const name of names) {
      const twd = await read(name).catch(() => undefined);
      for (const old of twd?.status?.deprecatedVersions ?? [])
        if (old.pinnedWorkflows?.step === 'Signal') signalled.add(`${name}/${old.buildID}`);
      if (!twd || !done(twd)) continue;
      const buildId = twd.status?.currentVersion?.buildID ?? '';
      const list = pinned.get(name) ?? [];
      pinned.set(name, list);
      if (list.at(-1)?.buildId !== buildId) {
        report.rollouts++;
        const handles = await Promise.all(
          [0, 1].map((i) =>
            temporal.workflow.start('pinnedUntilSignalled', {
              taskQueue: name,
              workflowId: `${name}-${buildId}-${i}-${seed}`,
              args: [{ ignoreContinueAsNewRequest: true }],
            }),
          ),
        );
        for (const handle of handles) watch.watchPinned(handle);
        list.push({ buildId, handles });
        // Two builds back, their workflows may finish: that build then drains and goes.
        for (const old of list.slice(0, -2))
          await Promise.all(old.handles.map((h) => h.signal('finish').catch(() => {})));
      }
      if (!rollOn) continue;
      const next = (builds.get(name) ?? 0) + 1;
      builds.set(name, next);
      await custom.patchNamespacedCustomObject(
        {
          ...object,
          plural: KINDS.TemporalWorkerDeployment.plural,
          name,
          body: { spec: { template: template(name, next) } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    }
  };

  checker = (async () => {
    while (checking) {
      await watch.check().catch(() => report.checksMissed++);
      // Once a second: the run's own reads of Temporal must not crowd the controller's out.
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
  const driver = (async () => {
    while (seconds() < duration) {
      await drive(true).catch((error: unknown) => console.error(`drive: ${String(error)}`));
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
  for (const fault of faults) await inject(fault);
  await driver;

  // The faults over: every rollout reaches its target; then every pinned workflow finishes.
  const settleStart = Date.now();
  // Long enough for a worker deployment rate-limited by Temporal to come back (its delay doubles up to 5 minutes).
  while (Date.now() - settleStart < 360_000) {
    const twds = await afterFaults('reading the worker deployments', () => Promise.all(names.map(read)));
    if (
      twds.every(done) &&
      twds.every((t) => t.status?.currentVersion?.buildID !== pinned.get(t.metadata.name ?? '')?.at(-2)?.buildId)
    )
      break;
    await drive(false).catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const last = await afterFaults('reading the worker deployments', () => Promise.all(names.map(read)));
  // With what each still said it waited on: all a failed run in CI has to go on.
  const stuck = last
    .filter((twd) => !done(twd))
    .map((twd) => {
      const progressing = twd.status?.conditions?.find((c) => c.type === 'Progressing');
      const waits = progressing ? `; Progressing ${progressing.reason}: ${progressing.message}` : '';
      return `${twd.metadata.name ?? ''} (target ${twd.status?.targetVersion?.buildID}, current ${twd.status?.currentVersion?.buildID}${waits})`;
    });
  // The status says what Temporal says.
  const diverged: string[] = [];
  for (const twd of last) {
    const name = twd.metadata.name ?? '';
    const described = await afterFaults(`describing ${name} in Temporal`, () =>
      temporal.workflowService.describeWorkerDeployment({
        namespace: environment.temporalNamespace,
        deploymentName: temporalDeploymentName(namespace, name),
      }),
    );
    const current = described.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId ?? undefined;
    if (current !== twd.status?.currentVersion?.buildID)
      diverged.push(
        `${name}: status says ${twd.status?.currentVersion?.buildID ?? 'none'} current, Temporal ${current ?? 'none'}`,
      );
  }
  // Each build with replicas has its PodDisruptionBudget.
  const budgets = new Set(
    (
      await afterFaults('listing the PodDisruptionBudgets', () =>
        environment.kubeconfig.makeApiClient(PolicyV1Api).listNamespacedPodDisruptionBudget({ namespace }),
      )
    ).items.map((pdb) => pdb.metadata?.name),
  );
  const unrendered = (
    await afterFaults('listing the Deployments', () => apps.listNamespacedDeployment({ namespace }))
  ).items
    .filter((d) => (d.spec?.replicas ?? 1) > 0)
    .map((d) => {
      const labels = d.metadata?.labels ?? {};
      const name = labels[LABELS.deploymentName] ?? '';
      return copyName(name, `${name}-pdb`, labels[LABELS.buildId] ?? '');
    })
    .filter((pdb) => !budgets.has(pdb));
  const results: string[] = [];
  for (const { buildId, handles } of [...pinned.values()].flat()) {
    for (const handle of handles) {
      await handle.signal('finish').catch(() => {});
      const result = (await handle.result().catch((error: unknown) => error)) as RunReport | Error;
      if (result instanceof Error) results.push(`${handle.workflowId}: ${result.message}`);
      else if (result.finishedOn.buildId !== buildId)
        results.push(`${handle.workflowId} started on ${buildId}, finished on ${result.finishedOn.buildId}`);
    }
  }
  checking = false;
  await checker;
  await watch.finishPinned();
  const logs = (await readdir(environment.dir)).filter((f) => /^controller-\d+\.log$/.test(f));
  const unhandled = (
    await Promise.all(
      logs.map(async (f) => /uncaught|unhandled/i.test(await readFile(path.join(environment.dir, f), 'utf8'))),
    )
  ).some(Boolean);

  const sorted = [...report.converge].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? NaN;
  const workflows = [...pinned.values()].flat().reduce((n, p) => n + p.handles.length, 0);
  console.log(
    `faults: ${report.kills} kills of the leading controller replica (SIGKILL), ${report.cuts} Temporal cut off from the controller, ${report.slowed} answers of the API server and Temporal slowed, ${report.restarts} restarts of kube-apiserver, etcd or Temporal`,
  );
  console.log(`replicas that exited of themselves (losing the Lease) and were started again: ${report.exits}`);
  console.log(
    `rollouts completed: ${report.rollouts}; builds whose pinned workflows the ladder signalled: ${signalled.size}; pinned workflows: ${workflows}; invariant checks missed while the API server was down: ${report.checksMissed}`,
  );
  console.log(
    `invariant looks that could not read Temporal (judged on what it said last): ${watch.blindLooks} of ${watch.looks}`,
  );
  console.log(
    `time to converge after a fault: median ${median.toFixed(1)} s, max ${(sorted.at(-1) ?? NaN).toFixed(1)} s`,
  );
  for (const slow of report.slow) console.log(`  over ${SLOW_CONVERGENCE_S} s: ${slow}`);
  console.log(
    `builds routed to that lost their ready Pod afterwards (their workers' doing, no breach): ${watch.lostReadiness.length}`,
  );
  for (const lost of watch.lostReadiness) console.log(`  ${lost.at.toISOString()} ${lost.build}: ${lost.pods}`);
  const breaches = [
    ...watch.violations.map((v) => `${v.at.toISOString()} ${v.rule}: ${v.detail}`),
    ...stuck.map((name) => `rollout of ${name} did not reach its target after the faults`),
    ...diverged.map((d) => `status converges: ${d}`),
    ...unrendered.map((pdb) => `owned resources rendered: no PodDisruptionBudget ${pdb} for a build with replicas`),
    ...results.map((r) => `pinned workflow: ${r}`),
    ...(unhandled ? ['the controller logged an unhandled error'] : []),
  ];
  console.log(
    breaches.length === 0 ? 'invariants: all held' : `invariants BROKEN (seed ${seed}):\n  ${breaches.join('\n  ')}`,
  );
  process.exitCode = breaches.length === 0 ? 0 : 1;
  if (breaches.length > 0) console.log(`the logs are kept in ${environment.dir}`);
} catch (error) {
  console.log(`the chaos run failed (seed ${seed}); the logs are kept in ${environment.dir}:`, error);
  process.exitCode = 1;
} finally {
  stopping = true;
  checking = false;
  await checker;
  await Promise.all([...controllers.values()].map((c) => c.stop()));
  await proxy.cut();
  await apiProxy.cut();
  await temporal.connection.close();
  await environment.stop();
  if (process.exitCode === 0) await rm(environment.dir, { recursive: true, force: true });
}

/**
 * A read of the checks after the faults, tried again for half a minute: what was restarted or cut
 * off last may still be coming back, and a run must not fail on that rather than on the promise.
 */
async function afterFaults<T>(what: string, read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (attempt >= 30) throw new Error(`${what} failed 30 times after the faults`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

async function inject(fault: Fault): Promise<void> {
  const wait = fault.at - seconds();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  console.log(`${seconds().toFixed(0)} s: ${fault.kind} for ${fault.lasts} s`);
  if (fault.kind === 'kill-controller') {
    report.kills++;
    const replica = await leader();
    const killed = controllers.get(replica);
    controllers.delete(replica);
    killed?.child.kill('SIGKILL');
    await killed?.exited;
    await new Promise((resolve) => setTimeout(resolve, fault.lasts * 1000));
    controllers.set(replica, startController(replica));
  } else if (fault.kind === 'temporal-unreachable') {
    report.cuts++;
    await proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, fault.lasts * 1000));
    await proxy.listen();
  } else if (fault.kind === 'slow-responses') {
    report.slowed++;
    console.log(`  every byte between the controllers and the API server or Temporal ${fault.delayMs ?? 0} ms later`);
    proxy.delayMs = apiProxy.delayMs = fault.delayMs ?? 0;
    await new Promise((resolve) => setTimeout(resolve, fault.lasts * 1000));
    proxy.delayMs = apiProxy.delayMs = 0;
  } else {
    report.restarts++;
    await environment.restart(RESTARTS[fault.kind], fault.lasts * 1000);
  }
  const ended = Date.now();
  await ready();
  const readyAfter = (Date.now() - ended) / 1000;
  const since = await reconciles();
  const check = () => converged(since).catch((e: unknown) => `the run's own reads: ${errorMessage(e)}`);
  let awaited = '';
  for (let said = await check(); said !== true; said = await check()) {
    awaited = said;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const took = (Date.now() - ended) / 1000;
  report.converge.push(took);
  console.log(`  converged ${took.toFixed(1)} s after it ended`);
  if (took > SLOW_CONVERGENCE_S)
    report.slow.push(
      `${took.toFixed(1)} s after ${fault.kind} (replicas ready after ${readyAfter.toFixed(1)} s), waiting last on ${awaited}`,
    );
}
