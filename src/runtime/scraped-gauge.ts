// A prom-client gauge whose series are made at each scrape from figures kept elsewhere (the builds'
// backlog, runtime/metrics.ts).
import { Gauge, type GaugeConfiguration } from 'prom-client';

type Family<T extends string> = Awaited<ReturnType<Gauge<T>['get']>>;

/**
 * Its series are what `series` gives at each scrape. Set one by one, as a collect() does, each
 * would also keep a key made of its labels until the next scrape, thousands of them at once.
 */
export class ScrapedGauge<T extends string> extends Gauge<T> {
  private readonly series: () => Family<T>['values'];

  constructor(configuration: GaugeConfiguration<T>, series: () => Family<T>['values']) {
    super(configuration);
    this.series = series;
  }

  override async get(): Promise<Family<T>> {
    return { ...(await super.get()), values: this.series() };
  }
}
