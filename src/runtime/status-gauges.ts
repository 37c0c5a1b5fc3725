// The gauges of each worker deployment's status as last written (status/figures.ts makes the
// figures): its conditions, builds per state, ramp, versions against their limits and ladder steps.
// Each worker deployment's series are kept as plain values, replaced together, and listed at each
// scrape. Kept as prom-client keeps series set (each also under a label string hashed from its
// labels), they cost 4.2 KiB per worker deployment; as here, 1.9 KiB, and a scrape no more
// (test/bench/status-gauges.bench.ts).
import { Gauge, type GaugeConfiguration, type Registry } from 'prom-client';
import type { StatusFigures } from '../domain/status-figures.ts';

type Family<T extends string> = Awaited<ReturnType<Gauge<T>['get']>>;
type Series<T extends string> = Family<T>['values'][number];
type Owner = { namespace: string; worker_deployment: string };

/** A gauge whose series are set per key, all of a key's at once, and kept as given. */
class KeyedGauge<T extends string> extends Gauge<T> {
  private readonly byKey = new Map<string, Series<T>[]>();

  /** The series of `key`, replacing its earlier ones; none takes them away. */
  setSeries(key: string, series: Series<T>[]): void {
    if (series.length > 0) this.byKey.set(key, series);
    else this.byKey.delete(key);
  }

  override async get(): Promise<Family<T>> {
    // Its name, help, type and aggregator: nothing is set through prom-client, so no series of its own.
    const family = await super.get();
    return { ...family, values: [...this.byKey.values()].flat() };
  }
}

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
  private readonly gauges: { gauge: KeyedGauge<string>; series: StatusGauge<string>['series'] }[];

  constructor(registry: Registry) {
    this.gauges = STATUS_GAUGES.map(({ configuration, series }) => ({
      gauge: new KeyedGauge({ ...configuration, registers: [registry] }),
      series,
    }));
  }

  /** The figures of one worker deployment's status as last written, replacing its earlier ones; undefined (the object gone) takes its series away. */
  set(namespace: string, name: string, figures: StatusFigures | undefined): void {
    const [key, owner] = [`${namespace}/${name}`, { namespace, worker_deployment: name }];
    for (const { gauge, series } of this.gauges) gauge.setSeries(key, figures ? series(owner, figures) : []);
  }
}
