// What the target build's Pods say keeps them from running, in one sentence for a condition and
// one Warning event per distinct problem, and the kubectl command that shows exactly those Pods. Pure.
import { LABELS } from '../domain/labels.ts';
import type { PodProblem } from '../domain/snapshot.ts';
import { byCodeUnits } from '../domain/text-order.ts';

export interface PodsSay {
  /** Each distinct problem once, naming a Pod that has it. */
  text: string;
  /** One per distinct problem, worded the same whatever the number of Pods: each is written once. */
  events: { reason: string; message: string }[];
}

export const PODS_FAILING = 'PodsFailing';

/** Undefined when no Pod of the build reports a problem. */
export function podsSay(problems: PodProblem[], buildId: string): PodsSay | undefined {
  const byProblem = new Map<string, PodProblem[]>();
  for (const p of problems.filter((p) => p.buildId === buildId)) {
    const key = [p.container ?? '', p.reason, p.message].join('\u0000');
    byProblem.set(key, [...(byProblem.get(key) ?? []), p]);
  }
  if (byProblem.size === 0) return undefined;
  const groups = [...byProblem.values()].map((pods) => pods.sort((a, b) => byCodeUnits(a.pod, b.pod)));
  const described = groups.map((pods) => {
    const first = pods[0] as PodProblem;
    const more = pods.length > 1 ? ` (and ${pods.length - 1} more Pods)` : '';
    return { first, text: `${describe(first)}${more}` };
  });
  return {
    text: described.map((d) => d.text).join('; '),
    events: described.map((d) => ({ reason: PODS_FAILING, message: `build ${buildId}: ${describe(d.first)}` })),
  };
}

function describe(p: PodProblem): string {
  return `Pod ${p.pod}${p.container ? ` container ${p.container}` : ''}: ${p.reason}${p.message ? `: ${p.message}` : ''}`;
}

/** Selects the Pods of one build of one worker deployment: build IDs repeat across worker deployments. */
export function describePods(namespace: string, name: string, buildId: string): string {
  return `kubectl describe pods -n ${namespace} -l ${LABELS.deploymentName}=${name},${LABELS.buildId}=${buildId}`;
}
