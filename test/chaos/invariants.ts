// What a chaos run checks continuously, against what Kubernetes and Temporal themselves say: no
// Deployment of a build Temporal may still route to or drain is deleted or scaled to zero, never
// two Deployments for one build and pool, routing moved only to a build with a ready Pod, no
// pinned workflow failed. Each broken rule is kept with when it was seen. A check is meant to run
// about once a second.
import type { AppsV1Api, CoreV1Api, V1Deployment } from '@kubernetes/client-node';
import type { Client, WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import { LABELS, temporalDeploymentName } from '../../src/k8s/names.ts';

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

const { WorkerDeploymentVersionStatus: VersionStatus, VersionDrainageStatus } = proto.temporal.api.enums.v1;
/** Temporal may still need these builds: new workflows go there, or pinned ones run there. */
const NEEDED = new Set([
  VersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_CURRENT,
  VersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_RAMPING,
  VersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINING,
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
  /** Builds Temporal may still need, as of the last look, by `workerDeployment/build`. */
  private needed = new Set<string>();
  /** Builds Temporal has routed to without a break since they had a ready Pod, as of the last look. */
  private routedReady = new Set<string>();
  /** Of those, the ones without a ready Pod now (kept in lostReadiness once each time). */
  private lost = new Set<string>();
  private readonly pinned: { handle: WorkflowHandle; ended?: boolean }[] = [];
  private checks = 0;

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
    this.checks++;
    const deployments = (await this.apps.listNamespacedDeployment({ namespace: this.namespace })).items;
    const needed = new Set<string>();
    const routed = new Set<string>();
    for (const name of this.workerDeployments) {
      const described = await this.client.workflowService
        .describeWorkerDeployment({
          namespace: this.temporalNamespace,
          deploymentName: temporalDeploymentName(this.namespace, name),
        })
        .catch(() => undefined);
      const info = described?.workerDeploymentInfo;
      for (const summary of info?.versionSummaries ?? [])
        if (NEEDED.has(summary.status ?? 0)) needed.add(`${name}/${summary.deploymentVersion?.buildId ?? ''}`);
      for (const version of [
        info?.routingConfig?.currentDeploymentVersion,
        info?.routingConfig?.rampingDeploymentVersion,
      ])
        if (version?.buildId) routed.add(`${name}/${version.buildId}`);
    }
    this.checkDuplicates(deployments);
    await this.checkRetired(deployments, needed);
    // Read again after Temporal: a build made ready and routed to while Temporal was being read is no breach.
    await this.checkRouting((await this.apps.listNamespacedDeployment({ namespace: this.namespace })).items, routed);
    if (this.checks % 5 === 0) await this.checkPinned();
  }

  private async ownRecordSaysDrained(workerDeployment: string, build: string): Promise<boolean> {
    const record = await this.client.workflowService
      .describeWorkerDeploymentVersion({
        namespace: this.temporalNamespace,
        deploymentVersion: { deploymentName: temporalDeploymentName(this.namespace, workerDeployment), buildId: build },
      })
      .catch(() => undefined);
    return (
      record?.workerDeploymentVersionInfo?.drainageInfo?.status ===
      VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINED
    );
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

  private async checkRetired(deployments: V1Deployment[], needed: Set<string>): Promise<void> {
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
      const key = `${workerDeployment}/${build}`;
      // Needed at the last look or now: it went while Temporal could still send it work. Unless the
      // build's own record says Drained: the list's copy of a version's drainage can stay Draining
      // long after (drainage-rechecks.ts), and the record is Temporal's word on its workflows.
      if (
        !live.has(name) &&
        (this.needed.has(key) || needed.has(key)) &&
        !(await this.ownRecordSaysDrained(workerDeployment, build))
      )
        this.violate('nothing retired while Temporal may need it', `Deployment ${name} of build ${key} went to zero`);
    }
    this.live = live;
    this.needed = needed;
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
