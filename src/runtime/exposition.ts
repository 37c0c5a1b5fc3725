// The Prometheus text of a registry's metrics, in parts of a few hundred series, as registry.metrics()
// writes it whole. prom-client makes each metric's lines all at once and the whole text from them;
// here each part is made when the client has taken the one before. Measured
// (test/bench/scrape-memory.bench.ts): 20 scrapes of 3,000 worker deployments added about 50 MiB
// to the peak RSS against 60 made whole; at 1,000, no difference. Gauges and counters are written
// here (the metrics of thousands of series are gauges); histograms, as prom-client writes them.
import type { Metric, MetricValue, Registry } from 'prom-client';

/** Series a part holds at most: some 50 KiB of text. */
const SERIES_PER_PART = 500;

/** The metrics named, in order, a blank line between them. */
export async function* exposition(registry: Registry, names: readonly string[]): AsyncGenerator<string> {
  let gap = '';
  for (const name of names) {
    const metric = registry.getSingleMetric(name);
    if (!metric) continue;
    if (!isPlain(metric)) {
      yield `${gap}${await registry.getSingleMetricAsString(name)}\n`;
    } else {
      const family = await metric.get();
      const escapedName = escape(family.name);
      yield `${gap}# HELP ${escapedName} ${escape(family.help)}\n# TYPE ${escapedName} ${family.type}\n`;
      for (let from = 0; from < family.values.length; from += SERIES_PER_PART)
        yield family.values
          .slice(from, from + SERIES_PER_PART)
          .map((value) => `${line(escapedName, value)}\n`)
          .join('');
    }
    gap = '\n';
  }
}

/** A gauge or counter: its series are its values, each a name, labels and a number. */
function isPlain(metric: Metric): boolean {
  const type = (metric as unknown as { type?: string }).type;
  return type === 'gauge' || type === 'counter';
}

/** One series; `name` escaped already. */
function line(name: string, { labels, value }: MetricValue<string>): string {
  const pairs = Object.entries(labels ?? {}).map(
    ([label, v]) => `${label}="${typeof v === 'string' ? escape(v).replace(/"/g, '\\"') : v}"`,
  );
  return `${name}${pairs.length > 0 ? `{${pairs.join(',')}}` : ''} ${number(value)}`;
}

function escape(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** As prom-client writes a value ("Nan" included). */
function number(value: number): string {
  if (Number.isNaN(value)) return 'Nan';
  if (!Number.isFinite(value)) return value < 0 ? '-Inf' : '+Inf';
  return `${value}`;
}
