// The Prometheus text of a registry's metrics, in parts of some 48 KiB, as registry.metrics() writes
// it whole. prom-client makes each metric's lines all at once and the whole text from them; here
// each part is made when the client has taken the one before. Gauges and counters are written here
// (the metrics of thousands of series are gauges); histograms, as prom-client writes them. A gauge
// may keep its series as their lines already written (WrittenSeries, written-gauge.ts): a scrape
// then joins them. Written anew from labels objects at each scrape, the 2.5 MiB of 1,000 worker
// deployments made 44 MiB of garbage; 6.6 MiB now (test/bench/scrape-memory.bench.ts).
import type { LabelValues, Metric, MetricType, MetricValue, Registry } from 'prom-client';

/** Characters a part holds at least before it is written (one chunk of series more at most). */
const PART_CHARACTERS = 48 * 1024;

/** A metric that keeps its series as their lines, written by `seriesLines` or `seriesLine` with its name. */
export interface WrittenSeries {
  /** Its name, help and type, and its series as runs of whole lines. */
  writtenSeries(): Promise<WrittenFamily>;
}

export interface WrittenFamily {
  name: string;
  help: string;
  type: MetricType;
  /** Each ends in a newline. */
  lines: Iterable<string>;
}

/** The metrics named, in order, a blank line between them. */
export async function* exposition(registry: Registry, names: readonly string[]): AsyncGenerator<string> {
  let gap = '';
  for (const name of names) {
    const metric = registry.getSingleMetric(name);
    if (!metric) continue;
    if (!isPlain(metric)) {
      yield `${gap}${await registry.getSingleMetricAsString(name)}\n`;
    } else {
      const family = isWritten(metric) ? await metric.writtenSeries() : await metric.get();
      const escapedName = escape(family.name);
      yield `${gap}# HELP ${escapedName} ${escape(family.help)}\n# TYPE ${escapedName} ${family.type}\n`;
      yield* inParts('lines' in family ? family.lines : linesOf(escapedName, family.values));
    }
    gap = '\n';
  }
}

/** The lines of `series` of the metric named `name` (escaped already), as prom-client writes them. */
export function seriesLines(name: string, series: readonly MetricValue<string>[]): string {
  return series.map(({ labels, value }) => seriesLine(name, labelsText(labels), value)).join('');
}

/** One series' line: `labels` as labelsText() writes them. */
export function seriesLine(name: string, labels: string, value: number): string {
  return `${name}${labels} ${number(value)}\n`;
}

/** `{label="value",…}`, or nothing for no labels. Written by concatenation: a scrape may write thousands. */
export function labelsText(labels: LabelValues<string> | undefined): string {
  let text = '';
  let separator = '{';
  for (const label in labels) {
    text += `${separator}${label}="${labelValue(labels[label])}"`;
    separator = ',';
  }
  return separator === ',' ? `${text}}` : text;
}

function* linesOf(name: string, series: readonly MetricValue<string>[]): Generator<string> {
  for (const { labels, value } of series) yield seriesLine(name, labelsText(labels), value);
}

/** The series `seriesLines` wrote, read back (prom-client's `get()` of a WrittenSeries). */
export function readSeriesLines(text: string): MetricValue<string>[] {
  const series: MetricValue<string>[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const labelsEnd = line.lastIndexOf('} ');
    const labels: LabelValues<string> = {};
    for (const [, label, v] of line.slice(0, labelsEnd + 1).matchAll(LABEL_PAIR))
      labels[label as string] = (v as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    series.push({ labels, value: readNumber(line.slice(line.lastIndexOf(' ') + 1)) });
  }
  return series;
}

const LABEL_PAIR = /([A-Za-z_]\w*)="((?:[^"\\]|\\.)*)"/g;

/** Chunks of text joined into parts of PART_CHARACTERS or a chunk more. */
function* inParts(chunks: Iterable<string>): Generator<string> {
  let part: string[] = [];
  let characters = 0;
  for (const chunk of chunks) {
    part.push(chunk);
    characters += chunk.length;
    if (characters >= PART_CHARACTERS) {
      yield part.join('');
      [part, characters] = [[], 0];
    }
  }
  if (part.length > 0) yield part.join('');
}

/** A gauge or counter: its series are its values, each a name, labels and a number. */
function isPlain(metric: Metric): boolean {
  const type = (metric as unknown as { type?: string }).type;
  return type === 'gauge' || type === 'counter';
}

function isWritten(metric: Metric): metric is Metric & WrittenSeries {
  return typeof (metric as Partial<WrittenSeries>).writtenSeries === 'function';
}

const SPECIAL = /[\\\n"]/;

function labelValue(v: string | number | undefined): string | number | undefined {
  return typeof v === 'string' && SPECIAL.test(v) ? escape(v).replace(/"/g, '\\"') : v;
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

function readNumber(text: string): number {
  if (text === 'Nan') return NaN;
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}
