// `twc status` as a terminal shows it: one tree per worker deployment, its builds from the target
// down, each with its Deployments, gates, analysis and owned resources, then the conditions and
// the newest events. Colours and symbols on a terminal; the same text without colour when piped.
// Pure: `now` is passed in, for ages.
import type { BuildView, ConditionView, EventView, WorkerDeploymentView } from './view.ts';

export interface RenderOptions {
  color: boolean;
  now: Date;
}

const COLORS = { green: 32, yellow: 33, red: 31, cyan: 36, dim: 2, bold: 1 } as const;
type Color = keyof typeof COLORS;

const STATES: Record<string, { symbol: string; color: Color }> = {
  Current: { symbol: '●', color: 'green' },
  Ramping: { symbol: '◐', color: 'cyan' },
  Draining: { symbol: '◌', color: 'yellow' },
  Drained: { symbol: '○', color: 'dim' },
  Inactive: { symbol: '·', color: 'dim' },
  NotRegistered: { symbol: '?', color: 'dim' },
};

export function renderStatus(views: WorkerDeploymentView[], options: RenderOptions): string {
  if (views.length === 0) return 'No worker deployment found.\n';
  return views.map((view) => renderOne(view, options)).join('\n');
}

function renderOne(view: WorkerDeploymentView, { color, now }: RenderOptions): string {
  const paint = (text: string, c: Color): string => (color ? `\u001b[${COLORS[c]}m${text}\u001b[0m` : text);
  const lines: string[] = [];
  const strategy =
    view.strategy === 'Progressive' && view.steps
      ? `Progressive ${view.steps.map((s) => `${s}%`).join(' → ')} → 100%`
      : view.strategy;
  const generation =
    view.generation === undefined
      ? ''
      : view.observedGeneration === view.generation
        ? `generation ${view.generation}`
        : `generation ${view.generation}, ${paint(`observed ${view.observedGeneration ?? 'none yet'}`, 'yellow')}`;
  lines.push(`${paint(`${view.namespace}/${view.name}`, 'bold')}  ${strategy}  ${generation}`.trimEnd());
  view.builds.forEach((build, i) => {
    const last = i === view.builds.length - 1;
    const [branch, stem] = last ? ['└── ', '    '] : ['├── ', '│   '];
    lines.push(branch + buildLine(build, now, paint));
    for (const detail of buildDetails(build, paint)) lines.push(`${stem}  ${detail}`);
  });
  if (view.builds.length === 0) lines.push(paint('  no build yet', 'dim'));
  if (view.conditions.length > 0) {
    lines.push('Conditions');
    for (const condition of view.conditions) lines.push(`  ${conditionLine(condition, paint)}`);
  }
  if (view.events.length > 0) {
    lines.push('Events');
    for (const event of view.events) lines.push(`  ${eventLine(event, now, paint)}`);
  }
  return `${lines.join('\n')}\n`;
}

type Paint = (text: string, c: Color) => string;

function buildLine(build: BuildView, now: Date, paint: Paint): string {
  const state = STATES[build.status] ?? { symbol: '?', color: 'dim' as const };
  const label =
    build.status === 'Ramping' && build.rampPercentage !== undefined
      ? `Ramping ${build.rampPercentage}%`
      : build.status;
  const parts = [
    paint(`${state.symbol} ${build.buildID}`, state.color),
    paint(label, state.color),
    ...(build.roles.includes('target') && build.status !== 'Current' ? ['target'] : []),
    ...(build.createdAt ? [age(build.createdAt, now)] : []),
    ...(build.pollers === undefined ? [] : [pollersSeen(build, paint)]),
    ...(build.runningWorkflows === undefined
      ? []
      : [`${build.runningWorkflows} workflow${build.runningWorkflows === 1 ? '' : 's'} running`]),
    ...(build.drainedSince ? [`drained ${age(build.drainedSince, now)} ago`] : []),
  ];
  return parts.join('  ');
}

/** Yellow when the build's Pods are ready and Temporal has seen none of its workers poll. */
function pollersSeen(build: BuildView, paint: Paint): string {
  const text = `${build.pollers} poller${build.pollers === 1 ? '' : 's'} seen`;
  const unheard = build.pollers === 0 && build.deployments.some((d) => d.ready > 0);
  return unheard ? paint(text, 'yellow') : text;
}

function buildDetails(build: BuildView, paint: Paint): string[] {
  const details: string[] = build.deployments.map((d) => {
    const replicas = d.desired === undefined ? `${d.ready} ready (autoscaled)` : `${d.ready}/${d.desired} ready`;
    const ok = d.desired === undefined ? d.ready > 0 : d.ready >= d.desired;
    return `Deployment ${d.name}${d.pool ? ` (pool ${d.pool})` : ''}  ${paint(replicas, ok ? 'green' : 'yellow')}`;
  });
  for (const gate of build.gates) {
    const [symbol, c] =
      gate.status === 'Completed'
        ? ['✔', 'green' as const]
        : gate.status === 'Failed'
          ? ['✖', 'red' as const]
          : ['…', 'yellow' as const];
    details.push(`gate ${gate.stage}  ${paint(`${symbol} ${gate.status}`, c)}  ${paint(gate.workflowID, 'dim')}`);
  }
  if (build.gateFailure) details.push(paint(`gate failed: ${build.gateFailure}`, 'red'));
  if (build.analysis) {
    const c = build.analysis.verdict === 'Passed' ? 'green' : build.analysis.verdict === 'Failed' ? 'red' : 'yellow';
    details.push(
      `analysis of step ${build.analysis.step}  ${paint(build.analysis.verdict, c)}  ${build.analysis.message}`,
    );
  }
  for (const copy of build.ownedResources) {
    details.push(
      `${copy.kind} ${copy.name}  ${copy.applied ? paint('✔ applied', 'green') : paint(`✖ ${copy.message ?? 'not applied'}`, 'red')}`,
    );
  }
  return details;
}

/** ✔ ready, ✖ stalled, ↻ progressing, ! degraded (NoPollers); any other state is only said. */
function conditionLine(condition: ConditionView, paint: Paint): string {
  const on = condition.status === 'True';
  const [symbol, c]: [string, Color] =
    on && condition.type === 'Ready'
      ? ['✔', 'green']
      : on && condition.type === 'Stalled'
        ? ['✖', 'red']
        : on && condition.type === 'Progressing'
          ? ['↻', 'yellow']
          : on && condition.type === 'Degraded'
            ? ['!', 'yellow']
            : ['·', 'dim'];
  return `${paint(symbol, c)} ${condition.type}=${condition.status}  ${paint(condition.reason, c)}  ${condition.message}`;
}

function eventLine(event: EventView, now: Date, paint: Paint): string {
  const when = event.lastSeen ? `${age(event.lastSeen, now)} ago` : '';
  const times = event.count > 1 ? ` (x${event.count})` : '';
  const reason = paint(event.reason, event.type === 'Warning' ? 'red' : 'dim');
  return [when, `${reason}${times}`, event.message].filter(Boolean).join('  ');
}

/** 45s, 12m, 3h, 2d: the largest whole unit. */
export function age(since: string, now: Date): string {
  const seconds = Math.max(0, Math.floor((now.getTime() - new Date(since).getTime()) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}
