// The Lease the replicas of `twc run` stand by for (--leader-elect): the leader reconciles; one
// that loses the Lease exits at once, and Kubernetes restarts it as a standby.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { KubernetesApi } from '../../runtime/kube/api-client.ts';
import { LeaderElector, leaseApi } from '../../runtime/leader-election.ts';
import type { RunContext } from './context.ts';

export interface Leadership {
  readonly isLeader: boolean;
  /** Tries for the Lease until it is held; then `lead` runs. */
  start(): void;
  /** Gives the Lease up. */
  stop(): Promise<void>;
}

export function leadership({ options, access, metrics, log }: RunContext, lead: () => void): Leadership {
  const lease = options.leaderElectionId;
  const leaseLog = log.child({ lease: `${options.leaderElectionNamespace}/${lease}` });
  const elector = new LeaderElector({
    // Apart from the controller's client: a renewal never waits behind its rate limit.
    api: leaseApi(new KubernetesApi({ access, count: metrics.countKubernetesRequest })),
    namespace: options.leaderElectionNamespace,
    name: lease,
    // The pod name, made unique: a restarted container must not pass for its predecessor.
    identity: `${process.env.POD_NAME ?? hostname()}_${randomBytes(4).toString('hex')}`,
    leaseDurationMs: options.leaderElectLeaseDuration,
    renewDeadlineMs: options.leaderElectRenewDeadline,
    renewPeriodMs: options.leaderElectRenewPeriod,
    retryPeriodMs: options.leaderElectRetryPeriod,
    onStartedLeading: () => {
      metrics.setLeader(lease, true);
      lead();
    },
    onStoppedLeading: (reason) => {
      metrics.setLeader(lease, false);
      // Another replica may be reconciling already: stop now, and let Kubernetes restart us.
      leaseLog.error(`lost leadership (${reason}); exiting`);
      process.exit(1);
    },
    log: leaseLog,
  });
  return {
    get isLeader() {
      return elector.isLeader;
    },
    start: () => {
      metrics.setLeader(lease, false);
      leaseLog.info('waiting to lead');
      elector.start();
    },
    stop: () => elector.stop(),
  };
}
