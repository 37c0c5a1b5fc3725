// A failing run as something to read and to run again: the seed, the violated invariant and the
// steps (shortened by shrink.ts), written to a JSON file that `npm run simulate -- --replay FILE`
// runs exactly as it ran here.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Violation } from './invariants.ts';
import { shrink } from './shrink.ts';
import { type Outcome, runSteps, type Step } from './simulation.ts';

export interface Replay {
  seed: number;
  invariant: string;
  steps: Step[];
}

/** The shortest list of the outcome's steps found that still breaks the same invariant. */
export async function shrunk(outcome: Outcome, maxRuns?: number): Promise<{ outcome: Outcome; runs: number }> {
  const violation = outcome.violation;
  if (!violation) return { outcome, runs: 0 };
  const fails = async (steps: Step[]) =>
    (await runSteps(outcome.seed, steps)).violation?.invariant === violation.invariant;
  const { steps, runs } = await shrink(outcome.steps.slice(0, violation.step + 1), {
    fails,
    simplify: (step) => (step.event ? { advanceMs: step.advanceMs } : undefined),
    ...(maxRuns === undefined ? {} : { maxRuns }),
  });
  return { outcome: await runSteps(outcome.seed, steps), runs };
}

export function writeReplay(outcome: Outcome, directory = join(tmpdir(), 'twc-simulation')): string {
  mkdirSync(directory, { recursive: true });
  const file = join(directory, `seed-${outcome.seed}-${outcome.violation?.invariant ?? 'ok'}.json`);
  const replay: Replay = { seed: outcome.seed, invariant: outcome.violation?.invariant ?? '', steps: outcome.steps };
  writeFileSync(file, `${JSON.stringify(replay, null, 1)}\n`);
  return file;
}

export function readReplay(file: string): Replay {
  return JSON.parse(readFileSync(file, 'utf8')) as Replay;
}

function describeStep(step: Step): string {
  const at = `+${Math.round(step.advanceMs / 1000)}s`.padStart(6);
  if (!step.event) return `${at}  (time passes)`;
  const { ...event } = step.event as Record<string, unknown>;
  const kind = 'user' in event ? `user ${String(event.user)}` : `fault ${String(event.fault)}`;
  delete event.user;
  delete event.fault;
  const rest = Object.keys(event).length > 0 ? ` ${JSON.stringify(event)}` : '';
  return `${at}  ${kind}${rest}`;
}

/** What a failing run says, for a person to read. */
export function describeFailure(outcome: Outcome, violation: Violation, file?: string): string {
  const lines = [
    `seed ${outcome.seed}: ${violation.invariant} at step ${violation.step + 1}: ${violation.message}`,
    ...(file ? [`  replay: npm run simulate -- --replay ${file}`] : []),
    `  steps (${outcome.steps.length}):`,
    ...outcome.steps.map((s, i) => `  ${String(i + 1).padStart(4)} ${describeStep(s)}`),
    `  calls of the last step:`,
    ...(outcome.lastCalls ?? []).map((c) => `       ${c.startsWith('reconcile') ? '' : '  '}${c}`),
  ];
  return lines.join('\n');
}
