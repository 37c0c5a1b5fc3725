// A controller for one test: scoped to the test's namespace, with a TemporalConnection to the
// shared dev server, and helpers to edit and read the test's worker deployment.
import type { PrometheusEndpoint } from '../../src/domain/analysis-prometheus.ts';
import { AppsV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { Client } from '@temporalio/client';
import type { TestContext } from 'node:test';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { Controller } from '../../src/controller/controller.ts';
import type { BacklogAsk, BuildBacklog } from '../../src/domain/backlog.ts';
import { LABELS } from '../../src/k8s/names.ts';
import { errorMessage } from '../../src/runtime/kube/api-errors.ts';
import { jsonLogger } from '../../src/runtime/logger.ts';
import { Metrics } from '../../src/runtime/metrics.ts';
import type { WorkerIdentity } from '../../dev/sample-worker/activities.ts';
import {
  controllerAccess,
  eventually,
  kubeConfig,
  sharedEnvironment,
  testNamespace,
  uniqueName,
} from './environment.ts';
import { CONTROLLER_RELEASE, COPY_ACCOUNT, grantCopyAccount } from './controller-rbac.ts';
import { create } from './manifests.ts';
import { sampleWorkerTemplate } from './sample-template.ts';

export interface ControlledNamespaceOptions {
  /** The controller option of that name (default: the controller's default). */
  maxIneligibleVersions?: number;
  /** The controller option of that name: the cap the test's own Temporal server holds. */
  maxVersionsInDeployment?: number;
  /** The controller option of that name (default: the controller's default). */
  temporalReadBudget?: number;
  /** The controller option of that name (default: 1 s, to keep tests short). */
  pollIntervalMs?: number;
  /** A Temporal frontend other than the shared dev server, for the TemporalConnection. */
  temporalAddress?: string;
  /** The whole TemporalConnection spec, credentials included (default: the frontend above, plaintext). */
  connectionSpec?: Record<string, unknown>;
  /** Receives every line the controller logs, JSON, debug level and up. */
  log?: (line: string) => void;
  /** The controller option of that name (default: the controller's default). */
  eventRepeatWindowMs?: number;
  /** The controller option of that name (default: none). */
  temporalConnectTo?: ReadonlyMap<string, string>;
  /** The controller option of that name (default: off). */
  backlogMetrics?: boolean;
  /** The controller option of that name (default: the controller's default, the server's default TTL). */
  pollerHistoryMs?: number;
  /** The controller option of that name (default: off, as the controller is for the test's namespace). */
  clusterConnections?: boolean;
  /** The controller option of that name (default: at 80% of a token's life). */
  serviceAccountTokenRenewMs?: number;
  /** The controller option of that name (default: the controller's default). */
  certificateExpiryWarningMs?: number;
  /** The controller option of that name (default: none, notifications off). */
  notificationDestinations?: string[];
  /** The Prometheus endpoints metric analysis may query (--analysis-prometheus). */
  analysisPrometheus?: PrometheusEndpoint[];
}

/** One build's Deployment as the test sees it. */
export interface BuildDeployment {
  name: string;
  replicas: number | undefined;
  availableReplicas: number;
}

/** The worker deployments of one namespace, as a test creates, edits and reads them. */
export interface WorkerDeployments {
  /** The task queue every template of this namespace polls. */
  taskQueue: string;
  /** A sample worker pod template polling the test's own task queue, or `queue`. */
  template(behaviour: string, queue?: string): object;
  /** Creates the TemporalWorkerDeployment `name` with this spec, connection and namespace filled in. */
  createWorkerDeployment(name: string, spec: Record<string, unknown>): Promise<void>;
  patchSpec(name: string, spec: Record<string, unknown>): Promise<void>;
  read(name: string): Promise<TemporalWorkerDeployment>;
  /** Reads `name` until `check` holds, and returns it as read then. */
  until(
    name: string,
    what: string,
    check: (twd: TemporalWorkerDeployment) => boolean,
    timeoutMs?: number,
  ): Promise<TemporalWorkerDeployment>;
  /** The Deployments of each build in the namespace, by build ID. */
  buildDeployments(): Promise<Map<string, BuildDeployment>>;
}

export interface ControlledNamespace extends WorkerDeployments {
  /** What the test's controllers have counted: reconciles, Kubernetes requests, Temporal calls. */
  metrics: Metrics;
  /** The manager identity the controller claims in Temporal. */
  identity: string;
  /** Stops the controller, as a crash or a shutdown would. */
  stopController(): Promise<void>;
  /** What the running controller last read of each build's backlog (with backlogMetrics); `asked` asks for builds, as a reader of the figures does. */
  backlogFigures(asked?: BacklogAsk): BuildBacklog[];
  /** Starts a new controller with the same identity and options, but for these changes. */
  startController(
    changes?: Pick<ControlledNamespaceOptions, 'temporalReadBudget' | 'pollIntervalMs' | 'certificateExpiryWarningMs'>,
  ): Promise<void>;
}

export async function controlledNamespace(
  t: TestContext,
  namespace: string,
  options: ControlledNamespaceOptions = {},
): Promise<ControlledNamespace> {
  const temporalAddress = options.temporalAddress ?? sharedEnvironment().temporalAddress;
  const identity = uniqueName('twc-test');
  let controller: Controller | undefined;
  const stopController = async (): Promise<void> => {
    await controller?.stop();
    controller = undefined;
  };
  // One registry across restarts: a test reads what every controller it ran has done.
  const metrics = new Metrics();
  const startController = async (
    changes: Pick<
      ControlledNamespaceOptions,
      'temporalReadBudget' | 'pollIntervalMs' | 'certificateExpiryWarningMs'
    > = {},
  ): Promise<void> => {
    options = { ...options, ...changes };
    // TWC_TEST_CONTROLLER_LOG=1 shows what the controller says, when a test needs explaining.
    const logTo =
      options.log ??
      (process.env.TWC_TEST_CONTROLLER_LOG
        ? (line: string) => console.error(`[controller ${namespace}] ${line}`)
        : undefined);
    // Scoped to the test's namespace: tests run side by side, each with its own controller.
    controller = new Controller({
      access: controllerAccess(),
      identity,
      namespaces: [namespace],
      pollIntervalMs: options.pollIntervalMs ?? 1000,
      ...(options.maxIneligibleVersions === undefined ? {} : { maxIneligibleVersions: options.maxIneligibleVersions }),
      ...(options.maxVersionsInDeployment === undefined
        ? {}
        : { maxVersionsInDeployment: options.maxVersionsInDeployment }),
      ...(options.temporalReadBudget === undefined ? {} : { temporalReadBudget: options.temporalReadBudget }),
      ...(options.eventRepeatWindowMs === undefined ? {} : { eventRepeatWindowMs: options.eventRepeatWindowMs }),
      ...(options.temporalConnectTo ? { temporalConnectTo: options.temporalConnectTo } : {}),
      ...(options.backlogMetrics ? { backlogMetrics: true } : {}),
      ...(options.pollerHistoryMs === undefined ? {} : { pollerHistoryMs: options.pollerHistoryMs }),
      ...(options.clusterConnections ? { clusterConnections: true } : {}),
      ...(options.notificationDestinations ? { notificationDestinations: options.notificationDestinations } : {}),
      ...(options.analysisPrometheus ? { analysisPrometheus: options.analysisPrometheus } : {}),
      // The chart's, which the controller runs as (controllerAccess): its tokens are what it may request.
      serviceAccount: { namespace: CONTROLLER_RELEASE.namespace, name: CONTROLLER_RELEASE.fullname },
      // The chart's default, which each test namespace grants (grantCopyAccount below).
      ownedResourcesServiceAccount: COPY_ACCOUNT,
      ...(options.serviceAccountTokenRenewMs ? { serviceAccountTokenRenewMs: options.serviceAccountTokenRenewMs } : {}),
      ...(options.certificateExpiryWarningMs === undefined
        ? {}
        : { certificateExpiryWarningMs: options.certificateExpiryWarningMs }),
      ...(logTo ? { log: jsonLogger('debug', { write: (line) => logTo(line.trimEnd()) }) } : {}),
      metrics,
    });
    await controller.start();
  };
  await grantCopyAccount(namespace);
  await startController();
  t.after(stopController);
  await createTemporalConnection(namespace, options.connectionSpec ?? { hostPort: temporalAddress });
  const backlogFigures = (asked?: BacklogAsk) => controller?.backlogFigures(asked) ?? [];
  return { metrics, identity, stopController, startController, backlogFigures, ...workerDeployments(namespace) };
}

/** The TemporalConnection `temporal` (or `name`) in `namespace`: the worker deployments here name `temporal`. */
export async function createTemporalConnection(
  namespace: string,
  spec: Record<string, unknown>,
  name = 'temporal',
): Promise<void> {
  await create({ apiVersion: 'temporal.io/v1alpha1', kind: 'TemporalConnection', metadata: { name }, spec }, namespace);
}

/** The worker deployments of `namespace`, polling a task queue of their own. */
export function workerDeployments(namespace: string): WorkerDeployments {
  const { temporalNamespace } = sharedEnvironment();
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const taskQueue = uniqueName('q');
  const object = { group: GROUP, version: VERSION, namespace, plural: KINDS.TemporalWorkerDeployment.plural };
  const read = async (name: string) =>
    (await custom.getNamespacedCustomObject({ ...object, name })) as TemporalWorkerDeployment;
  return {
    taskQueue,
    template: (behaviour, queue = taskQueue) => sampleWorkerTemplate(queue, behaviour),
    createWorkerDeployment: async (name, spec) => {
      await create(
        {
          apiVersion: 'temporal.io/v1alpha1',
          kind: 'TemporalWorkerDeployment',
          metadata: { name },
          spec: { workerOptions: { connectionRef: { name: 'temporal' }, temporalNamespace }, ...spec },
        },
        namespace,
      );
    },
    patchSpec: async (name, spec) => {
      await custom.patchNamespacedCustomObject(
        { ...object, name, body: { spec } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    },
    read,
    until: async (name, what, check, timeoutMs = 90_000) => {
      let last: TemporalWorkerDeployment | undefined;
      try {
        return await eventually(
          what,
          async () => {
            last = await read(name);
            return check(last) ? last : undefined;
          },
          timeoutMs,
        );
      } catch (error) {
        // What the controller last said is most of what a failure in CI has to go on.
        const progressing = last && condition(last, 'Progressing');
        if (!progressing) throw error;
        throw new Error(
          `${errorMessage(error)}; ${name} last said Progressing ${progressing.reason}: ${progressing.message}`,
          { cause: error },
        );
      }
    },
    buildDeployments: async () =>
      new Map(
        (await apps.listNamespacedDeployment({ namespace })).items.map((d) => [
          d.metadata?.labels?.[LABELS.buildId] ?? '',
          {
            name: d.metadata?.name ?? '',
            replicas: d.spec?.replicas,
            availableReplicas: d.status?.availableReplicas ?? 0,
          },
        ]),
      ),
  };
}

/** The target build is current and nothing ramps: the rollout is done. */
export function rolledOut(twd: TemporalWorkerDeployment): boolean {
  const current = twd.status?.currentVersion?.buildID;
  return (
    current !== undefined &&
    current === twd.status?.targetVersion?.buildID &&
    twd.status.targetVersion.rampPercentage === undefined
  );
}

/** The condition of that type, if the status has it. */
export function condition(
  twd: TemporalWorkerDeployment,
  type: string,
): { status: string; reason: string; message: string } | undefined {
  return twd.status?.conditions?.find((c) => c.type === type);
}

/** The build whose worker ran the sample's gate workflow `workflowId`: the gate returns the identity of its worker. */
export async function gateRanOn(client: Client, workflowId: string): Promise<string> {
  return ((await client.workflow.getHandle(workflowId).result()) as WorkerIdentity).buildId;
}

/** Deletes the TemporalWorkerDeployment `name` (it goes once its finalizer comes off). */
export async function deleteWorkerDeployment(namespace: string, name: string): Promise<void> {
  await kubeConfig().makeApiClient(CustomObjectsApi).deleteNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: KINDS.TemporalWorkerDeployment.plural,
    name,
  });
}

/** True once `read` answers 404: for `eventually`. */
export async function gone(read: () => Promise<unknown>): Promise<true | undefined> {
  try {
    await read();
    return undefined;
  } catch (error) {
    if ((error as { code?: number }).code === 404) return true;
    throw error;
  }
}

/** A worker deployment `orders` with a one-step Progressive rollout (25% for 30 s), its first build current. */
export async function progressiveAtFirstBuild(
  t: TestContext,
  prefix: string,
  options: ControlledNamespaceOptions = {},
): Promise<{ namespace: string; ns: ControlledNamespace; v1: string }> {
  const namespace = await testNamespace(t, prefix);
  const ns = await controlledNamespace(t, namespace, options);
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'Progressive', steps: [{ rampPercentage: 25, pauseDuration: '30s' }] },
    template: ns.template('blue'),
  });
  const v1 = (await ns.until('orders', 'v1 to be current', rolledOut)).status?.currentVersion?.buildID ?? '';
  return { namespace, ns, v1 };
}
