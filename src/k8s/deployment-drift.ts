// When a Deployment the controller made no longer matches what it would make now, and what it
// is replaced with. Under one build ID the Pods must run the spec's template (a custom build ID
// lets the template change) with the pools' placement; every build, old ones included, must
// reach Temporal through the connection, and with the credentials of its Secret, as they are now,
// run with the ConfigMaps and Secrets its own template reads as they are now (unless the worker
// deployment makes that a new build: k8s/configuration-digests.ts), and carry spec.deployment's
// settings (k8s/deployment-settings.ts). Pure.
import type { V1Deployment } from '@kubernetes/client-node';
import type { DeploymentSettings } from '../api/temporal-worker-deployment.ts';
import { templateHash } from './build-id.ts';
import { type ConfigurationDigests, configurationChange, withConfigurationDigests } from './configuration-digests.ts';
import { settingsText, withSettings } from './deployment-settings.ts';
import type { ObservedDeployment } from '../domain/snapshot.ts';
import { ANNOTATIONS, withConnection } from './versioned-deployment.ts';
import type { WorkerConnection } from './worker-connection.ts';

const CONNECTION_CHANGED = 'the TemporalConnection or the credentials in its Secret changed';
const SETTINGS_CHANGED = 'spec.deployment changed';

/**
 * Why `observed` must be rolled in place, or undefined when it matches. `wanted` is what the spec
 * builds for it, when it is the target's; `configuration`, the digests of what its own template
 * reads now, when a change of them rolls it.
 */
export function driftOf(
  observed: ObservedDeployment,
  wanted: V1Deployment | undefined,
  connection: WorkerConnection,
  settings?: DeploymentSettings,
  configuration?: ConfigurationDigests,
): string | undefined {
  const connectionChanged = observed.connectionHash !== templateHash(connection);
  const settingsChanged = observed.settings !== settingsText(settings) ? SETTINGS_CHANGED : undefined;
  const configurationChanged = configuration && configurationChange(observed.configuration, configuration);
  if (!wanted) return connectionChanged ? CONNECTION_CHANGED : (configurationChanged ?? settingsChanged);
  if (observed.specHash === wanted.metadata?.annotations?.[ANNOTATIONS.specHash])
    return configurationChanged ?? settingsChanged;
  if (connectionChanged) return CONNECTION_CHANGED;
  if (observed.templateHash !== wanted.spec?.template.metadata?.annotations?.[ANNOTATIONS.templateHash])
    return 'spec.template changed under the same build ID (workerOptions.unsafeCustomBuildID)';
  return 'its pool placement, minReadySeconds or progressDeadlineSeconds changed';
}

/**
 * The object that replaces `live`: the spec's build when it is the target's (carrying its own
 * digests), else `live` with the current connection and, when given, `configuration`'s digests.
 * The resourceVersion makes the write fail if `live` is stale, and the replica count stays as it
 * is: scaling is a separate action, and an autoscaler may own it.
 */
export function replacementOf(
  live: V1Deployment,
  wanted: V1Deployment | undefined,
  connection: WorkerConnection,
  settings?: DeploymentSettings,
  configuration?: ConfigurationDigests,
): V1Deployment {
  const liveSpec = live.spec ?? { selector: {}, template: {} };
  const connected = withConnection(liveSpec.template, connection);
  const spec = wanted?.spec ?? {
    ...liveSpec,
    template: configuration ? withConfigurationDigests(connected, configuration) : connected,
  };
  const template = structuredClone(spec.template);
  // Only fields we set are sent: server-filled timestamps do not survive client-node's serializer as strings.
  if (template.metadata) delete template.metadata.creationTimestamp;
  const specHash = wanted?.metadata?.annotations?.[ANNOTATIONS.specHash];
  return withSettings(
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: live.metadata?.name ?? '',
        namespace: live.metadata?.namespace ?? '',
        ...(live.metadata?.resourceVersion ? { resourceVersion: live.metadata.resourceVersion } : {}),
        labels: live.metadata?.labels ?? {},
        // The live settings annotation stays until withSettings reads what to take off.
        annotations: { ...live.metadata?.annotations, ...(specHash ? { [ANNOTATIONS.specHash]: specHash } : {}) },
        ownerReferences: live.metadata?.ownerReferences ?? [],
      },
      spec: {
        ...liveSpec,
        ...spec,
        template,
        ...(liveSpec.replicas === undefined ? {} : { replicas: liveSpec.replicas }),
      },
    },
    settings,
  );
}
