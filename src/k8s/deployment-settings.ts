// spec.deployment on the Kubernetes Deployments of every build: labels, annotations, strategy and
// revisionHistoryLimit, applied in place (they change no Pod, so no new build). What was applied is
// kept on the Deployment in one annotation, so a label or annotation taken out of the spec is taken
// off too, and a Deployment whose annotation differs from the spec is rolled. Pure.
import type { V1Deployment } from '@kubernetes/client-node';
import canonicalize from 'canonicalize';
import type { DeploymentSettings } from '../api/temporal-worker-deployment.ts';

/** The settings applied, as canonical JSON; absent when the spec sets none (and on Deployments made before them). */
export const SETTINGS_ANNOTATION = 'temporal.io/deployment-settings';

/** The settings as the annotation says them; undefined for none. */
export function settingsText(settings: DeploymentSettings | undefined): string | undefined {
  return settings && Object.keys(settings).length > 0 ? canonicalize(settings) : undefined;
}

/**
 * `deployment` with `settings` in place of those it was last given (its annotation says which):
 * the selector's labels and the controller's annotations always win.
 */
export function withSettings(deployment: V1Deployment, settings: DeploymentSettings | undefined): V1Deployment {
  const metadata = deployment.metadata ?? {};
  const before = appliedSettings(deployment);
  const selector = deployment.spec?.selector.matchLabels ?? {};
  const labels = { ...without(metadata.labels, before?.labels), ...settings?.labels, ...selector };
  const annotations: Record<string, string> = {
    ...settings?.annotations,
    ...without(metadata.annotations, { ...before?.annotations, [SETTINGS_ANNOTATION]: '' }),
  };
  const text = settingsText(settings);
  if (text) annotations[SETTINGS_ANNOTATION] = text;
  const spec = { ...(deployment.spec ?? { selector: {}, template: {} }) };
  // One taken out of the spec is left out, and the API server gives Kubernetes' default again;
  // one never set keeps what the server gave.
  if (settings?.strategy) spec.strategy = settings.strategy;
  else if (before?.strategy) delete spec.strategy;
  if (settings?.revisionHistoryLimit !== undefined) spec.revisionHistoryLimit = settings.revisionHistoryLimit;
  else if (before?.revisionHistoryLimit !== undefined) delete spec.revisionHistoryLimit;
  return { ...deployment, metadata: { ...metadata, labels, annotations }, spec };
}

function appliedSettings(deployment: V1Deployment): DeploymentSettings | undefined {
  const text = deployment.metadata?.annotations?.[SETTINGS_ANNOTATION];
  return text ? (JSON.parse(text) as DeploymentSettings) : undefined;
}

function without(map: Record<string, string> | undefined, keys: Record<string, string> | undefined) {
  return Object.fromEntries(Object.entries(map ?? {}).filter(([key]) => !(keys && key in keys)));
}
