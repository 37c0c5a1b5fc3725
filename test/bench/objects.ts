// What the benchmarks create: a namespace, a TemporalConnection `temporal` to the environment's
// Temporal, and many worker deployments at steady state, cheaply: each build is registered in
// Temporal by one versioned poll made here, and runs no worker (no Pod, or Pods left pending where
// no node agent runs). An unchanged worker deployment's reconcile is then what it is in production,
// one DescribeWorkerDeployment, without hundreds of worker processes on a laptop.
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { temporalDeploymentName } from '../../src/k8s/names.ts';
import type { Environment } from '../../dev/localenv/environment.ts';
import { LOCAL_DYNAMIC_CONFIG } from '../../dev/localenv/temporal.ts';
import { until } from './poll.ts';

/**
 * The local Temporal with room for the benches' worker deployments: the server refuses a new one
 * beyond 100 a namespace by default, and counts them from eventually consistent visibility, so a
 * bench of 200 stalled at a different number each run (173, 204 of 600) until this was found.
 */
export const BENCH_TEMPORAL_CONFIG: Record<string, unknown> = {
  ...LOCAL_DYNAMIC_CONFIG,
  'matching.maxDeployments': 10_000,
};

export async function createNamespace(environment: Environment, namespace: string): Promise<void> {
  await environment.kubeconfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
}

/** The TemporalConnection `temporal` in `namespace`. */
export async function createConnection(environment: Environment, namespace: string): Promise<void> {
  await environment.kubeconfig.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: KINDS.TemporalConnection.plural,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'TemporalConnection',
      metadata: { name: 'temporal' },
      spec: { hostPort: environment.temporalAddress },
    },
  });
}

/**
 * Creates the worker deployment `name` in `namespace` with `spec`, connected through the
 * TemporalConnection `temporal` to the environment's Temporal namespace.
 */
export async function createWorkerDeployment(
  environment: Environment,
  namespace: string,
  name: string,
  spec: Omit<TemporalWorkerDeployment['spec'], 'workerOptions'>,
): Promise<void> {
  await environment.kubeconfig.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: KINDS.TemporalWorkerDeployment.plural,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'TemporalWorkerDeployment',
      metadata: { name },
      spec: {
        ...spec,
        workerOptions: { connectionRef: { name: 'temporal' }, temporalNamespace: environment.temporalNamespace },
      },
    },
  });
}

/**
 * Creates a connection and `count` worker deployments in `namespace` (which exists), and resolves
 * once each is registered and idle. A controller must run meanwhile: it creates the builds.
 * `replicas` (0 by default) only where no node agent runs them: their Pods stay pending.
 */
export async function idleWorkerDeployments(
  environment: Environment,
  namespace: string,
  count: number,
  replicas = 0,
): Promise<void> {
  const bench = new BenchObjects(environment, namespace);
  await bench.create(count, replicas);
  await bench.registerTargets(new Set());
}

/**
 * As `idleWorkerDeployments` with one replica each, and `builds` builds a worker deployment kept
 * with replicas: the newest one the target, the one before it current, the older ones drained and
 * kept for the sunset's scale-down delay (an hour by default). Routing is set here, as an operator
 * would under the Manual strategy, under the controller's `identity`.
 */
export async function liveWorkerDeployments(
  environment: Environment,
  namespace: string,
  count: number,
  builds: number,
  identity: string,
): Promise<void> {
  const bench = new BenchObjects(environment, namespace);
  await bench.create(count, 1);
  const registered = new Set<string>();
  for (let build = 1; ; build++) {
    const targets = await bench.registerTargets(registered);
    if (build === builds) return;
    await bench.setCurrent(targets, identity);
    await bench.newBuild(build);
    for (const buildId of targets.values()) registered.add(buildId);
  }
}

class BenchObjects {
  private readonly environment: Environment;
  private readonly namespace: string;
  private readonly custom: CustomObjectsApi;
  private readonly object: { group: string; version: string; namespace: string; plural: string };

  constructor(environment: Environment, namespace: string) {
    this.environment = environment;
    this.namespace = namespace;
    this.custom = environment.kubeconfig.makeApiClient(CustomObjectsApi);
    this.object = { group: GROUP, version: VERSION, namespace, plural: KINDS.TemporalWorkerDeployment.plural };
  }

  async create(count: number, replicas: number): Promise<void> {
    await createConnection(this.environment, this.namespace);
    for (let i = 0; i < count; i++) {
      const name = `idle-${i}`;
      await createWorkerDeployment(this.environment, this.namespace, name, {
        replicas,
        rollout: { strategy: 'Manual' },
        template: { spec: { containers: [this.worker(name, 0)] } },
      });
    }
  }

  /**
   * Waits for every worker deployment's target to be a build not in `before`, registers each as its
   * first worker would, and resolves with the targets by worker deployment once Temporal lists them.
   */
  async registerTargets(before: ReadonlySet<string>): Promise<Map<string, string>> {
    const targetOf = (twd: TemporalWorkerDeployment) => twd.status?.targetVersion?.buildID;
    await until(
      async () =>
        (await this.list()).every((twd) => {
          const target = targetOf(twd);
          return target !== undefined && !before.has(target);
        }),
      { intervalMs: 1000 },
    );
    // The server may take longer than the poll to register a build, so builds still unregistered
    // are polled again.
    const temporal = await Connection.connect({ address: this.environment.temporalAddress });
    try {
      const unregistered = async () =>
        (await this.list()).filter((twd) => twd.status?.targetVersion?.status !== 'Inactive');
      for (let waiting = await unregistered(); waiting.length > 0; waiting = await unregistered()) {
        await temporal.withDeadline(Date.now() + 10_000, () =>
          Promise.all(
            waiting.map((twd) =>
              temporal.workflowService
                .pollWorkflowTaskQueue({
                  namespace: this.environment.temporalNamespace,
                  taskQueue: { name: twd.metadata.name ?? '' },
                  identity: 'twc-bench',
                  deploymentOptions: {
                    deploymentName: temporalDeploymentName(this.namespace, twd.metadata.name ?? ''),
                    buildId: targetOf(twd) ?? '',
                    workerVersioningMode:
                      proto.temporal.api.enums.v1.WorkerVersioningMode.WORKER_VERSIONING_MODE_VERSIONED,
                  },
                })
                .catch(() => undefined),
            ),
          ),
        );
      }
    } finally {
      await temporal.close();
    }
    return new Map((await this.list()).map((twd) => [twd.metadata.name ?? '', targetOf(twd) ?? '']));
  }

  /** Makes each target current and waits for the controller to report it so. */
  async setCurrent(targets: ReadonlyMap<string, string>, identity: string): Promise<void> {
    const temporal = await Connection.connect({ address: this.environment.temporalAddress });
    try {
      for (const [name, buildId] of targets) {
        await temporal.workflowService.setWorkerDeploymentCurrentVersion({
          namespace: this.environment.temporalNamespace,
          deploymentName: temporalDeploymentName(this.namespace, name),
          buildId,
          identity,
        });
      }
    } finally {
      await temporal.close();
    }
    await until(
      async () =>
        (await this.list()).every(
          (twd) => twd.status?.currentVersion?.buildID === targets.get(twd.metadata.name ?? ''),
        ),
      { intervalMs: 1000 },
    );
  }

  /** A template change in every worker deployment: a new build each. */
  async newBuild(build: number): Promise<void> {
    for (const twd of await this.list()) {
      const name = twd.metadata.name ?? '';
      await this.custom.patchNamespacedCustomObject(
        {
          ...this.object,
          name,
          body: { spec: { template: { spec: { containers: [this.worker(name, build)] } } } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    }
  }

  /** The one container, whole: a merge patch replaces the list. */
  private worker(name: string, build: number) {
    return {
      name: 'worker',
      image: 'sample-worker',
      env: [
        { name: 'TEMPORAL_TASK_QUEUE', value: name },
        { name: 'BENCH_BUILD', value: String(build) },
      ],
    };
  }

  private async list(): Promise<TemporalWorkerDeployment[]> {
    return ((await this.custom.listNamespacedCustomObject(this.object)) as { items: TemporalWorkerDeployment[] }).items;
  }
}
