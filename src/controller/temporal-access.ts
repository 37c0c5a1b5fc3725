// How the controller reaches Temporal: one pooled connection per TemporalConnection, with the
// credentials it names (its Secrets, service account tokens); each read within the Temporal
// namespace's read budget, then each call within its calls in flight; refused deletions and drainage corrections remembered; every call and
// every call cut off counted.
import type { V1Secret } from '@kubernetes/client-node';
import { DEFAULT_READS_PER_SECOND, DEFAULT_TEMPORAL_CONCURRENCY } from '../api/defaults.ts';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import { ServiceAccountTokens, tokenRequester, tokenReviewer } from '../k8s/service-account-tokens.ts';
import type { KubernetesApi } from '../runtime/kube/api-client.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Metrics } from '../runtime/metrics.ts';
import { TemporalCallSlots } from '../temporal/call-slots.ts';
import { statusName } from '../temporal/call-status.ts';
import type { CallTally } from '../temporal/call-tally.ts';
import { TemporalClientPool } from '../temporal/client-pool.ts';
import { DrainageRechecks } from '../temporal/drainage-rechecks.ts';
import { NamespacesFound } from '../temporal/namespaces-found.ts';
import type { WorkflowService } from '../temporal/protocol.ts';
import { type ReadCredit, TemporalReadBudget } from '../temporal/read-budget.ts';
import { PollerRefusals } from '../temporal/version-records.ts';
import { type WorkerDeploymentAddress, workerDeploymentClient } from '../temporal/worker-deployment-client.ts';
import type { ControllerOptions } from './controller-options.ts';

export type TemporalAccessOptions = Pick<
  ControllerOptions,
  | 'serviceAccount'
  | 'ownTokenAudiences'
  | 'serviceAccountTokenRenewMs'
  | 'temporalConnectTo'
  | 'temporalTimeouts'
  | 'temporalReadBudget'
  | 'temporalConcurrency'
> & {
  /** For the service account tokens. */
  api: KubernetesApi;
  /** A Secret as cached. */
  secret: (namespace: string, name: string) => Promise<V1Secret | undefined>;
  pollIntervalMs: number;
  metrics: Metrics;
  log: Logger;
};

/** Of one reconcile's calls: `tally` counts them, `credit` holds read tokens taken ahead, `change`: an event brought it. */
export interface CallOptions {
  tally?: CallTally;
  credit?: ReadCredit;
  change?: boolean;
}

export class TemporalAccess {
  readonly reads: TemporalReadBudget;
  private readonly slots: TemporalCallSlots;
  readonly drainage: DrainageRechecks;
  private readonly refusals: PollerRefusals;
  private readonly namespaces: NamespacesFound;
  private readonly clients: TemporalClientPool;

  constructor(options: TemporalAccessOptions) {
    const { metrics, log } = options;
    const tokens = new ServiceAccountTokens({
      own: options.serviceAccount,
      ownAudiences: options.ownTokenAudiences ?? [],
      request: tokenRequester(options.api),
      review: tokenReviewer(options.api),
      onRefused: metrics.countTokenRefusal,
      now: () => new Date(),
      ...(options.serviceAccountTokenRenewMs ? { renewAfterMs: options.serviceAccountTokenRenewMs } : {}),
    });
    this.clients = new TemporalClientPool({
      secret: options.secret,
      serviceAccountToken: (request) => tokens.token(request),
      ...(options.temporalConnectTo ? { connectTo: options.temporalConnectTo } : {}),
      ...(options.temporalTimeouts ? { timeouts: options.temporalTimeouts } : {}),
      onAttempt: (method, status) => metrics.countTemporalRequest(method, statusName(status.code)),
      onCutOff: metrics.countTemporalTimeout,
    });
    this.reads = new TemporalReadBudget({ perSecond: options.temporalReadBudget ?? DEFAULT_READS_PER_SECOND });
    this.slots = new TemporalCallSlots({
      perNamespace: options.temporalConcurrency ?? DEFAULT_TEMPORAL_CONCURRENCY,
      waited: metrics.observeCallSlotWait,
      inFlight: metrics.setCallsInFlight,
    });
    // A refused deletion is asked again at the next poll, not at every event.
    this.refusals = new PollerRefusals(options.pollIntervalMs);
    // A namespace deleted is said within a poll interval; a missing one, at each read.
    this.namespaces = new NamespacesFound(options.pollIntervalMs);
    this.drainage = new DrainageRechecks((deploymentName, buildId) => {
      metrics.countDrainageCorrection(deploymentName);
      log.warn(
        { temporalDeployment: deploymentName, build: buildId },
        `Temporal lists build ${buildId} of Worker Deployment ${deploymentName} as draining, but its own record says drained: the record is believed`,
      );
    });
  }

  /** The connection's pooled client (connected at need), without the read budget. */
  connected(connection: TemporalConnection, signal?: AbortSignal): Promise<WorkflowService> {
    return this.clients.workflowService(connection, signal);
  }

  /**
   * The connection's pooled client, each read within its read budget, then each call within the
   * namespace's calls in flight; `signal` also cuts its calls off (and their waits for a slot);
   * `tally`, if given, counts and times them.
   */
  async paced(
    connection: TemporalConnection,
    signal?: AbortSignal,
    { tally, credit, change }: CallOptions = {},
  ): Promise<WorkflowService> {
    const hostPort = connection.spec.hostPort;
    const service = await this.connected(connection, signal);
    const limited = this.slots.limited(tally ? tally.counting(service) : service, hostPort, {
      ...(signal ? { signal } : {}),
      ...(tally ? { waited: tally.slotWaited } : {}),
      priority: change ? 'change' : 'routine',
    });
    return this.reads.paced(limited, hostPort, tally?.tokenWaited, credit);
  }

  /**
   * A client of one Worker Deployment; `signal`, a reconcile's deadline, also cuts its calls off;
   * `tally` counts them; `credit`: read tokens taken ahead for them; `change`: its reconcile was
   * brought by a change (the high lane), and leaves the drainage records to routine looks.
   */
  async client(
    connection: TemporalConnection,
    address: WorkerDeploymentAddress,
    signal: AbortSignal,
    options: CallOptions = {},
  ) {
    const hostPort = connection.spec.hostPort;
    const paced = await this.paced(connection, signal, options);
    const service = this.namespaces.remembering(this.refusals.remembering(paced, hostPort), hostPort);
    return workerDeploymentClient(this.drainage.checking(service, hostPort, !options.change), address);
  }

  /** Closes the pooled client of a connection gone. */
  release(namespace: string, name: string): void {
    this.clients.release(namespace, name);
  }

  close(): Promise<void> {
    return this.clients.close();
  }
}
