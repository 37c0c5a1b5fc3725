// The Kubernetes the controller depends on, as state that changes over time: the worker
// deployment as the API server stores it (resourceVersion, generation, finalizers, deletion), the
// informer's copy of it (which may lag), and the Deployments with their Pods per build and pool.
// A Deployment created or scaled up gets Pods that become ready some time later (never, for a
// build whose Pods crash); one at 0 replicas has none; an HPA changes replicas when the spec
// leaves them unset. The controller reaches it only through ClusterClient, as in production.
import type { V1Deployment } from '@kubernetes/client-node';
import type { TemporalConnection } from '../../src/api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { TASK_QUEUE_ENV } from '../../src/api/reserved-env.ts';
import { KubernetesApiError } from '../../src/runtime/kube/api-errors.ts';
import type { ClusterClient } from '../../src/k8s/cluster-client.ts';
import { LABELS } from '../../src/k8s/names.ts';
import type { Prng } from './prng.ts';

/** The queue a worker polls when its pool names none. */
export const DEFAULT_QUEUE = 'orders';

export interface Clock {
  /** Milliseconds since the epoch. */
  now: number;
}

/** What the Kubernetes model tells the checks about as it happens (see invariants.ts). */
export interface KubernetesHooks {
  scaled(deployment: ModelDeployment, replicas: number): void;
  /** `collected`: by the garbage collector, once the worker deployment itself is gone. */
  deleted(deployment: ModelDeployment, collected: boolean): void;
  statusWritten(status: TemporalWorkerDeployment['status']): void;
  /** A write of the controller failed by an injected fault: the checks judge only clean reconciles. */
  faulted(): void;
}

/** Faults of Kubernetes' writes, armed by faults.ts. */
export interface KubernetesFaults {
  /** Steps during which the next status write is refused as written meanwhile (409). */
  statusConflict: number;
  /** Per kind of write: steps during which its next call fails with a 500. */
  failNext: Map<string, number>;
}

export interface ModelDeployment {
  name: string;
  buildId: string;
  pool?: string;
  /** The queue its workers poll (their TEMPORAL_TASK_QUEUE). */
  queue: string;
  spec: NonNullable<V1Deployment['spec']>;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  ownerReferences: NonNullable<NonNullable<V1Deployment['metadata']>['ownerReferences']>;
  replicas: number;
  ready: number;
  /** When each Pod not yet ready becomes ready; Infinity for one that never does. */
  pending: number[];
  generation: number;
  observedGeneration: number;
  resourceVersion: number;
  availableSince?: number;
}

export interface BuildPods {
  /** The build's Pods crash: never ready. */
  crashes(buildId: string): boolean;
}

export class KubernetesModel {
  readonly clock: Clock;
  private readonly rng: Prng;
  private readonly pods: BuildPods;
  hooks: KubernetesHooks;
  readonly faults: KubernetesFaults = { statusConflict: 0, failNext: new Map() };

  /** At a step's start: faults not met within their steps are disarmed. */
  tickFaults(): void {
    if (this.faults.statusConflict > 0) this.faults.statusConflict--;
    for (const [method, steps] of this.faults.failNext)
      if (steps <= 1) this.faults.failNext.delete(method);
      else this.faults.failNext.set(method, steps - 1);
  }

  faultsArmed(): boolean {
    return this.faults.statusConflict > 0 || this.faults.failNext.size > 0;
  }
  /** The worker deployment as stored; undefined once deleted. */
  stored: TemporalWorkerDeployment | undefined;
  /** The informer's copy. */
  cached: TemporalWorkerDeployment | undefined;
  connection: TemporalConnection;
  readonly deployments = new Map<string, ModelDeployment>();
  /** The informer's copy of the Deployments; rebuilt when something changed. */
  private deploymentsView: V1Deployment[] | undefined;
  private cachedDeployments: V1Deployment[] = [];
  private resourceVersion = 100;
  /** Lines of the calls the controller made (to Temporal too), in order, for a replay's last step. */
  readonly calls: string[] = [];

  constructor(clock: Clock, rng: Prng, pods: BuildPods, hooks: KubernetesHooks, initial: TemporalWorkerDeployment) {
    this.clock = clock;
    this.rng = rng;
    this.pods = pods;
    this.hooks = hooks;
    this.stored = { ...initial, metadata: { ...initial.metadata, resourceVersion: String(this.resourceVersion) } };
    this.cached = this.stored;
    this.connection = {
      apiVersion: 'temporal.io/v1alpha1',
      kind: 'TemporalConnection',
      metadata: { name: 'temporal', namespace: initial.metadata.namespace ?? '', finalizers: [] },
      spec: { hostPort: 'temporal:7233' },
    };
  }

  /** A change of the stored worker deployment by someone else than the controller (a user). */
  update(change: (current: TemporalWorkerDeployment) => TemporalWorkerDeployment, specChanged: boolean): void {
    if (!this.stored) return;
    const next = change(this.stored);
    const generation = (this.stored.metadata.generation ?? 1) + (specChanged ? 1 : 0);
    this.stored = { ...next, metadata: { ...next.metadata, generation, resourceVersion: this.nextVersion() } };
  }

  /** The informer delivers what is stored. */
  refreshCache(deployments: boolean): void {
    this.cached = this.stored;
    if (deployments) this.cachedDeployments = this.view();
  }

  cachedDeploymentList(): V1Deployment[] {
    return this.cachedDeployments;
  }

  private nextVersion(): string {
    return String(++this.resourceVersion);
  }

  /** What Kubernetes does between two looks: Pods become ready, the HPA scales, rollouts settle. */
  progress(): void {
    const now = this.clock.now;
    const spec = this.stored?.spec;
    for (const d of this.deployments.values()) {
      const before = d.ready;
      const still: number[] = [];
      for (const at of d.pending)
        if (at <= now) d.ready++;
        else still.push(at);
      d.pending = still;
      if (d.observedGeneration !== d.generation) {
        d.observedGeneration = d.generation;
        this.changed();
      }
      // The HPA the user runs beside a spec without replicas; it never scales from or to 0.
      const pool = spec?.pools?.find((p) => p.name === d.pool);
      const autoscaled = spec !== undefined && spec.replicas === undefined && pool?.replicas === undefined;
      if (autoscaled && d.replicas > 0 && this.rng.chance(0.15)) this.setReplicas(d, this.rng.int(1, 3));
      if (d.ready !== before) this.changed();
      this.settle(d);
    }
  }

  /** Pods of a Deployment crash and come back later (a node lost). */
  crash(name: string): void {
    const d = this.deployments.get(name);
    if (!d || d.ready === 0) return;
    d.ready--;
    d.pending.push(this.readyAt(d.buildId));
    this.settle(d);
    this.changed();
  }

  private readyAt(buildId: string): number {
    if (this.pods.crashes(buildId)) return Infinity;
    return this.clock.now + this.rng.int(3, 90) * 1000;
  }

  private setReplicas(d: ModelDeployment, replicas: number): void {
    if (replicas === d.replicas) return;
    d.replicas = replicas;
    d.generation++;
    d.resourceVersion = Number(this.nextVersion());
    // Pods not yet ready go first.
    while (d.ready + d.pending.length > replicas) {
      if (d.pending.length > 0) d.pending.pop();
      else d.ready--;
    }
    while (d.ready + d.pending.length < replicas) d.pending.push(this.readyAt(d.buildId));
    this.settle(d);
    this.changed();
  }

  /** The Available condition: every wanted Pod ready (true at 0 replicas, as Kubernetes says). */
  private settle(d: ModelDeployment): void {
    const available = d.ready >= d.replicas;
    if (available && d.availableSince === undefined) d.availableSince = this.clock.now;
    if (!available) d.availableSince = undefined;
  }

  private changed(): void {
    this.deploymentsView = undefined;
  }

  /** Ready Pods of the build in each pool it has a Deployment for. */
  readyByPool(buildId: string): Map<string | undefined, { replicas: number; ready: number }> {
    const out = new Map<string | undefined, { replicas: number; ready: number }>();
    for (const d of this.deployments.values())
      if (d.buildId === buildId) out.set(d.pool, { replicas: d.replicas, ready: d.ready });
    return out;
  }

  /** Whether some worker of the build polls `queue` now. */
  polls(buildId: string, queue?: string): boolean {
    for (const d of this.deployments.values())
      if (d.buildId === buildId && d.ready > 0 && (queue === undefined || d.queue === queue)) return true;
    return false;
  }

  /** The queues the build's ready workers poll. */
  queuesPolled(buildId: string): string[] {
    const queues = new Set<string>();
    for (const d of this.deployments.values()) if (d.buildId === buildId && d.ready > 0) queues.add(d.queue);
    return [...queues];
  }

  private view(): V1Deployment[] {
    if (this.deploymentsView) return this.deploymentsView;
    this.deploymentsView = [...this.deployments.values()].map((d) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: d.name,
        namespace: this.stored?.metadata.namespace ?? this.connection.metadata.namespace ?? '',
        uid: `uid-${d.name}`,
        generation: d.generation,
        resourceVersion: String(d.resourceVersion),
        labels: d.labels,
        annotations: d.annotations,
        ownerReferences: d.ownerReferences,
      },
      spec: { ...d.spec, replicas: d.replicas },
      status: {
        observedGeneration: d.observedGeneration,
        replicas: d.replicas,
        updatedReplicas: d.replicas,
        readyReplicas: d.ready,
        availableReplicas: d.ready,
        conditions: [
          {
            type: 'Available',
            status: d.availableSince === undefined ? 'False' : 'True',
            reason: d.availableSince === undefined ? 'MinimumReplicasUnavailable' : 'MinimumReplicasAvailable',
            lastTransitionTime: new Date(d.availableSince ?? this.clock.now),
          },
        ],
      },
    }));
    return this.deploymentsView;
  }

  /** The garbage collector: the owner is gone, so are its Deployments. */
  private collect(): void {
    for (const d of [...this.deployments.values()]) {
      this.hooks.deleted(d, true);
      this.deployments.delete(d.name);
    }
    this.changed();
  }

  private fail(method: string, path: string): void {
    if (!this.faults.failNext.delete(method)) return;
    this.hooks.faulted();
    throw new KubernetesApiError(method, path, 500, { kind: 'Status', message: 'simulated failure', code: 500 });
  }

  client(): ClusterClient {
    const notFound = (method: string, path: string) =>
      new KubernetesApiError(method, path, 404, { kind: 'Status', message: `${path} not found`, code: 404 });
    const conflict = (method: string, path: string) =>
      new KubernetesApiError(method, path, 409, { kind: 'Status', message: `${path} changed`, code: 409 });
    const log = (line: string) => this.calls.push(line);
    return {
      setFinalizers: (plural, object, finalizers) => {
        log(`k8s.setFinalizers ${plural} [${finalizers.join(',')}]`);
        if (plural === 'temporalconnections') {
          this.connection = { ...this.connection, metadata: { ...this.connection.metadata, finalizers } };
          return Promise.resolve(this.nextVersion());
        }
        this.fail('setFinalizers', plural);
        const stored = this.stored;
        if (!stored) return Promise.reject(notFound('PATCH', plural));
        if (object.metadata.resourceVersion && object.metadata.resourceVersion !== stored.metadata.resourceVersion)
          return Promise.reject(conflict('PATCH', plural));
        const deleting = Boolean((stored.metadata as { deletionTimestamp?: unknown }).deletionTimestamp);
        if (deleting && finalizers.length === 0) {
          this.stored = undefined;
          this.collect();
          return Promise.resolve(undefined);
        }
        const resourceVersion = this.nextVersion();
        this.stored = { ...stored, metadata: { ...stored.metadata, finalizers, resourceVersion } };
        return Promise.resolve(resourceVersion);
      },
      readStored: (plural) => {
        log(`k8s.readStored ${plural}`);
        return Promise.resolve(plural === 'temporalconnections' ? this.connection : this.stored);
      },
      createDeployment: (deployment) => {
        const name = deployment.metadata?.name ?? '';
        log(`k8s.createDeployment ${name}`);
        this.fail('createDeployment', name);
        if (this.deployments.has(name)) return Promise.resolve();
        const labels = deployment.metadata?.labels ?? {};
        const env = deployment.spec?.template.spec?.containers[0]?.env ?? [];
        const d: ModelDeployment = {
          name,
          buildId: labels[LABELS.buildId] ?? '',
          ...(labels[LABELS.pool] ? { pool: labels[LABELS.pool] } : {}),
          queue: env.find((e) => e.name === TASK_QUEUE_ENV)?.value ?? DEFAULT_QUEUE,
          spec: deployment.spec ?? { selector: {}, template: {} },
          labels,
          annotations: deployment.metadata?.annotations ?? {},
          ownerReferences: deployment.metadata?.ownerReferences ?? [],
          // The API server's default, when the controller leaves replicas to an autoscaler.
          replicas: 0,
          ready: 0,
          pending: [],
          generation: 1,
          observedGeneration: 0,
          resourceVersion: Number(this.nextVersion()),
        };
        this.deployments.set(name, d);
        this.setReplicas(d, deployment.spec?.replicas ?? 1);
        this.changed();
        return Promise.resolve();
      },
      replaceDeployment: (deployment) => {
        const name = deployment.metadata?.name ?? '';
        log(`k8s.replaceDeployment ${name}`);
        this.fail('replaceDeployment', name);
        const d = this.deployments.get(name);
        if (!d) return Promise.reject(notFound('PUT', name));
        if (deployment.metadata?.resourceVersion !== String(d.resourceVersion))
          return Promise.reject(conflict('PUT', name));
        d.spec = deployment.spec ?? d.spec;
        d.annotations = deployment.metadata?.annotations ?? d.annotations;
        const env = d.spec.template.spec?.containers[0]?.env ?? [];
        d.queue = env.find((e) => e.name === TASK_QUEUE_ENV)?.value ?? DEFAULT_QUEUE;
        d.generation++;
        d.resourceVersion = Number(this.nextVersion());
        const replicas = deployment.spec?.replicas;
        if (replicas !== undefined && replicas !== d.replicas) this.setReplicas(d, replicas);
        this.changed();
        return Promise.resolve();
      },
      deleteDeployment: (_namespace, name) => {
        log(`k8s.deleteDeployment ${name}`);
        this.fail('deleteDeployment', name);
        const d = this.deployments.get(name);
        if (!d) return Promise.resolve();
        this.hooks.deleted(d, false);
        this.deployments.delete(name);
        this.changed();
        return Promise.resolve();
      },
      scaleDeployment: (_namespace, name, replicas) => {
        log(`k8s.scaleDeployment ${name} ${replicas}`);
        this.fail('scaleDeployment', name);
        const d = this.deployments.get(name);
        if (!d) return Promise.reject(notFound('PATCH', name));
        this.hooks.scaled(d, replicas);
        this.setReplicas(d, replicas);
        return Promise.resolve();
      },
      replaceStatus: (object) => {
        log(`k8s.replaceStatus @${object.metadata.resourceVersion ?? ''}`);
        const stored = this.stored;
        if (!stored) return Promise.reject(notFound('PUT', 'status'));
        if (this.faults.statusConflict > 0) {
          // Someone else wrote the object meanwhile (a label, say): the informer shows it next.
          this.faults.statusConflict = 0;
          this.hooks.faulted();
          this.stored = { ...stored, metadata: { ...stored.metadata, resourceVersion: this.nextVersion() } };
          return Promise.resolve('conflict');
        }
        if (object.metadata.resourceVersion !== stored.metadata.resourceVersion) return Promise.resolve('conflict');
        this.hooks.statusWritten(object.status);
        this.stored = {
          ...stored,
          status: object.status,
          metadata: { ...stored.metadata, resourceVersion: this.nextVersion() },
        };
        return Promise.resolve(this.stored);
      },
      replaceConnectionStatus: () => Promise.resolve('written'),
      replaceOwnedResourceStatus: () => Promise.resolve('written'),
      setOwnerReferences: () => Promise.resolve(this.nextVersion()),
      apply: () => Promise.resolve(),
      deleteObject: () => Promise.resolve(),
      listObjects: () => Promise.resolve([]),
      readKey: () => Promise.resolve({ exists: false }),
    };
  }
}
