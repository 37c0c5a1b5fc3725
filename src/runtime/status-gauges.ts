// The gauges of each worker deployment's status as last written (status/figures.ts makes the
// figures): its conditions, builds per state, ramp, versions against their limits and ladder steps.
// Each worker deployment's series are kept as the lines a scrape writes, replaced together: 1.65 KiB
// per worker deployment, where prom-client's series (each also under a label string hashed from its
// labels) cost 4.2 and plain values 1.9 (test/bench/status-gauges.bench.ts); a scrape joins them
// instead of writing 13 series a worker deployment anew.
import type { GaugeConfiguration, MetricValue, Registry } from 'prom-client';
import type { StatusFigures } from '../domain/status-figures.ts';
import { seriesLines } from './exposition.ts';
import { WrittenGauge } from './written-gauge.ts';

type Series<T extends string> = MetricValue<T>;
type Owner = { namespace: string; worker_deployment: string };

/** One status gauge: its name, help and labels, and its series from a worker deployment's figures. */
interface StatusGauge<T extends string> {
  configuration: Omit<GaugeConfiguration<T>, 'registers'>;
  series: (owner: Owner, figures: StatusFigures) => Series<T>[];
}

const gauge = <T extends string>(definition: StatusGauge<T>): StatusGauge<string> => definition;

const STATUS_GAUGES = [
  gauge({
    configuration: {
      name: 'twc_worker_deployment_condition',
      help: "Each condition of a worker deployment's status as last written, with its reason: 1 while True, 0 while False or Unknown",
      labelNames: ['namespace', 'worker_deployment', 'type', 'reason'],
    },
    series: ({ namespace, worker_deployment }, { conditions }) =>
      conditions.map((c) => ({
        labels: { namespace, worker_deployment, type: c.type, reason: c.reason },
        value: c.true ? 1 : 0,
      })),
  }),
  gauge({
    configuration: {
      name: 'twc_worker_deployment_builds',
      help: "Builds a worker deployment's status lists, by state (NotRegistered, Inactive, Ramping, Current, Draining, Drained)",
      labelNames: ['namespace', 'worker_deployment', 'state'],
    },
    series: ({ namespace, worker_deployment }, { builds }) =>
      Object.entries(builds).map(([state, count]) => ({
        labels: { namespace, worker_deployment, state },
        value: count,
      })),
  }),
  gauge({
    configuration: {
      name: 'twc_worker_deployment_ramp_percentage',
      help: 'Share of new workflows routed to the target build while it ramps; no series otherwise',
      labelNames: ['namespace', 'worker_deployment', 'build_id'],
    },
    series: ({ namespace, worker_deployment }, { ramp }) =>
      ramp ? [{ labels: { namespace, worker_deployment, build_id: ramp.buildId }, value: ramp.percentage }] : [],
  }),
  gauge({
    configuration: {
      name: 'twc_worker_deployment_versions',
      help: 'Versions of a worker deployment counted against a limit: temporal, the versions Temporal records (limit --temporal-max-versions-in-deployment); ineligible, older builds that took traffic and are not yet drained and scaled to zero (limit --max-ineligible-versions)',
      labelNames: ['namespace', 'worker_deployment', 'counted'],
    },
    series: ({ namespace, worker_deployment }, { versions }) =>
      versions.map((v) => ({ labels: { namespace, worker_deployment, counted: v.counted }, value: v.count })),
  }),
  gauge({
    configuration: {
      name: 'twc_worker_deployment_versions_limit',
      help: 'The limit twc_worker_deployment_versions of the same labels is held to',
      labelNames: ['namespace', 'worker_deployment', 'counted'],
    },
    series: ({ namespace, worker_deployment }, { versions }) =>
      versions.map((v) => ({ labels: { namespace, worker_deployment, counted: v.counted }, value: v.limit })),
  }),
  gauge({
    configuration: {
      name: 'twc_pinned_workflows_ladder_step',
      help: 'The step of spec.sunset.pinnedWorkflows an old build has reached (Waiting, Signal, Cancel, Terminate): 1',
      labelNames: ['namespace', 'worker_deployment', 'build_id', 'step'],
    },
    series: ({ namespace, worker_deployment }, { ladder }) =>
      ladder.map((l) => ({ labels: { namespace, worker_deployment, build_id: l.buildId, step: l.step }, value: 1 })),
  }),
];

export class StatusGauges {
  /** Of each gauge, each worker deployment's lines by `namespace/name`. */
  private readonly gauges: { name: string; byKey: Map<string, string>; series: StatusGauge<string>['series'] }[];

  constructor(registry: Registry) {
    this.gauges = STATUS_GAUGES.map(({ configuration, series }) => {
      const byKey = new Map<string, string>();
      new WrittenGauge({ ...configuration, registers: [registry] }, () => byKey.values());
      return { name: configuration.name, byKey, series };
    });
  }

  /** The figures of one worker deployment's status as last written, replacing its earlier ones; undefined (the object gone) takes its series away. */
  set(namespace: string, name: string, figures: StatusFigures | undefined): void {
    const [key, owner] = [`${namespace}/${name}`, { namespace, worker_deployment: name }];
    for (const gauge of this.gauges) {
      const series = figures ? gauge.series(owner, figures) : [];
      if (series.length > 0) gauge.byKey.set(key, seriesLines(gauge.name, series));
      else gauge.byKey.delete(key);
    }
  }
}
