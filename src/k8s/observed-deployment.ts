// What the controller needs to know of one of its Deployments, read from the object. Pure.
import type { V1Deployment } from '@kubernetes/client-node';
import type { ObservedDeployment } from '../domain/snapshot.ts';
import { LABELS } from './names.ts';
import { ANNOTATIONS } from './versioned-deployment.ts';
import { SETTINGS_ANNOTATION } from './deployment-settings.ts';
import { carriedDigests } from './configuration-digests.ts';

export function observeDeployment(deployment: V1Deployment): ObservedDeployment | undefined {
  const labels = deployment.metadata?.labels ?? {};
  const buildId = labels[LABELS.buildId];
  if (!buildId) return undefined;
  const status = deployment.status ?? {};
  const wanted = deployment.spec?.replicas ?? 1;
  const condition = status.conditions?.find((c) => c.type === 'Available');
  const settled = (status.observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 0);
  const available =
    settled &&
    condition?.status === 'True' &&
    (status.updatedReplicas ?? 0) >= wanted &&
    (status.availableReplicas ?? 0) >= wanted &&
    (status.replicas ?? 0) === (status.updatedReplicas ?? 0);
  const since =
    condition?.status === 'True' && condition.lastTransitionTime ? new Date(condition.lastTransitionTime) : undefined;
  const progressing = status.conditions?.find((c) => c.type === 'Progressing');
  const stuck =
    progressing?.status === 'False'
      ? `${progressing.reason ?? 'NotProgressing'}: ${progressing.message ?? ''}`
      : undefined;
  const configuration = carriedDigests(deployment.spec?.template);
  return {
    name: deployment.metadata?.name ?? '',
    buildId,
    ...(labels[LABELS.pool] ? { pool: labels[LABELS.pool] } : {}),
    ...(deployment.spec?.replicas === undefined ? {} : { replicas: deployment.spec.replicas }),
    available,
    ...(available && since ? { availableSince: since } : {}),
    ...(stuck && !available ? { stuck } : {}),
    ...defined('temporalNamespace', temporalNamespaceOf(deployment)),
    ...defined('specHash', deployment.metadata?.annotations?.[ANNOTATIONS.specHash]),
    ...defined('templateHash', deployment.spec?.template.metadata?.annotations?.[ANNOTATIONS.templateHash]),
    ...defined('connectionHash', deployment.spec?.template.metadata?.annotations?.[ANNOTATIONS.connectionHash]),
    ...defined('settings', deployment.metadata?.annotations?.[SETTINGS_ANNOTATION]),
    ...(configuration ? { configuration } : {}),
  };
}

function temporalNamespaceOf(deployment: V1Deployment): string | undefined {
  for (const container of deployment.spec?.template.spec?.containers ?? [])
    for (const variable of container.env ?? []) if (variable.name === 'TEMPORAL_NAMESPACE') return variable.value;
  return undefined;
}

function defined<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}
