// What a chaos run checks continuously, against what Kubernetes and Temporal themselves say: no
// Deployment of a build that may still hold pinned workflows is deleted or scaled to zero, never
// two Deployments for one build and pool, routing moved only to a build with a ready Pod, no
// pinned workflow failed. Each broken rule is kept with when it was seen. A check is meant to run
// about once a second.
import type { AppsV1Api, CoreV1Api, V1Deployment } from '@kubernetes/client-node';
import { type Client, isGrpcServiceError, type WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import { type BuildDrainage, mayHoldPinnedWorkflows } from '../../src/domain/pinned-workflows.ts';
import { runningWorkflowsQuery } from '../../src/domain/visibility.ts';
import { LABELS, temporalDeploymentName } from '../../src/k8s/names.ts';
import { GrpcStatus } from '../../src/temporal/call-status.ts';

export interface Violation {
  at: Date;
  rule: string;
  detail: string;
}

/** A build that had a ready Pod while Temporal routed to it and lost it later: no controller's doing, but shown. */
export interface LostReadiness {
  at: Date;
  build: string;
  /** What its Pods said then. */
  pods: string;
}

const { WorkerDeploymentVersionStatus: VersionStatus } = proto.temporal.api.enums.v1;
const STATUSES = new Map<number, BuildDrainage['status']>([
  [VersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_CURRENT, 'Current'],
  [VersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_RAMPING, 'Ramping'],
  [VersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINING, 'Draining'],
  [VersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINED, 'Drained'],
]);
const ENDED_BADLY = new Set(['FAILED', 'TERMINATED', 'TIMED_OUT', 'CANCELLED']);

export class InvariantWatch {
  readonly violations: Violation[] = [];
  readonly lostReadiness: LostReadiness[] = [];
  private readonly apps: AppsV1Api;
  private readonly core: CoreV1Api;
  private readonly client: Client;
  private readonly namespace: string;
  private readonly workerDeployments: string[];
  private readonly temporalNamespace: string;
  /** Deployments with replicas at the last look, by name. */
  private live = new Map<string, { build: string; workerDeployment: string }>();
  /**
   * What Temporal said of each build at the last look that could read it, by worker deployment
   * then build: kept while Temporal cannot be read, exactly when nothing may be scaled down.
   */
  private known = new Map<string, Map<string, BuildDrainage>>();
  /** Builds Temporal has routed to without a break since they had a ready Pod, as of the last look. */
  private routedReady = new Set<string>();
  /** Of those, the ones without a ready Pod now (kept in lostReadiness once each time). */
  private lost = new Set<string>();
  private readonly pinned: { handle: WorkflowHandle; ended?: boolean }[] = [];
  /** Looks so far, and those that could not read some worker deployment from Temporal. */
  looks = 0;
  blindLooks = 0;

  constructor(options: {
    apps: AppsV1Api;
    core: CoreV1Api;
    client: Client;
    namespace: string;
    workerDeployments: string[];
    temporalNamespace: string;
  }) {
    this.apps = options.apps;
    this.core = options.core;
    this.client = options.client;
    this.namespace = options.namespace;
    this.workerDeployments = options.workerDeployments;
    this.temporalNamespace = options.temporalNamespace;
  }

  /** A pinned workflow to watch until it completes. */
  watchPinned(handle: WorkflowHandle): void {
    this.pinned.push({ handle });
  }

  async check(): Promise<void> {
    this.looks++;
    const deployments = (await this.apps.listNamespacedDeployment({ namespace: this.namespace })).items;
    const before = new Map(this.known);
    const routed = new Set<string>();
    let blind = false;
    for (const name of this.workerDeployments) {
      const described = await this.client.workflowService
        .describeWorkerDeployment({
          namespace: this.temporalNamespace,
          deploymentName: temporalDeploymentName(this.namespace, name),
        })
        .catch((error: unknown) =>
          isGrpcServiceError(error) && Number(error.code) === GrpcStatus.NOT_FOUND
            ? { workerDeploymentInfo: null }
            : undefined,
        );
      if (!described) {
        blind = true;
        continue;
      }
      const info = described.workerDeploymentInfo;
      const builds = new Map<string, BuildDrainage>();
      for (const summary of info?.versionSummaries ?? []) {
        const status = STATUSES.get(summary.status ?? 0) ?? 'Inactive';
        const everActive = status !== 'Inactive' || Boolean(summary.firstActivationTime ?? summary.lastCurrentTime);
        if (summary.deploymentVersion?.buildId) builds.set(summary.deploymentVersion.buildId, { status, everActive });
      }
      this.known.set(name, builds);
      for (const version of [
        info?.routingConfig?.currentDeploymentVersion,
        info?.routingConfig?.rampingDeploymentVersion,
      ])
        if (version?.buildId) routed.add(`${name}/${version.buildId}`);
    }
    if (blind) this.blindLooks++;
    this.checkDuplicates(deployments);
    await this.checkRetired(deployments, before);
    // Read again after Temporal: a build made ready and routed to while Temporal was being read is no breach.
    await this.checkRouting((await this.apps.listNamespacedDeployment({ namespace: this.namespace })).items, routed);
    if (this.looks % 5 === 0) await this.checkPinned();
  }

  /**
   * Why a build whose Deployment went to zero may still hold pinned workflows, or undefined. It is
   * judged on what Temporal said at the last look and now (the same when it cannot be read now),
   * with drained judged by counting its running pinned workflows in visibility with the
   * controller's own query, not by the version's Drained record the controller believes: a belief
   * both shared would go unseen. Without a count, Temporal's last word on its drainage stands.
   */
  private async stillNeeded(
    workerDeployment: string,
    build: string,
    said: BuildDrainage[],
  ): Promise<string | undefined> {
    const running = await this.client.workflowService
      .countWorkflowExecutions({
        namespace: this.temporalNamespace,
        query: runningWorkflowsQuery(temporalDeploymentName(this.namespace, workerDeployment), [build]),
      })
      .then(
        (counted) => Number(counted.count ?? 0),
        () => undefined,
      );
    const judged = ({ status, everActive }: BuildDrainage): BuildDrainage => ({
      status: running === 0 && status === 'Draining' ? 'Drained' : status,
      everActive,
    });
    const holding = said.find((one) => mayHoldPinnedWorkflows(judged(one), running));
    if (!holding) return undefined;
    const counted = running === undefined ? 'not counted: Temporal could not be read' : `${running} running pinned`;
    return `Temporal said ${holding.status}${holding.everActive ? '' : ' (never active)'}, ${counted}`;
  }

  /** Waits for every pinned workflow watched and checks none ended badly. */
  async finishPinned(): Promise<number> {
    await this.checkPinned();
    return this.pinned.filter((p) => p.ended).length;
  }

  private checkDuplicates(deployments: V1Deployment[]): void {
    const seen = new Map<string, string>();
    for (const d of deployments) {
      const labels = d.metadata?.labels ?? {};
      const key = `${labels[LABELS.deploymentName]}/${labels[LABELS.buildId]}/${labels[LABELS.pool] ?? ''}`;
      const other = seen.get(key);
      if (other) this.violate('one Deployment per build and pool', `${other} and ${d.metadata?.name ?? ''} for ${key}`);
      seen.set(key, d.metadata?.name ?? '');
    }
  }

  private async checkRetired(
    deployments: V1Deployment[],
    before: Map<string, Map<string, BuildDrainage>>,
  ): Promise<void> {
    const live = new Map<string, { build: string; workerDeployment: string }>();
    for (const d of deployments) {
      const labels = d.metadata?.labels ?? {};
      if ((d.spec?.replicas ?? 1) > 0)
        live.set(d.metadata?.name ?? '', {
          build: labels[LABELS.buildId] ?? '',
          workerDeployment: labels[LABELS.deploymentName] ?? '',
        });
    }
    for (const [name, { build, workerDeployment }] of this.live) {
      if (live.has(name)) continue;
      // Needed at the last look or now: it went while Temporal could still send it work.
      const said = [before, this.known].flatMap((known) => known.get(workerDeployment)?.get(build) ?? []);
      const why = said.length > 0 ? await this.stillNeeded(workerDeployment, build, said) : undefined;
      if (why)
        this.violate(
          'nothing retired while Temporal may need it',
          `Deployment ${name} of build ${workerDeployment}/${build} went to zero (${why})`,
        );
    }
    this.live = live;
  }

  /**
   * A build routed to without a ready Pod breaks the rule only if routing moved there so: one
   * that had a ready Pod at the last look, while routed to, lost it afterwards (its worker failed,
   * which the controller cannot prevent), and is kept apart with what its Pods said.
   */
  private async checkRouting(deployments: V1Deployment[], routed: Set<string>): Promise<void> {
    const routedReady = new Set<string>();
    for (const key of routed) {
      const [workerDeployment = '', build = ''] = key.split('/');
      const ready = deployments.some(
        (d) =>
          d.metadata?.labels?.[LABELS.deploymentName] === workerDeployment &&
          d.metadata?.labels?.[LABELS.buildId] === build &&
          (d.status?.readyReplicas ?? 0) > 0,
      );
      if (ready) {
        routedReady.add(key);
        this.lost.delete(key);
      } else if (!this.routedReady.has(key)) {
        this.violate('routing only to ready builds', `Temporal routes to ${key}, which has no ready Pod`);
      } else {
        routedReady.add(key);
        if (this.lost.has(key)) continue;
        this.lost.add(key);
        this.lostReadiness.push({ at: new Date(), build: key, pods: await this.podsOf(workerDeployment, build) });
      }
    }
    this.routedReady = routedReady;
  }

  private async podsOf(workerDeployment: string, build: string): Promise<string> {
    const pods = await this.core
      .listNamespacedPod({
        namespace: this.namespace,
        labelSelector: `${LABELS.deploymentName}=${workerDeployment},${LABELS.buildId}=${build}`,
      })
      .catch(() => undefined);
    if (!pods) return 'Pods could not be read';
    if (pods.items.length === 0) return 'no Pod';
    return pods.items
      .map((pod) => {
        const container = pod.status?.containerStatuses?.[0];
        const waiting = container?.state?.waiting;
        const state = waiting ? `${waiting.reason ?? ''}: ${waiting.message ?? ''}` : (pod.status?.phase ?? 'unknown');
        const failed = container?.lastState?.terminated?.message;
        return `${pod.metadata?.name ?? ''} ${state}, ${container?.restartCount ?? 0} restarts${failed ? ` (last: ${failed})` : ''}`;
      })
      .join('; ');
  }

  private async checkPinned(): Promise<void> {
    for (const p of this.pinned.filter((w) => !w.ended)) {
      const described = await p.handle.describe().catch(() => undefined);
      const status = described?.status.name;
      if (!status || status === 'RUNNING') continue;
      p.ended = true;
      if (ENDED_BADLY.has(status))
        this.violate('no pinned workflow failed', `workflow ${p.handle.workflowId} ended ${status}`);
    }
  }

  private violate(rule: string, detail: string): void {
    // The same breach seen at every look is one violation.
    if (this.violations.some((v) => v.rule === rule && v.detail === detail)) return;
    this.violations.push({ at: new Date(), rule, detail });
  }
}
