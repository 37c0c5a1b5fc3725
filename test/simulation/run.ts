// npm run simulate: runs seeds of the deterministic simulation (simulation.ts) and prints, for each
// invariant broken, the first seed that broke it with its shrunk replay.
//   --seeds N      how many seeds (default 200), from --start (default 1)
//   --steps N      steps per seed (default 200)
//   --minutes M    open-ended: new seeds until the time is up
//   --seed N       one seed, shrunk and printed if it fails
//   --replay FILE  runs a replay file exactly
//   --threads N    worker threads (default: the machine's cores)
//   --no-shrink    print failures as found
//   --list         one line per failing seed
import { parseArgs } from 'node:util';
import type { InvariantName } from './invariants.ts';
import { runPool, type SeedResult } from './pool.ts';
import { describeFailure, readReplay, shrunk, writeReplay } from './replay.ts';
import { type Outcome, runSeed, runSteps } from './simulation.ts';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '200' },
    start: { type: 'string', default: '1' },
    steps: { type: 'string', default: '200' },
    minutes: { type: 'string' },
    seed: { type: 'string' },
    replay: { type: 'string' },
    threads: { type: 'string' },
    'no-shrink': { type: 'boolean', default: false },
    list: { type: 'boolean', default: false },
  },
});
const steps = Number(values.steps);

async function report(outcome: Outcome): Promise<void> {
  if (!outcome.violation) return;
  const found = values['no-shrink'] ? { outcome, runs: 0 } : await shrunk(outcome);
  const violation = found.outcome.violation ?? outcome.violation;
  const file = writeReplay(found.outcome);
  console.log(describeFailure(found.outcome, violation, file));
  if (found.runs > 0) console.log(`  (shrunk from ${outcome.steps.length} steps in ${found.runs} runs)`);
  console.log(`  again from the seed: npm run simulate -- --seed ${outcome.seed} --steps ${steps}\n`);
}

if (values.replay) {
  const replay = readReplay(values.replay);
  const outcome = await runSteps(replay.seed, replay.steps);
  if (outcome.violation) console.log(describeFailure(outcome, outcome.violation));
  else console.log(`seed ${replay.seed}: the ${replay.steps.length} steps break nothing now`);
  process.exitCode = outcome.violation ? 1 : 0;
} else if (values.seed !== undefined) {
  const outcome = await runSeed(Number(values.seed), steps);
  if (outcome.violation) await report(outcome);
  else
    console.log(`seed ${values.seed}: ${outcome.steps.length} steps, ${outcome.reconciles} reconciles, nothing broken`);
  process.exitCode = outcome.violation ? 1 : 0;
} else {
  const start = Number(values.start);
  const count = Number(values.seeds);
  const deadline = values.minutes === undefined ? undefined : Date.now() + Number(values.minutes) * 60_000;
  let next = start;
  const found = new Map<InvariantName, number[]>();
  let seeds = 0;
  let stepsRun = 0;
  let reconciles = 0;
  let judged = 0;
  let staleView = 0;
  const began = performance.now();
  const cpu = process.cpuUsage();
  await runPool({
    steps,
    ...(values.threads ? { threads: Number(values.threads) } : {}),
    nextSeed: () => {
      if (deadline !== undefined ? Date.now() >= deadline : next >= start + count) return undefined;
      return next++;
    },
    onResult: (result: SeedResult) => {
      seeds++;
      stepsRun += result.steps;
      reconciles += result.reconciles;
      if (result.livenessJudged) judged++;
      staleView += result.routedOnStaleView;
      if (result.violation && values.list)
        console.log(
          `seed ${result.seed}: ${result.violation.invariant} at step ${result.violation.step + 1}: ${result.violation.message}`,
        );
      if (result.violation) {
        const list = found.get(result.violation.invariant) ?? [];
        list.push(result.seed);
        found.set(result.violation.invariant, list);
      }
    },
  });
  const seconds = (performance.now() - began) / 1000;
  const used = process.cpuUsage(cpu);
  console.log(
    `${seeds} seeds (${start}..${next - 1}) of up to ${steps} steps: ${stepsRun} steps, ${reconciles} reconciles in ${seconds.toFixed(1)} s ` +
      `(${((seconds * 1000) / Math.max(1, reconciles)).toFixed(3)} ms per reconcile wall, ${((used.user + used.system) / 1000 / Math.max(1, reconciles)).toFixed(3)} ms CPU)`,
  );
  console.log(`liveness judged (target expected current, and current) on ${judged} seeds`);
  console.log(`routings to a build whose Pod was lost while the informer still showed it ready: ${staleView}`);
  if (found.size === 0) console.log('no invariant broken');
  for (const [invariant, list] of found)
    console.log(
      `${invariant}: ${list.length} seeds (${list.slice(0, 20).join(', ')}${list.length > 20 ? ', ...' : ''})`,
    );
  console.log('');
  for (const list of found.values()) {
    const seed = list[0];
    if (seed !== undefined) await report(await runSeed(seed, steps));
  }
  process.exitCode = found.size > 0 ? 1 : 0;
}
