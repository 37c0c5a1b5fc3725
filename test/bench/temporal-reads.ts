// The budgeted Temporal reads a controller has made so far, by method, from its metrics: what the
// read benchmarks compare before and after a steady spell.
import type { Metrics } from '../../src/runtime/metrics.ts';
import { BUDGETED_READS } from '../../src/temporal/read-budget.ts';

/** As the metrics name them: `DescribeWorkerDeployment`, … */
const READ_METHODS = new Set([...BUDGETED_READS].map((m) => m[0]?.toUpperCase() + m.slice(1)));

export async function budgetedReads(from: Metrics): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const v of (await from.registry.getSingleMetric('twc_temporal_requests_total')?.get())?.values ?? []) {
    const method = String(v.labels.method);
    if (READ_METHODS.has(method)) counts.set(method, (counts.get(method) ?? 0) + v.value);
  }
  return counts;
}
