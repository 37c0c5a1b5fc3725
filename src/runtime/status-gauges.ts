// The gauges of each worker deployment's status as last written (status/figures.ts makes the
// figures): its conditions, builds per state, ramp, versions against their limits and ladder steps.
// Each worker deployment's figures are kept as given and its series made at each scrape: kept as
// prom-client keeps series set (a label string and a labels object per series), some 18 series
// each cost about 5 KiB per worker deployment, 5 MiB at a thousand.
import { Gauge, type GaugeConfiguration, type Registry } from 'prom-client';
import type { StatusFigures } from '../domain/status-figures.ts';

type Family<T extends string> = Awaited<ReturnType<Gauge<T>['get']>>;
type Series<T extends string> = Family<T>['values'][number];

type Owner = { namespace: string; worker_deployment: string };

/** A gauge whose series are made by `series` at each scrape instead of kept as set. */
class ComputedGauge<T extends string> extends Gauge<T> {
  private readonly series: () => Series<T>[];

  constructor(configuration: GaugeConfiguration<T>, series: () => Series<T>[]) {
    super(configuration);
    this.series = series;
  }

  override async get(): Promise<Family<T>> {
    // Its name, help, type and aggregator; nothing is set on it, so no series of its own.
    const family = await super.get();
    return { ...family, values: this.series() };
  }
}

export class StatusGauges {
  /** By `namespace/name`. */
  private readonly figures = new Map<string, { owner: Owner; figures: StatusFigures }>();

  constructor(registry: Registry) {
    const registers = [registry];
    const each =
      <T extends string>(series: (owner: Owner, figures: StatusFigures) => Series<T>[]) =>
      () =>
        [...this.figures.values()].flatMap(({ owner, figures }) => series(owner, figures));
    new ComputedGauge(
      {
        name: 'twc_worker_deployment_condition',
        help: "Each condition of a worker deployment's status as last written, with its reason: 1 while True, 0 while False or Unknown",
        labelNames: ['namespace', 'worker_deployment', 'type', 'reason'],
        registers,
      },
      each((owner, { conditions }) =>
        conditions.map((c) => ({ labels: { ...owner, type: c.type, reason: c.reason }, value: c.true ? 1 : 0 })),
      ),
    );
    new ComputedGauge(
      {
        name: 'twc_worker_deployment_builds',
        help: "Builds a worker deployment's status lists, by state (NotRegistered, Inactive, Ramping, Current, Draining, Drained)",
        labelNames: ['namespace', 'worker_deployment', 'state'],
        registers,
      },
      each((owner, { builds }) =>
        Object.entries(builds).map(([state, count]) => ({ labels: { ...owner, state }, value: count })),
      ),
    );
    new ComputedGauge(
      {
        name: 'twc_worker_deployment_ramp_percentage',
        help: 'Share of new workflows routed to the target build while it ramps; no series otherwise',
        labelNames: ['namespace', 'worker_deployment', 'build_id'],
        registers,
      },
      each((owner, { ramp }) =>
        ramp ? [{ labels: { ...owner, build_id: ramp.buildId }, value: ramp.percentage }] : [],
      ),
    );
    new ComputedGauge(
      {
        name: 'twc_worker_deployment_versions',
        help: 'Versions of a worker deployment counted against a limit: temporal, the versions Temporal records (limit --temporal-max-versions-in-deployment); ineligible, older builds that took traffic and are not yet drained and scaled to zero (limit --max-ineligible-versions)',
        labelNames: ['namespace', 'worker_deployment', 'counted'],
        registers,
      },
      each((owner, { versions }) =>
        versions.map((v) => ({ labels: { ...owner, counted: v.counted }, value: v.count })),
      ),
    );
    new ComputedGauge(
      {
        name: 'twc_worker_deployment_versions_limit',
        help: 'The limit twc_worker_deployment_versions of the same labels is held to',
        labelNames: ['namespace', 'worker_deployment', 'counted'],
        registers,
      },
      each((owner, { versions }) =>
        versions.map((v) => ({ labels: { ...owner, counted: v.counted }, value: v.limit })),
      ),
    );
    new ComputedGauge(
      {
        name: 'twc_pinned_workflows_ladder_step',
        help: 'The step of spec.sunset.pinnedWorkflows an old build has reached (Waiting, Signal, Cancel, Terminate): 1',
        labelNames: ['namespace', 'worker_deployment', 'build_id', 'step'],
        registers,
      },
      each((owner, { ladder }) =>
        ladder.map((l) => ({ labels: { ...owner, build_id: l.buildId, step: l.step }, value: 1 })),
      ),
    );
  }

  /** The figures of one worker deployment's status as last written, replacing its earlier ones; undefined (the object gone) takes its series away. */
  set(namespace: string, name: string, figures: StatusFigures | undefined): void {
    const key = `${namespace}/${name}`;
    if (figures) this.figures.set(key, { owner: { namespace, worker_deployment: name }, figures });
    else this.figures.delete(key);
  }
}
