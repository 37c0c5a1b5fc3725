// Every default that more than one place applies, stated once (as the Go controller's
// internal/defaults). The schema's: the API server fills them in, and the code applies the same
// where a field is absent. `twc run`'s: the flags table (cli/config.ts) shows and parses them, and
// the Controller, the Temporal client and the leader election take them where their options
// leave one out. Defaults read in one place only stay there: the flags of addresses and names in
// cli/config.ts, a connection's DEFAULT_CA_KEY and DEFAULT_TOKEN_SECONDS beside its schema.

/** spec.sunset. */
export const SUNSET_DEFAULTS = { scaledownDelay: '1h', deleteDelay: '24h', unusedBuildDeleteDelay: '1h' } as const;

/** spec.rollout.strategy, also when the spec has no rollout. */
export const DEFAULT_STRATEGY = 'AllAtOnce' as const;

/** spec.rollout.analysis; maxWait, used only with tooFewSamples: Wait, has no schema default but its description. */
export const ANALYSIS_DEFAULTS = { minSamples: 10, tooFewSamples: 'Wait', maxWait: '10m', onFailure: 'Abort' } as const;

/** spec.minReadySeconds and spec.progressDeadlineSeconds, Kubernetes' own for a Deployment. */
export const DEPLOYMENT_DEFAULTS = { minReadySeconds: 0, progressDeadlineSeconds: 600 } as const;

/** --poll-interval. */
export const DEFAULT_POLL_INTERVAL_MS = 10_000;

/**
 * --concurrency: worker deployments reconciled at once. A reconcile mostly waits: on Temporal (a
 * routing change is an update of the Worker Deployment's own workflow, a second or two on the
 * server), on its read tokens, on Kubernetes. Four slots of two seconds allowed about two rollouts
 * a second at best; the calls to Temporal have a limit of their own (--temporal-concurrency), and
 * the CPU a reconcile spends (a few milliseconds) stays bounded by this.
 */
export const DEFAULT_CONCURRENCY = 32;

/**
 * --temporal-concurrency: calls to Temporal in flight at once per Temporal namespace through each
 * frontend, reads and writes, from every reconcile and the backlog figures together (routine
 * ones at most half). Well under a namespace's rate limits (hundreds of calls a second by
 * default): at a second or two a routing change, 16 in flight make at most about ten a second.
 */
export const DEFAULT_TEMPORAL_CONCURRENCY = 16;

/** --max-ineligible-versions. */
export const DEFAULT_MAX_INELIGIBLE_VERSIONS = 75;

/** --temporal-max-versions-in-deployment: Temporal's own default of matching.maxVersionsInDeployment. */
export const DEFAULT_MAX_VERSIONS_IN_DEPLOYMENT = 100;

/** --rollback-window. */
export const DEFAULT_ROLLBACK_WINDOW_MS = 3_600_000;

/**
 * --certificate-expiry-warning: how long before a certificate of a connection's Secrets expires the
 * connection and its worker deployments say so (cert-manager renews a 90-day certificate 30 days
 * ahead; a week leaves time for a person to act on one renewed by hand).
 */
export const DEFAULT_CERTIFICATE_EXPIRY_WARNING_MS = 7 * 86_400_000;

/**
 * --poller-history: how long Temporal remembers a poller, the server's matching.PollerHistoryTTL
 * (5 minutes by default). A current or ramping build whose Deployments have been available this
 * long, and on one of whose task queues Temporal then remembers no poller of it, says NoPollers.
 */
export const DEFAULT_POLLER_HISTORY_MS = 300_000;

/** --temporal-read-budget: reads per second of each Temporal namespace through each frontend. */
export const DEFAULT_READS_PER_SECOND = 20;

/**
 * --temporal-read-timeout and --temporal-write-timeout. Reads 10 s: a healthy frontend answers
 * them in milliseconds (a whole reconcile took 2.5 s at its 99th percentile in the scale run), and
 * a read given up costs nothing but a look later; the connect check always had 10 s. Writes 30 s:
 * a routing change is an update of the Worker Deployment's own workflow, which takes seconds while
 * that workflow is busy, and a write cut off may still take effect while asking again queues
 * another update behind it.
 */
export const DEFAULT_CALL_TIMEOUTS: Readonly<{ readMs: number; writeMs: number }> = { readMs: 10_000, writeMs: 30_000 };

/**
 * --reconcile-timeout: a backstop for what no call's own timeout bounds (many slow calls in a
 * row). A reconcile takes a second or two (2.5 s at the scale run's 99th percentile), and one whose
 * Temporal call ran out its timeout (30 s for a write) still has the time to write a status that
 * says so (a Kubernetes request waits up to 30 s), so the reconcile's own deadline seldom has to
 * cut anything off.
 */
export const DEFAULT_RECONCILE_TIMEOUT_MS = 120_000;

/** --leader-elect-lease-duration, --leader-elect-renew-deadline, --leader-elect-renew-period and --leader-elect-retry-period. */
export const LEADER_ELECTION_DEFAULTS = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  renewPeriodMs: 5_000,
  retryPeriodMs: 2_000,
} as const;
