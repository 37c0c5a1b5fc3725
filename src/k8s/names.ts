// Names and labels of the objects the controller makes for a worker deployment.
import { createHash } from 'node:crypto';
import { LABELS } from '../domain/labels.ts';

/** Kubernetes Deployment names stay at most 47 characters: Pod names add up to 16 more. */
export const MAX_DEPLOYMENT_NAME_LENGTH = 47;

export { LABELS };

/** Temporal's name for the worker deployment: unique per Kubernetes namespace and object. */
export function temporalDeploymentName(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/**
 * `<worker deployment>[-<pool>]-<build>`, lowercased to a DNS label. A name that would be longer
 * than 47 characters keeps readable prefixes of each part and ends in a hash of the whole, so
 * two builds never share a name.
 */
export function versionedDeploymentName(workerDeployment: string, buildId: string, pool?: string): string {
  const parts = [workerDeployment, ...(pool ? [pool] : []), buildId].map(dnsClean);
  const full = parts.join('-');
  if (full.length <= MAX_DEPLOYMENT_NAME_LENGTH) return full;
  const hash = createHash('sha256')
    .update([workerDeployment, pool ?? '', buildId].join('\n'))
    .digest('hex')
    .slice(0, 8);
  const room = Math.floor((MAX_DEPLOYMENT_NAME_LENGTH - hash.length - parts.length) / parts.length);
  return [...parts.map((p) => p.slice(0, room).replace(/-+$/, '')), hash].join('-');
}

/** Labels that select the Pods of one build (and pool) of a worker deployment. */
export function selectorLabels(workerDeployment: string, buildId: string, pool?: string): Record<string, string> {
  return {
    [LABELS.deploymentName]: workerDeployment,
    [LABELS.buildId]: buildId,
    ...(pool ? { [LABELS.pool]: pool } : {}),
  };
}

function dnsClean(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
