// What users do to a worker deployment, drawn at random and written down as plain data, so a
// replay applies exactly the same change: a new template (a new build, or an earlier one again),
// strategy, steps, pause, resume, promote, abort, pools, gates, analysis, the pinned-workflow
// ladder, moves of pinned workflows (onAbort, twc move), sunset delays, replicas, the connection,
// deletion (forced or not) and the retry-gate annotation. A change the API server would refuse (src/api/validate.ts) is not made; a spec
// change bumps metadata.generation, an annotation does not.
import canonicalize from 'canonicalize';
import { KINDS } from '../../src/api/kinds.ts';
import type { Rollout } from '../../src/api/rollout.ts';
import type { Pool, TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { validate, withDefaults } from '../../src/api/validate.ts';
import { RETRY_GATE_ANNOTATION } from '../../src/domain/annotations.ts';
import { FORCE_DELETE_ANNOTATION } from '../../src/domain/annotations.ts';
import type { Prng } from './prng.ts';

type Spec = TemporalWorkerDeployment['spec'];
type Gate = NonNullable<Rollout['gate']>;
type Analysis = NonNullable<Rollout['analysis']>;
type Ladder = NonNullable<NonNullable<Spec['sunset']>['pinnedWorkflows']>;

export type UserAction =
  | { user: 'template'; build: string }
  | { user: 'roll' }
  | { user: 'strategy'; strategy: Rollout['strategy']; steps?: NonNullable<Rollout['steps']> }
  | { user: 'pause' }
  | { user: 'resume' }
  | { user: 'promote' }
  | { user: 'abort' }
  | { user: 'clearControls' }
  /** What a user does last, before leaving the rollout to finish: resume, clear promote and abort, leave Manual. */
  | { user: 'settle' }
  | { user: 'pools'; pools: Pool[] | null }
  | { user: 'gate'; gate: Gate | null }
  | { user: 'stepGate'; step: number; gate: Gate | null }
  | { user: 'analysis'; analysis: Analysis | null }
  | { user: 'ladder'; ladder: Ladder | null }
  | { user: 'onAbort'; onAbort: 'Stay' | 'MoveToPrevious' | null }
  /** twc move: spec.sunset.pinnedWorkflows.moveFrom. */
  | { user: 'move'; from: string | null }
  | { user: 'sunset'; scaledownDelay: string; deleteDelay: string }
  | { user: 'replicas'; replicas: number | null }
  | { user: 'connection'; hostPort: string }
  | { user: 'delete' }
  | { user: 'forceDelete' }
  | { user: 'retryGate'; value: string };

export interface UserContext {
  spec: Spec;
  /** Builds the user made so far, oldest first. */
  builds: string[];
  deleting: boolean;
}

const GATE_TYPES = ['smoke', 'replay', 'canary'];
const POOLS: Pool[] = [
  { name: 'main', taskQueue: 'orders' },
  { name: 'pay', taskQueue: 'payments' },
  { name: 'extra', taskQueue: 'orders', replicas: 1 },
];

function gate(rng: Prng): Gate {
  return { workflowType: rng.pick(GATE_TYPES), ...(rng.chance(0.3) ? { input: { depth: rng.int(1, 3) } } : {}) };
}

function steps(rng: Prng): NonNullable<Rollout['steps']> {
  const percentages = [5, 10, 25, 50, 75].filter(() => rng.chance(0.5));
  const chosen = percentages.length > 0 ? percentages.slice(0, 3) : [rng.pick([10, 50])];
  return chosen.map((rampPercentage) => ({
    rampPercentage,
    pauseDuration: rng.pick(['30s', '1m', '2m', '5m']),
    ...(rng.chance(0.25) ? { gate: gate(rng) } : {}),
  }));
}

function analysis(rng: Prng, strategy: Rollout['strategy']): Analysis {
  const tooFewSamples = rng.pick(['Wait', 'Pass', 'Fail'] as const);
  // Prometheus's failure ratio beside the failure rate, or instead of it (temporal-model.ts answers it).
  const metrics = rng.chance(0.4);
  const rate = !metrics || rng.chance(0.5);
  return {
    ...(strategy === 'AllAtOnce' || rng.chance(0.5) ? { window: rng.pick(['1m', '5m', '10m']) } : {}),
    minSamples: rng.pick([0, 3, 10]),
    ...(rate ? { maxFailureRate: rng.pick([0.1, 0.3]) } : {}),
    ...(metrics
      ? {
          prometheus: { name: 'main' },
          metrics: [
            {
              name: 'failures',
              query: 'failure_ratio{build="{{ .BuildID }}"}[{{ .Window }}]',
              max: rng.pick([0.1, 0.3]),
            },
          ],
        }
      : {}),
    tooFewSamples,
    ...(tooFewSamples === 'Wait' && rng.chance(0.5) ? { maxWait: '2m' } : {}),
    ...(rng.chance(0.3) ? { onFailure: 'Pause' as const } : {}),
  };
}

function ladder(rng: Prng): Ladder {
  const delays = ['1m', '3m', '10m', '30m'];
  const start = rng.int(0, 2);
  const out: Ladder = {};
  if (rng.chance(0.6)) out.signalAfter = delays[start];
  if (rng.chance(0.6)) out.cancelAfter = delays[start + 1];
  if (rng.chance(0.6) || (!out.signalAfter && !out.cancelAfter)) out.terminateAfter = delays[start + 2];
  if (rng.chance(0.5)) out.moveToCurrent = true;
  return out;
}

/** One thing a user does next, drawn from what the spec is now. */
export function randomUserAction(rng: Prng, context: UserContext): UserAction {
  const { spec, builds } = context;
  if (context.deleting) return { user: 'forceDelete' };
  const kind = rng.weighted({
    template: 22,
    roll: 2,
    strategy: 8,
    pause: 4,
    resume: 4,
    promote: 4,
    abort: 3,
    clearControls: 3,
    pools: 5,
    gate: 6,
    stepGate: 3,
    analysis: 6,
    ladder: 6,
    onAbort: 3,
    move: 3,
    sunset: 5,
    replicas: 5,
    connection: 2,
    delete: 0.4,
    retryGate: 3,
  });
  switch (kind) {
    case 'template': {
      const earlier = builds.length > 1 && rng.chance(0.2);
      return { user: 'template', build: earlier ? rng.pick(builds) : `v${builds.length + 1}` };
    }
    case 'strategy': {
      const strategy = rng.weighted({ AllAtOnce: 4, Progressive: 5, Manual: 1 });
      return strategy === 'Progressive'
        ? { user: 'strategy', strategy, steps: steps(rng) }
        : { user: 'strategy', strategy };
    }
    case 'pools':
      return {
        user: 'pools',
        pools: rng.chance(0.3) ? null : POOLS.filter(() => rng.chance(0.6)).slice(0, 2),
      };
    case 'gate':
      return { user: 'gate', gate: rng.chance(0.35) ? null : gate(rng) };
    case 'stepGate':
      return { user: 'stepGate', step: rng.int(0, 2), gate: rng.chance(0.35) ? null : gate(rng) };
    case 'analysis':
      return {
        user: 'analysis',
        analysis: rng.chance(0.3) ? null : analysis(rng, spec.rollout?.strategy ?? 'AllAtOnce'),
      };
    case 'ladder':
      return { user: 'ladder', ladder: rng.chance(0.25) ? null : ladder(rng) };
    case 'onAbort':
      return { user: 'onAbort', onAbort: rng.pick(['Stay', 'MoveToPrevious', null] as const) };
    case 'move':
      return { user: 'move', from: builds.length > 0 && rng.chance(0.8) ? rng.pick(builds) : null };
    case 'sunset':
      return {
        user: 'sunset',
        scaledownDelay: rng.pick(['30s', '2m', '5m', '1h']),
        deleteDelay: rng.pick(['1m', '5m', '24h']),
      };
    case 'replicas':
      return { user: 'replicas', replicas: rng.chance(0.3) ? null : rng.int(1, 3) };
    case 'connection':
      return { user: 'connection', hostPort: rng.pick(['temporal:7233', 'temporal-frontend:7233']) };
    case 'retryGate':
      return { user: 'retryGate', value: `retry-${rng.int(1, 1_000_000)}` };
    default:
      return { user: kind };
  }
}

/** The template of a build: image and custom build ID both name it. */
export function template(build: string): Pick<Spec, 'template'> & { workerOptions: Partial<Spec['workerOptions']> } {
  return {
    template: { spec: { containers: [{ name: 'worker', image: `orders:${build}` }] } },
    workerOptions: { unsafeCustomBuildID: build },
  };
}

function withRollout(spec: Spec, change: (rollout: Rollout) => Rollout): Spec {
  const rollout = change(structuredClone(spec.rollout ?? { strategy: 'AllAtOnce' }));
  return { ...spec, rollout };
}

/** The spec as the action leaves it; undefined for an action that is not a spec change. */
function specAfter(action: UserAction, spec: Spec): Spec | undefined {
  const build = spec.workerOptions.unsafeCustomBuildID ?? '';
  switch (action.user) {
    case 'template': {
      const t = template(action.build);
      return { ...spec, template: t.template, workerOptions: { ...spec.workerOptions, ...t.workerOptions } };
    }
    case 'roll': {
      const next = structuredClone(spec.template);
      next.metadata = {
        ...next.metadata,
        annotations: { rolled: String((Number(next.metadata?.annotations?.rolled) || 0) + 1) },
      };
      return { ...spec, template: next };
    }
    case 'strategy':
      return withRollout(spec, (r) => {
        const out: Rollout = { ...r, strategy: action.strategy };
        delete out.steps;
        if (action.steps) out.steps = action.steps;
        if (action.strategy === 'Manual') {
          delete out.paused;
          delete out.abort;
          delete out.analysis;
        }
        if (action.strategy === 'AllAtOnce' && out.analysis) {
          out.analysis = { ...out.analysis, window: out.analysis.window ?? '5m' };
          delete out.analysis.maxFailureRateIncrease;
        }
        return out;
      });
    case 'pause':
      return withRollout(spec, (r) => ({ ...r, paused: true }));
    case 'resume':
      return withRollout(spec, (r) => {
        delete r.paused;
        return r;
      });
    case 'promote':
      return withRollout(spec, (r) => {
        if (r.abort === build) delete r.abort;
        return { ...r, promote: build };
      });
    case 'abort':
      return withRollout(spec, (r) => {
        if (r.promote === build) delete r.promote;
        return { ...r, abort: build };
      });
    case 'clearControls':
      return withRollout(spec, (r) => {
        delete r.promote;
        delete r.abort;
        return r;
      });
    case 'settle':
      return withRollout(spec, (r) => {
        delete r.promote;
        delete r.abort;
        delete r.paused;
        return r.strategy === 'Manual' ? { ...r, strategy: 'AllAtOnce' } : r;
      });
    case 'pools': {
      const next = { ...spec };
      if (action.pools && action.pools.length > 0) next.pools = action.pools;
      else delete next.pools;
      return next;
    }
    case 'gate':
      return withRollout(spec, (r) => {
        if (action.gate) r.gate = action.gate;
        else delete r.gate;
        return r;
      });
    case 'stepGate':
      return withRollout(spec, (r) => {
        const step = r.steps?.[action.step];
        if (!step) return r;
        if (action.gate) step.gate = action.gate;
        else delete step.gate;
        return r;
      });
    case 'analysis':
      return withRollout(spec, (r) => {
        if (action.analysis) r.analysis = action.analysis;
        else delete r.analysis;
        return r;
      });
    case 'ladder': {
      const sunset = { ...spec.sunset };
      if (action.ladder) sunset.pinnedWorkflows = action.ladder;
      else delete sunset.pinnedWorkflows;
      return { ...spec, sunset };
    }
    case 'onAbort':
      return withRollout(spec, (r) => {
        if (action.onAbort) r.onAbort = action.onAbort;
        else delete r.onAbort;
        return r;
      });
    case 'move': {
      const pinnedWorkflows = { ...spec.sunset?.pinnedWorkflows };
      if (action.from) pinnedWorkflows.moveFrom = action.from;
      else delete pinnedWorkflows.moveFrom;
      return { ...spec, sunset: { ...spec.sunset, pinnedWorkflows } };
    }
    case 'sunset':
      return {
        ...spec,
        sunset: { ...spec.sunset, scaledownDelay: action.scaledownDelay, deleteDelay: action.deleteDelay },
      };
    case 'replicas': {
      const next = { ...spec };
      if (action.replicas === null) delete next.replicas;
      else next.replicas = action.replicas;
      return next;
    }
    default:
      return undefined;
  }
}

export type Applied = 'applied' | 'refused' | 'unchanged';

/** The worker deployment after the action, or why it is as it was. */
export function applyToObject(
  action: UserAction,
  object: TemporalWorkerDeployment,
  now: Date,
): { result: Applied; object: TemporalWorkerDeployment; specChanged: boolean } {
  const deleting = Boolean((object.metadata as { deletionTimestamp?: unknown }).deletionTimestamp);
  const annotate = (key: string, value: string) => ({
    ...object,
    metadata: { ...object.metadata, annotations: { ...object.metadata.annotations, [key]: value } },
  });
  switch (action.user) {
    case 'delete':
      if (deleting) return { result: 'unchanged', object, specChanged: false };
      return {
        result: 'applied',
        object: {
          ...object,
          metadata: { ...object.metadata, deletionTimestamp: now.toISOString() } as typeof object.metadata,
        },
        specChanged: false,
      };
    case 'forceDelete':
      return { result: 'applied', object: annotate(FORCE_DELETE_ANNOTATION, 'true'), specChanged: false };
    case 'retryGate':
      return { result: 'applied', object: annotate(RETRY_GATE_ANNOTATION, action.value), specChanged: false };
    case 'connection':
      return { result: 'unchanged', object, specChanged: false };
    default:
      break;
  }
  if (deleting) return { result: 'refused', object, specChanged: false };
  const spec = specAfter(action, object.spec);
  if (!spec) return { result: 'unchanged', object, specChanged: false };
  if (canonicalize(spec) === canonicalize(object.spec)) return { result: 'unchanged', object, specChanged: false };
  const candidate = { ...object, spec };
  const schema = KINDS.TemporalWorkerDeployment.schema;
  // Admission judges the spec; the status is the controller's.
  const submitted = { ...candidate };
  delete submitted.status;
  if (validate(schema, withDefaults(schema, submitted)).length > 0)
    return { result: 'refused', object, specChanged: false };
  return { result: 'applied', object: candidate, specChanged: true };
}
