// `npm run mutation`, after Stryker: the mutation score of each mutated file, of each folder and of
// all, read from Stryker's JSON report, beside its goal (each file of src/planner and src/status at
// least 85 %, the whole at least 92 %). A mutant counts as killed when a test failed or timed out
// on it (Stryker's "detected"); the total counts every valid mutant: killed, survived and not covered
// (compile and runtime errors, and mutants disabled in the source, count in neither). Prints
// figures; asserts nothing. `--survivors` also lists each mutant that lived: file:line, mutator,
// original → replacement.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const FILE_GOAL = 85;
const TOTAL_GOAL = 92;
const FOLDERS = ['src/planner', 'src/status'];

interface Position {
  line: number;
  column: number;
}

interface Mutant {
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: Position; end: Position };
}

interface Report {
  files: Record<string, { source: string; mutants: Mutant[] }>;
}

const { values } = parseArgs({
  options: {
    report: { type: 'string', default: 'reports/mutation/mutation.json' },
    survivors: { type: 'boolean', default: false },
  },
});
const report = JSON.parse(readFileSync(values.report, 'utf8')) as Report;

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

function score(prefix: string): { killed: number; total: number } {
  let killed = 0;
  let total = 0;
  for (const [file, { mutants }] of Object.entries(report.files)) {
    if (!file.startsWith(prefix)) continue;
    for (const m of mutants) {
      if (DETECTED.has(m.status)) killed++;
      if (DETECTED.has(m.status) || UNDETECTED.has(m.status)) total++;
    }
  }
  return { killed, total };
}

const files = Object.keys(report.files).sort();
const rows = [
  ...files.map((f) => [f, score(f), FILE_GOAL] as const),
  ...FOLDERS.map((f) => [f, score(`${f}/`), FILE_GOAL] as const),
  ['total', score(''), TOTAL_GOAL] as const,
];
const width = Math.max(...rows.map(([name]) => name.length));
for (const [name, { killed, total }, goal] of rows) {
  const percent = total ? (100 * killed) / total : 100;
  console.log(
    `${name.padEnd(width)}  ${String(killed).padStart(4)} / ${String(total).padStart(4)} mutants killed  ${percent.toFixed(2).padStart(6)} %  goal ≥ ${goal} %${percent < goal ? '  (below the goal)' : ''}`,
  );
}

if (values.survivors) {
  /** The original text of a mutant's span, on one line. */
  const original = (source: string, { start, end }: Mutant['location']): string => {
    const lines = source.split('\n');
    const text =
      start.line === end.line
        ? (lines[start.line - 1] ?? '').slice(start.column - 1, end.column - 1)
        : [
            (lines[start.line - 1] ?? '').slice(start.column - 1),
            ...lines.slice(start.line, end.line - 1),
            (lines[end.line - 1] ?? '').slice(0, end.column - 1),
          ].join('\n');
    return oneLine(text);
  };
  /** On one line, and cut short past 100 characters. */
  const oneLine = (text: string): string => {
    const line = text.replace(/\s*\n\s*/g, ' ');
    return line.length > 100 ? `${line.slice(0, 99)}…` : line;
  };
  for (const [file, { source, mutants }] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b)))
    for (const m of mutants
      .filter((m) => UNDETECTED.has(m.status))
      .sort(
        (a, b) => a.location.start.line - b.location.start.line || a.location.start.column - b.location.start.column,
      ))
      console.log(
        `${file}:${m.location.start.line} ${m.mutatorName}${m.status === 'NoCoverage' ? ' (no coverage)' : ''}: ${original(source, m.location)} → ${oneLine(m.replacement ?? '')}`,
      );
}
