// What `twc status` shows of one worker deployment, as plain data: made from the objects as read
// (the worker deployment and its status, its Kubernetes Deployments, the owned resources naming
// it, its events), printed as a tree (render.ts) or as JSON or YAML for scripts. Pure.
import type { CoreV1Event, V1Deployment } from '@kubernetes/client-node';
import { DEFAULT_STRATEGY } from '../../api/defaults.ts';
import type { TemporalWorkerDeployment } from '../../api/temporal-worker-deployment.ts';
import type { TemporalWorkerOwnedResource } from '../../api/temporal-worker-owned-resource.ts';
import { LABELS } from '../../domain/labels.ts';
import { byCodeUnits } from '../../domain/text-order.ts';

export interface StatusInput {
  workerDeployment: TemporalWorkerDeployment;
  /** The Kubernetes Deployments of the namespace; those of other worker deployments are left out. */
  deployments: V1Deployment[];
  /** The owned resources of the namespace; those naming other worker deployments are left out. */
  ownedResources: TemporalWorkerOwnedResource[];
  /** Events of the namespace; those about other objects are left out. */
  events: CoreV1Event[];
}

/** The formats a view is printed in for scripts, besides the tree. */
export const OUTPUTS = ['json', 'yaml'] as const;

/** How many of the newest events are shown. */
export const EVENTS_SHOWN = 5;

export interface DeploymentView {
  name: string;
  pool?: string;
  ready: number;
  /** Undefined when an autoscaler owns the count. */
  desired?: number;
}

export interface GateView {
  stage: string;
  status: string;
  workflowID: string;
}

export interface OwnedCopyView {
  ownedResource: string;
  kind: string;
  name: string;
  applied: boolean;
  message?: string;
}

/**
 * One stretch of a build's life on the dashboard's timeline, until the next one begins (the last
 * until now). `Waiting`: the target before its first ramp, or with its ramp cleared; `RollingOut`:
 * the current build before it became current; `Active`: an old build before it stopped being
 * current or ramping (the status keeps no more of it).
 */
export interface PhaseView {
  state: 'Waiting' | 'RollingOut' | 'Ramping' | 'Current' | 'Active' | 'Draining' | 'Drained';
  from: string;
  percentage?: number;
}

/** Target, current, or an older build still kept. */
export type BuildRole = 'target' | 'current' | 'deprecated';

export interface BuildView {
  buildID: string;
  roles: BuildRole[];
  /** NotRegistered, Inactive, Ramping, Current, Draining or Drained, as the controller last saw it. */
  status: string;
  rampPercentage?: number;
  /** When its first Deployment was created. */
  createdAt?: string;
  deployments: DeploymentView[];
  /** Workers Temporal saw polling it, as the controller last read them (not read: undefined). */
  pollers?: number;
  /** Workflows counted running on it (draining builds), and when. */
  runningWorkflows?: number;
  countedAt?: string;
  drainedSince?: string;
  /** Its life from its first Deployment's creation, as far as the status says. */
  phases: PhaseView[];
  gates: GateView[];
  gateFailure?: string;
  analysis?: { step: number; verdict: string; message: string };
  ownedResources: OwnedCopyView[];
}

export interface ConditionView {
  type: string;
  status: string;
  reason: string;
  message: string;
}

export interface EventView {
  type: string;
  reason: string;
  message: string;
  count: number;
  lastSeen?: string;
}

export interface WorkerDeploymentView {
  namespace: string;
  name: string;
  generation?: number;
  observedGeneration?: number;
  strategy: string;
  /** Progressive steps as their ramp percentages. */
  steps?: number[];
  builds: BuildView[];
  conditions: ConditionView[];
  /** The newest first. */
  events: EventView[];
}

export function statusView(input: StatusInput): WorkerDeploymentView {
  const { workerDeployment: twd } = input;
  const name = twd.metadata.name ?? '';
  const namespace = twd.metadata.namespace ?? '';
  const rollout = twd.spec.rollout ?? twd.spec.cutover;
  const status = twd.status;
  const mine = input.deployments.filter((d) => d.metadata?.labels?.[LABELS.deploymentName] === name);
  const owned = input.ownedResources.filter((r) => r.spec.workerRef.name === name);

  const builds = new Map<string, BuildView>();
  const build = (
    { buildID, status, pollers }: { buildID: string; status: string; pollers?: number },
    role: BuildRole,
  ): BuildView => {
    const known = builds.get(buildID);
    if (known) {
      known.roles.push(role);
      return known;
    }
    const made: BuildView = {
      buildID,
      roles: [role],
      status,
      deployments: [],
      ...(pollers === undefined ? {} : { pollers }),
      phases: [],
      gates: [],
      ownedResources: [],
    };
    builds.set(buildID, made);
    return made;
  };
  if (status?.targetVersion) {
    const target = status.targetVersion;
    const view = build(target, 'target');
    if (target.rampPercentage !== undefined) view.rampPercentage = target.rampPercentage;
    view.gates = (target.gates ?? []).map(({ stage, status: gate, workflowID }) => ({
      stage,
      status: gate,
      workflowID,
    }));
    if (target.gateFailure) view.gateFailure = `${target.gateFailure.stage}: ${target.gateFailure.message}`;
    if (target.analysis) {
      const { step, verdict, message } = target.analysis;
      view.analysis = { step, verdict, message };
    }
  }
  if (status?.currentVersion) build(status.currentVersion, 'current');
  for (const old of status?.deprecatedVersions ?? []) {
    const view = build(old, 'deprecated');
    if (old.drainedSince) view.drainedSince = old.drainedSince;
    if (old.pinnedWorkflows?.running !== undefined) {
      view.runningWorkflows = old.pinnedWorkflows.running;
      if (old.pinnedWorkflows.countedAt) view.countedAt = old.pinnedWorkflows.countedAt;
    }
  }
  // A Deployment the status does not name yet (just created) is a build all the same.
  for (const d of mine) {
    const buildID = d.metadata?.labels?.[LABELS.buildId] ?? '';
    const view = builds.get(buildID) ?? build({ buildID, status: 'NotRegistered' }, 'deprecated');
    const created = d.metadata?.creationTimestamp ? new Date(d.metadata.creationTimestamp).toISOString() : undefined;
    if (created && (!view.createdAt || created < view.createdAt)) view.createdAt = created;
    const pool = d.metadata?.labels?.[LABELS.pool];
    view.deployments.push({
      name: d.metadata?.name ?? '',
      ...(pool ? { pool } : {}),
      ready: d.status?.readyReplicas ?? 0,
      ...(d.spec?.replicas === undefined ? {} : { desired: d.spec.replicas }),
    });
  }
  for (const resource of owned) {
    for (const copy of resource.status?.versions ?? []) {
      builds.get(copy.buildID)?.ownedResources.push({
        ownedResource: resource.metadata.name ?? '',
        kind: resource.spec.object.kind,
        name: copy.resourceName,
        applied: copy.applied,
        ...(copy.message ? { message: copy.message } : {}),
      });
    }
  }
  for (const view of builds.values()) view.deployments.sort((a, b) => byCodeUnits(a.name, b.name));
  for (const view of builds.values()) {
    const id = view.buildID;
    const target = status?.targetVersion?.buildID === id ? status.targetVersion : undefined;
    const currentSince = status?.currentVersion?.buildID === id ? status.currentVersion.currentSince : undefined;
    const deactivatedAt = status?.deprecatedVersions?.find((v) => v.buildID === id)?.deactivatedAt;
    view.phases = phasesOf(view, {
      ...(target ? { rampHistory: target.rampHistory ?? [] } : {}),
      ...(currentSince ? { currentSince } : {}),
      ...(deactivatedAt ? { deactivatedAt } : {}),
    });
  }

  const events = input.events
    .filter((e) => e.involvedObject.kind === 'TemporalWorkerDeployment' && e.involvedObject.name === name)
    .map((e): EventView => {
      const lastSeen = eventTime(e);
      return {
        type: e.type ?? 'Normal',
        reason: e.reason ?? '',
        message: e.message ?? '',
        count: e.count ?? e.series?.count ?? 1,
        ...(lastSeen ? { lastSeen } : {}),
      };
    })
    .sort((a, b) => byCodeUnits(b.lastSeen ?? '', a.lastSeen ?? ''))
    .slice(0, EVENTS_SHOWN);

  return {
    namespace,
    name,
    ...(twd.metadata.generation === undefined ? {} : { generation: twd.metadata.generation }),
    ...(status?.observedGeneration === undefined ? {} : { observedGeneration: status.observedGeneration }),
    strategy: rollout?.strategy ?? DEFAULT_STRATEGY,
    ...(rollout?.strategy === 'Progressive' && rollout.steps
      ? { steps: rollout.steps.map((s) => s.rampPercentage) }
      : {}),
    builds: [...builds.values()].sort(byRole),
    conditions: (status?.conditions ?? []).map(({ type, status: value, reason, message }) => ({
      type,
      status: value,
      reason,
      message,
    })),
    events,
  };
}

/** The times the status gives, in order; before the first, what the build's role says it was. */
/** The times of a build the status gives besides those already in its view. */
interface PhaseTimes {
  /** Of the target only. */
  rampHistory?: { percentage: number; at: string }[];
  currentSince?: string;
  deactivatedAt?: string;
}

function phasesOf(view: BuildView, times: PhaseTimes): PhaseView[] {
  const marks: PhaseView[] = [
    ...(times.rampHistory ?? []).map(({ percentage, at }): PhaseView =>
      percentage > 0 ? { state: 'Ramping', from: at, percentage } : { state: 'Waiting', from: at },
    ),
    ...(times.currentSince ? [{ state: 'Current' as const, from: times.currentSince }] : []),
    ...(times.deactivatedAt ? [{ state: 'Draining' as const, from: times.deactivatedAt }] : []),
    ...(view.drainedSince ? [{ state: 'Drained' as const, from: view.drainedSince }] : []),
  ].sort((a, b) => byCodeUnits(a.from, b.from));
  const first = marks[0];
  if (view.createdAt && (!first || view.createdAt < first.from)) {
    marks.unshift({ state: stateBefore(view, times), from: view.createdAt });
  }
  return marks;
}

function stateBefore(view: BuildView, times: { rampHistory?: unknown; currentSince?: string; deactivatedAt?: string }) {
  if (times.rampHistory) return 'Waiting';
  if (times.currentSince) return 'RollingOut';
  // Without a time of its own, the current build has been current as long as the status can say.
  if (view.roles.includes('current')) return 'Current';
  return times.deactivatedAt ? 'Active' : 'Waiting';
}

/** The target first, then the current build, then older builds from the newest. */
function byRole(a: BuildView, b: BuildView): number {
  const rank = (v: BuildView) => (v.roles.includes('target') ? 0 : v.roles.includes('current') ? 1 : 2);
  return rank(a) - rank(b) || byCodeUnits(b.createdAt ?? '', a.createdAt ?? '');
}

function eventTime(event: CoreV1Event): string | undefined {
  const time = event.lastTimestamp ?? event.series?.lastObservedTime ?? event.eventTime ?? event.firstTimestamp;
  return time ? new Date(time).toISOString() : undefined;
}
