// What one wake of an idle Node.js costs on this machine: a process that only sleeps on a timer and
// wakes, measured by the kernel's own account of its JavaScript thread's time on a CPU. An idle
// controller's CPU is mostly such wakes (a Lease renewal, a reconcile, their answers), so the
// footprint bench prints this beside its wakes a minute: the part of its CPU no code of ours spends.
import { execFileSync } from 'node:child_process';
import { PINNED_NODE } from './twc-process.ts';

/** The sleeping process: settles for a second, then wakes `wakes` times `gapMs` apart and prints ns on the CPU per wake. */
const SLEEPER = `
const { readFileSync } = require('node:fs');
const onCpu = () => Number(readFileSync('/proc/self/task/' + process.pid + '/schedstat', 'utf8').split(' ')[0]);
const [wakes, gapMs] = process.argv.slice(1).map(Number);
const sleep = () => new Promise((resolve) => setTimeout(resolve, gapMs));
(async () => {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const before = onCpu();
  for (let i = 0; i < wakes; i++) await sleep();
  console.log((onCpu() - before) / wakes);
})();
`;

/** CPU milliseconds per wake of the pinned Node.js from a timer, sleeping `gapMs` between wakes. */
export function wakeCostMs({ wakes = 20, gapMs = 500 } = {}): number {
  const nanoseconds = execFileSync(PINNED_NODE, ['-e', SLEEPER, String(wakes), String(gapMs)], { encoding: 'utf8' });
  return Number(nanoseconds.trim()) / 1e6;
}
