// What the controller reads of Temporal on a schedule of its own, beside the reconciles (see
// figures-collector.ts): each build's backlog and each worker deployment's pollers, and their keys.
import type { BuildBacklog, TaskQueueFigures } from '../domain/backlog.ts';
import type { FiguresSource } from './figures-collector.ts';

/** A worker deployment's pollers are read once every this many poll intervals. */
export const POLLERS_INTERVALS = 3;

/** What the controller reads of Temporal on a schedule of its own (see FiguresCollector). */
export type TemporalFigures =
  | { kind: 'backlog'; build: Omit<BuildBacklog, 'readAt' | 'queues'>; queues: TaskQueueFigures[] }
  | { kind: 'pollers'; namespace: string; workerDeployment: string; byBuild: Record<string, number> };

/** The workflow task queues it reads grow as the builds' backlog reads name them, within one look. */
export type PollersSource = FiguresSource<TemporalFigures> & { queues: Set<string> };

export function backlogKey(namespace: string, name: string, buildId: string): string {
  return `backlog/${namespace}/${name}/${buildId}`;
}

export function pollersKey(namespace: string, name: string): string {
  return `pollers/${namespace}/${name}`;
}

export function samePollers(figures: TemporalFigures, previous: TemporalFigures | undefined): boolean {
  if (figures.kind !== 'pollers' || previous?.kind !== 'pollers') return false;
  const builds = new Set([...Object.keys(figures.byBuild), ...Object.keys(previous.byBuild)]);
  return [...builds].every((b) => figures.byBuild[b] === previous.byBuild[b]);
}
