// The Prometheus text of a registry's metrics, in parts of a few hundred series, as registry.metrics()
// writes it whole. At a thousand worker deployments a scrape is some 5 MiB of text, and
// prom-client makes each metric's lines all at once: they live long enough to be moved to V8's old
// space, which a scrape every 10 s grew by tens of MiB between collections. Parts made as the
// client takes them die young. Gauges and counters are written here (the metrics of thousands of
// series are gauges); histograms, as prom-client writes them.
import type { Metric, MetricObjectWithValues, MetricValue, Registry } from 'prom-client';

/** Series a part holds at most: some 50 KiB of text. */
const SERIES_PER_PART = 500;

/** The metrics named, in order, a blank line between them. */
export async function* exposition(registry: Registry, names: readonly string[]): AsyncGenerator<string> {
  for (const [index, name] of names.entries()) {
    const metric = registry.getSingleMetric(name);
    if (!metric) continue;
    const gap = index === 0 ? '' : '\n';
    if (!isPlain(metric)) {
      yield `${gap}${await registry.getSingleMetricAsString(name)}\n`;
      continue;
    }
    const family = await metric.get();
    yield `${gap}${header(family)}\n`;
    for (let from = 0; from < family.values.length; from += SERIES_PER_PART)
      yield family.values
        .slice(from, from + SERIES_PER_PART)
        .map((value) => `${line(family.name, value)}\n`)
        .join('');
  }
}

/** A gauge or counter: its series are its values, each a name, labels and a number. */
function isPlain(metric: Metric): boolean {
  const type = (metric as unknown as { type?: string }).type;
  return type === 'gauge' || type === 'counter';
}

function header({ name, help, type }: MetricObjectWithValues<MetricValue<string>>): string {
  const escaped = escape(name);
  return `# HELP ${escaped} ${escape(help)}\n# TYPE ${escaped} ${type}`;
}

function line(name: string, { labels, value }: MetricValue<string>): string {
  const pairs = Object.entries(labels ?? {}).map(
    ([label, v]) => `${label}="${typeof v === 'string' ? escape(v).replace(/"/g, '\\"') : v}"`,
  );
  return `${escape(name)}${pairs.length > 0 ? `{${pairs.join(',')}}` : ''} ${number(value)}`;
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
