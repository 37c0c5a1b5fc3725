// The first stage of a reconcile's observation: what Kubernetes says, from the caches. The worker
// deployment as last admitted, its connection and the Secrets and ConfigMaps its templates read,
// its Deployments (each build's, as the spec would build it and as it runs) and what its Pods say
// is wrong with them, the owned resources' copies. On these the new build's Deployments may be
// created before Temporal is asked anything (observe-temporal.ts). A read that fails is reported
// as exactly that, and nothing is decided on half an answer.
import type { V1Deployment } from '@kubernetes/client-node';
import { API_VERSION, KINDS } from '../api/kinds.ts';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import {
  type DeploymentSettings,
  type TemporalWorkerDeployment,
  temporalWorkerDeployment,
} from '../api/temporal-worker-deployment.ts';
import { type FieldError, fittingPart, withDefaults } from '../api/validate.ts';
import type { FailedObservation, Observation, OwnedAutoscaler, SecretCopyState } from '../domain/observation.ts';
import type { ReadCertificate } from '../domain/certificates.ts';
import type { ObservedDeployment } from '../domain/snapshot.ts';
import { buildIdOf } from '../k8s/build-id.ts';
import {
  type ConfigurationDigests,
  type ConfigurationLookup,
  type ConfigurationObject,
  readConfiguration,
  withConfigurationDigests,
} from '../k8s/configuration-digests.ts';
import { configurationReferences, objectId, readObjects } from '../k8s/configuration-references.ts';
import { poolOverlays, poolPodTemplate } from '../k8s/pool-template.ts';
import { driftOf, replacementOf } from '../k8s/deployment-drift.ts';
import { LABELS, temporalDeploymentName } from '../k8s/names.ts';
import { observeDeployment } from '../k8s/observed-deployment.ts';
import { type VersionedDeploymentInput, versionedDeployment } from '../k8s/versioned-deployment.ts';
import { type WorkerConnection, workerConnection } from '../k8s/worker-connection.ts';
import type { KubernetesPhaseFacts } from '../planner/kubernetes-phase.ts';
import { clusterConnectionUse } from '../domain/cluster-connection-use.ts';
import { connectionNamespace, type SecretLookup } from '../domain/connection-ref.ts';
import { AUTOSCALER_KINDS, copyAccount } from '../domain/owned-resources.ts';
import { certificateSources, readCertificates } from '../temporal/certificates.ts';
import { lookupSecrets, missingSecret, workerSecrets } from '../temporal/credentials.ts';
import { copyInPlace, notOurCopy, secretCopies } from '../k8s/secret-copies.ts';
import { AdmittedSpecs, deepFreeze } from './admitted-specs.ts';
import type { ReconcilerDependencies } from './dependencies.ts';
import { ownedResourceFacts } from './owned-resources.ts';

/** What Kubernetes says, enough for the plan's first phase: the new build's Deployments, the owned resources' copies. */
export interface KubernetesFacts extends KubernetesPhaseFacts {
  temporalName: string;
  replacements: Observation['replacements'];
  /** The Deployments it owns, as cached (and as created since). */
  live: V1Deployment[];
  workers: WorkerConnection;
  secretCopies?: Observation['secretCopies'];
  /** Those of the connection's Secrets, the controller's and the workers' (none when absent). */
  certificates?: ReadCertificate[];
  /** The ConfigMaps and Secrets the spec's templates and the owned Deployments' templates read, as cached. */
  configuration: ConfigurationLookup;
  missingConfiguration?: Observation['missingConfiguration'];
}

export type SeenInKubernetes = { facts: KubernetesFacts; failed?: undefined } | { failed: FailedObservation };

/** The first stage: the spec, its connection and its Deployments, from the caches. */
export async function observeKubernetes(
  deps: ReconcilerDependencies,
  cached: TemporalWorkerDeployment,
): Promise<SeenInKubernetes> {
  const admission = admitted(cached);
  const { workerDeployment, invalid, unreadable } = admission;
  if (unreadable.length > 0 && !admission.said) {
    admission.said = true;
    await deps.recordEvent(
      { apiVersion: API_VERSION, kind: KINDS.TemporalWorkerDeployment.kind, metadata: cached.metadata },
      {
        type: 'Warning',
        reason: 'StatusUnreadable',
        message: `the stored status does not fit this controller's schema (an older controller wrote it?): ${unreadable.map((e) => `${e.field}: ${e.message}`).join('; ')}; the controller goes on as if that part had never been written, and writes the status anew`,
      },
    );
  }
  if (invalid.length > 0) return { failed: { workerDeployment, failure: { kind: 'InvalidSpec', errors: invalid } } };
  const namespace = cached.metadata.namespace ?? '';
  const name = cached.metadata.name ?? '';
  const spec = workerDeployment.spec;
  const connectionRef = spec.workerOptions.connectionRef;
  const connectionAt = connectionNamespace(connectionRef, namespace);
  const connection = deps.connection(connectionAt, connectionRef.name);
  if (!connection)
    return {
      failed: {
        workerDeployment,
        failure: {
          kind: 'ConnectionNotFound',
          namespace: connectionAt,
          name: connectionRef.name,
          ...(connectionAt === '' && !deps.watchesClusterConnections ? { unwatched: true as const } : {}),
        },
      },
    };
  if (connectionAt === '') {
    const use = clusterConnectionUse(connection, namespace, await deps.cluster.namespaceLabels?.(namespace));
    if (!use.allowed)
      return {
        failed: {
          workerDeployment,
          failure: { kind: 'ConnectionCredentials', reason: use.reason, connection, message: use.message },
        },
      };
  }
  const secretUses = workerSecrets(connection);
  const certificateAt = certificateSources(connection);
  const secrets = await lookupSecrets([...secretUses, ...certificateAt], (secretNamespace, secretName) =>
    deps.secret(secretNamespace, secretName),
  );
  const certificates = readCertificates(certificateAt, secrets);
  const copies = await observeSecretCopies(deps, connection, cached, secrets);
  if ('conflict' in copies)
    return {
      failed: {
        workerDeployment,
        failure: { kind: 'ConnectionCredentials', reason: 'SecretCopyConflict', connection, message: copies.conflict },
        ...(certificates.length > 0 ? { certificates } : {}),
      },
    };
  const live = ownedDeployments(deps, cached);
  const specReferences = podTemplatesOf(spec).flatMap(configurationReferences);
  const configuration = await readReferenced(deps, namespace, [
    ...specReferences,
    ...live.flatMap((d) => configurationReferences(d.spec?.template)),
  ]);
  const read = readConfiguration(specReferences, configuration);
  const newBuildOnChange = spec.workerOptions.onConfigChange === 'NewBuild';
  return {
    facts: withDeployments(
      {
        workerDeployment,
        connection,
        buildId: buildIdOf(
          spec.template,
          spec.workerOptions.unsafeCustomBuildID,
          poolOverlays(spec.pools),
          newBuildOnChange ? read.digests : undefined,
        ),
        configuration,
        ...(read.missing.length > 0
          ? { missingConfiguration: read.missing.map(({ kind, name, field }) => ({ kind, name, field })) }
          : {}),
        temporalName: temporalDeploymentName(namespace, name),
        // Copies not yet in place are written by the full plan, before any Deployment.
        credentialsExist:
          missingSecret(connection, secretUses, secrets) === undefined && copies.states.every((c) => c.inPlace),
        ...(copies.states.length > 0 ? { secretCopies: copies.states } : {}),
        ...(certificates.length > 0 ? { certificates } : {}),
        workers: workerConnection(connection, secrets, name),
        ownedResources: ownedResourceFacts(deps, workerDeployment, live),
        wanted: [],
        live: [],
        deployments: [],
        replacements: {},
      },
      live,
    ),
  };
}

/** The Pod template of each pool of the build the spec asks for (the template alone without pools). */
function podTemplatesOf(spec: TemporalWorkerDeployment['spec']) {
  return (spec.pools ?? [undefined]).map((pool) => poolPodTemplate(spec.template, pool));
}

/** Each ConfigMap and Secret the references name, read once from the caches (each watched by name). */
async function readReferenced(
  deps: ReconcilerDependencies,
  namespace: string,
  references: Parameters<typeof readObjects>[0],
): Promise<ConfigurationLookup> {
  const objects = new Map<string, ConfigurationObject | undefined>();
  await Promise.all(
    readObjects(references).map(async (read) => {
      const object =
        read.kind === 'Secret' ? await deps.secret(namespace, read.name) : await deps.configMap(namespace, read.name);
      objects.set(objectId(read), object);
    }),
  );
  return (kind, name) => objects.get(objectId({ kind, name }));
}

/** The copies of a cluster connection's Secrets the Pods need, and those in place; a Secret of the user's where one goes is a conflict. */
async function observeSecretCopies(
  deps: ReconcilerDependencies,
  connection: TemporalConnection,
  workerDeployment: TemporalWorkerDeployment,
  secrets: SecretLookup,
): Promise<{ states: SecretCopyState[] } | { conflict: string }> {
  const namespace = workerDeployment.metadata.namespace ?? '';
  const states: SecretCopyState[] = [];
  for (const wanted of secretCopies(connection, workerDeployment, secrets)) {
    const name = wanted.copy.metadata?.name ?? '';
    const existing = await deps.secret(namespace, name);
    const foreign = existing && notOurCopy(existing, workerDeployment);
    if (foreign)
      return {
        conflict: `Secret ${namespace}/${name}, where the worker Pods' copy of Secret ${wanted.source} goes, is not this worker deployment's copy (${foreign}): rename or delete it; the controller neither overwrites nor deletes it`,
      };
    states.push({
      secret: wanted.copy,
      source: wanted.source,
      inPlace: copyInPlace(wanted, existing),
      outdated: existing !== undefined,
    });
  }
  return { states };
}

/**
 * Per object the cache holds (the informer puts a new object there for every change), the object
 * with its defaults and what admission would refuse of it: a poll of an unchanged worker deployment
 * does neither again. Frozen, since every reconcile of that object shares it.
 */
const admittedObjects = new WeakMap<TemporalWorkerDeployment, Admitted>();
const admittedSpecs = new AdmittedSpecs();

/** A worker deployment gone: its admitted spec (and the Deployments built from it) goes too. */
export function forgetAdmittedSpec(namespace: string, name: string): void {
  admittedSpecs.forget(namespace, name);
}

interface Admitted {
  /** With only the part of its status that fits the schema. */
  workerDeployment: TemporalWorkerDeployment;
  /** What admission would refuse of its spec and metadata. */
  invalid: FieldError[];
  /** What of its status does not fit the schema, and is left out. */
  unreadable: FieldError[];
  /** Whether a Warning said so. */
  said?: boolean;
}

function admitted(cached: TemporalWorkerDeployment): Admitted {
  const known = admittedObjects.get(cached);
  if (known) return known;
  const { status: stored, ...rest } = cached;
  const { spec, invalid } = admittedSpecs.of(rest);
  // The status is the controller's memory, written by whichever version of it ran before: what of
  // it this version cannot read is taken as never written (learnt again, from Temporal where it
  // can be), never a reason to stop, which would also keep it from being written anew.
  const statusSchema = temporalWorkerDeployment.properties.status;
  const readable = stored ? fittingPart(statusSchema, withDefaults(statusSchema, stored), 'status') : { left: [] };
  const status = readable.value as TemporalWorkerDeployment['status'];
  const workerDeployment: TemporalWorkerDeployment = deepFreeze({
    ...rest,
    metadata: structuredClone(rest.metadata),
    spec,
    ...(status ? { status } : {}),
  });
  const result = { workerDeployment, invalid, unreadable: readable.left };
  admittedObjects.set(cached, result);
  return result;
}

/**
 * Per admitted spec (one object per spec, see AdmittedSpecs), the Deployments built from it by
 * name, build, pool and connection: building one, hashes included, was a tenth of a reconcile.
 * Frozen, as every reconcile of that spec shares them.
 */
const builtDeployments = new WeakMap<object, Map<string, V1Deployment>>();

function built(input: VersionedDeploymentInput, digests: ConfigurationDigests | undefined): V1Deployment {
  const { workerDeployment, connection, buildId, pool } = input;
  const { uid, name, namespace } = workerDeployment.metadata;
  const byInput = builtDeployments.get(workerDeployment.spec) ?? new Map<string, V1Deployment>();
  builtDeployments.set(workerDeployment.spec, byInput);
  const key = JSON.stringify([uid, name, namespace, buildId, pool, connection, digests]);
  let deployment = byInput.get(key);
  if (!deployment) {
    const made = versionedDeployment(input);
    if (digests && made.spec) made.spec.template = withConfigurationDigests(made.spec.template, digests);
    byInput.set(key, (deployment = deepFreeze(made)));
  }
  return deployment;
}

/** The facts with these Deployments as the ones it owns: the cache's, or those plus what was just created. */
export function withDeployments(facts: KubernetesFacts, live: V1Deployment[]): KubernetesFacts {
  const { workerDeployment, buildId, workers } = facts;
  const spec = workerDeployment.spec;
  // With NewBuild the configuration is in the build ID instead: no Deployment carries or rolls for it.
  const rollsInPlace = spec.workerOptions.onConfigChange !== 'NewBuild';
  const wanted = (spec.pools ?? [undefined]).map((pool) => {
    const digests = rollsInPlace
      ? readConfiguration(configurationReferences(poolPodTemplate(spec.template, pool)), facts.configuration).digests
      : undefined;
    return {
      ...(pool ? { pool: pool.name } : {}),
      deployment: built({ workerDeployment, connection: workers, buildId, ...(pool ? { pool } : {}) }, digests),
    };
  });
  /**
   * The digests a Deployment's own template should carry now; undefined when not compared: with
   * NewBuild, or while an object its Pods cannot start without is missing (rolling would replace
   * running Pods with Pods that cannot start; the kubelet says what is missing to any new one).
   */
  const digestsOf = (deployment: V1Deployment): ConfigurationDigests | undefined => {
    if (!rollsInPlace) return undefined;
    const read = readConfiguration(configurationReferences(deployment.spec?.template), facts.configuration);
    return read.missing.length > 0 ? undefined : read.digests;
  };
  const deployments = observeOwn(live, buildId, wanted, workers, spec.deployment, digestsOf);
  const replacements: Record<string, V1Deployment> = {};
  for (const d of deployments) {
    if (!d.drift) continue;
    const object = live.find((l) => l.metadata?.name === d.name) ?? {};
    const own =
      d.buildId === buildId ? wanted.find((w) => w.pool === object.metadata?.labels?.[LABELS.pool]) : undefined;
    replacements[d.name] = replacementOf(object, own?.deployment, workers, spec.deployment, digestsOf(object));
  }
  return { ...facts, wanted, live, deployments, replacements };
}

/** Where the worker deployment's Worker Deployment is: its connection's server, its Temporal namespace, its name there. */

export function ownedDeployments(deps: ReconcilerDependencies, owner: TemporalWorkerDeployment): V1Deployment[] {
  return deps
    .deployments(owner.metadata.namespace ?? '')
    .filter((d) => d.metadata?.ownerReferences?.some((o) => o.uid === owner.metadata.uid));
}

/** What each owned Deployment says of its build, and why it must be rolled in place if it must. */
function observeOwn(
  deployments: V1Deployment[],
  buildId: string,
  wanted: Observation['wanted'],
  connection: WorkerConnection,
  settings: DeploymentSettings | undefined,
  digestsOf: (deployment: V1Deployment) => ConfigurationDigests | undefined,
): ObservedDeployment[] {
  return deployments.flatMap((object) => {
    const d = observeDeployment(object);
    if (!d) return [];
    const drift = driftOf(
      d,
      d.buildId === buildId ? wanted.find((w) => w.pool === d.pool)?.deployment : undefined,
      connection,
      settings,
      digestsOf(object),
    );
    return [drift ? { ...d, drift } : d];
  });
}

/** The autoscaler copies its owned resources' statuses say exist, with the Deployment each scales. */
export function ownedAutoscalers(
  deps: ReconcilerDependencies,
  workerDeployment: TemporalWorkerDeployment,
  live: readonly V1Deployment[],
): OwnedAutoscaler[] {
  const { name, namespace = '' } = workerDeployment.metadata;
  return deps.ownedResources(namespace).flatMap((twor) => {
    const { apiVersion, kind } = twor.spec.object;
    if (twor.spec.workerRef.name !== name || !AUTOSCALER_KINDS.includes(kind)) return [];
    return (twor.status?.versions ?? []).flatMap((copy) => {
      if (!copy.applied && !copy.appliedHash) return [];
      const deployment = live.find(
        (d) => d.metadata?.labels?.[LABELS.buildId] === copy.buildID && d.metadata.labels[LABELS.pool] === copy.pool,
      );
      const account = copyAccount(
        { namespace, serviceAccountName: twor.spec.serviceAccountName },
        deps.ownedResourcesServiceAccount,
      );
      return deployment
        ? [
            {
              deployment: deployment.metadata?.name ?? '',
              deploymentUid: deployment.metadata?.uid ?? '',
              twor: twor.metadata.name ?? '',
              apiVersion,
              kind,
              name: copy.resourceName,
              account,
            },
          ]
        : [];
    });
  });
}
