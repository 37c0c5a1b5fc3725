// A prom-client gauge whose series are given as their lines of text (exposition.ts's seriesLines or
// seriesLine write them): the status gauges keep each worker deployment's lines as last written,
// the backlog gauges write theirs at each scrape. A scrape joins the lines; set through prom-client,
// each series would be a labels object also kept under a key made of its labels, and written anew
// at each scrape.
import { Gauge, type GaugeConfiguration } from 'prom-client';
import { readSeriesLines, type WrittenFamily, type WrittenSeries } from './exposition.ts';

type Family<T extends string> = Awaited<ReturnType<Gauge<T>['get']>>;

export class WrittenGauge<T extends string> extends Gauge<T> implements WrittenSeries {
  private readonly lines: () => Iterable<string>;

  /** `lines`: runs of whole lines of this gauge's series, each ending in a newline. */
  constructor(configuration: GaugeConfiguration<T>, lines: () => Iterable<string>) {
    super(configuration);
    this.lines = lines;
  }

  async writtenSeries(): Promise<WrittenFamily> {
    // Its name, help and type: nothing is set through prom-client, so no series of its own.
    const { name, help, type } = await super.get();
    return { name, help, type, lines: this.lines() };
  }

  /** As prom-client's own API gives a metric (registry.metrics()); a scrape writes writtenSeries(). */
  override async get(): Promise<Family<T>> {
    return { ...(await super.get()), values: [...this.lines()].flatMap(readSeriesLines) };
  }
}
