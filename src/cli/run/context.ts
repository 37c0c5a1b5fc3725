// What every part of `twc run` is given: its settings, how to reach the cluster, the metrics
// registry and the logger.
import type { ClusterAccess } from '../../runtime/kube/cluster-access.ts';
import type { Logger } from '../../runtime/logger.ts';
import type { Metrics } from '../../runtime/metrics.ts';
import type { Config } from '../config.ts';

export interface RunContext {
  options: Config;
  access: ClusterAccess;
  metrics: Metrics;
  log: Logger;
}
