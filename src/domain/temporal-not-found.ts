// When Temporal's answer that a Worker Deployment does not exist is believed. Its Worker Deployment
// answers so for a moment after each change it makes (its workflow continues as new, and a query
// that meets the run just closed is refused): a CI run saw a draining build's Deployment deleted
// under its pinned workflow on such an answer. Where the status lists builds Temporal registered,
// or this process has just found it, the answer is believed only once it has stood a while. Pure.
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';

/** How long a not-found answer must stand before it is believed, where Temporal had the Worker Deployment. */
export const NOT_FOUND_GRACE_MS = 30_000;

/** The builds the worker deployment's status says Temporal registered. */
export function registeredBuilds(workerDeployment: TemporalWorkerDeployment): string[] {
  const status = workerDeployment.status;
  const builds = [status?.targetVersion, status?.currentVersion, ...(status?.deprecatedVersions ?? [])];
  return [
    ...new Set(builds.filter((v) => v !== undefined && v.status !== 'NotRegistered').map((v) => v?.buildID ?? '')),
  ];
}

export interface NotFoundAnswer {
  /** The builds the status says Temporal registered. */
  registered: string[];
  /** This process found the Worker Deployment at its last look. */
  justDescribed: boolean;
  /** The first of the unbroken run of not-found answers this one ends. */
  since: Date;
}

/** When the answer will be believed; undefined when it is now. */
export function notFoundDoubtedUntil(answer: NotFoundAnswer, now: Date): Date | undefined {
  if (answer.registered.length === 0 && !answer.justDescribed) return undefined;
  const until = new Date(answer.since.getTime() + NOT_FOUND_GRACE_MS);
  return until > now ? until : undefined;
}
