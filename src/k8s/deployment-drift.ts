// When a Deployment the controller made no longer matches what it would make now, and what it
// is replaced with. Under one build ID the Pods must run the spec's template (a custom build ID
// lets the template change) with the pools' placement; every build, old ones included, must
// reach Temporal through the connection, and with the credentials of its Secret, as they are now. Pure.
import type { V1Deployment } from '@kubernetes/client-node';
import { templateHash } from './build-id.ts';
import type { ObservedDeployment } from '../domain/snapshot.ts';
import { ANNOTATIONS, withConnection } from './versioned-deployment.ts';
import type { WorkerConnection } from './worker-connection.ts';

const CONNECTION_CHANGED = 'the TemporalConnection or the credentials in its Secret changed';

/** Why `observed` must be rolled in place, or undefined when it matches. `wanted` is what the spec builds for it, when it is the target's. */
export function driftOf(
  observed: ObservedDeployment,
  wanted: V1Deployment | undefined,
  connection: WorkerConnection,
): string | undefined {
  const connectionChanged = observed.connectionHash !== templateHash(connection);
  if (!wanted) return connectionChanged ? CONNECTION_CHANGED : undefined;
  if (observed.specHash === wanted.metadata?.annotations?.[ANNOTATIONS.specHash]) return undefined;
  if (connectionChanged) return CONNECTION_CHANGED;
  if (observed.templateHash !== wanted.spec?.template.metadata?.annotations?.[ANNOTATIONS.templateHash])
    return 'spec.template changed under the same build ID (workerOptions.unsafeCustomBuildID)';
  return 'its pool placement, minReadySeconds or progressDeadlineSeconds changed';
}

/**
 * The object that replaces `live`: the spec's build when it is the target's, else `live` with
 * the current connection. The resourceVersion makes the write fail if `live` is stale, and the
 * replica count stays as it is: scaling is a separate action, and an autoscaler may own it.
 */
export function replacementOf(
  live: V1Deployment,
  wanted: V1Deployment | undefined,
  connection: WorkerConnection,
): V1Deployment {
  const liveSpec = live.spec ?? { selector: {}, template: {} };
  const spec = wanted?.spec ?? { ...liveSpec, template: withConnection(liveSpec.template, connection) };
  const template = structuredClone(spec.template);
  // Only fields we set are sent: server-filled timestamps do not survive client-node's serializer as strings.
  if (template.metadata) delete template.metadata.creationTimestamp;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: live.metadata?.name ?? '',
      namespace: live.metadata?.namespace ?? '',
      ...(live.metadata?.resourceVersion ? { resourceVersion: live.metadata.resourceVersion } : {}),
      labels: live.metadata?.labels ?? {},
      annotations: { ...live.metadata?.annotations, ...wanted?.metadata?.annotations },
      ownerReferences: live.metadata?.ownerReferences ?? [],
    },
    spec: {
      ...liveSpec,
      ...spec,
      template,
      ...(liveSpec.replicas === undefined ? {} : { replicas: liveSpec.replicas }),
    },
  };
}
