// The shrinker must only ever hand back a list that still fails, and should find the few steps
// that matter: a replay of 150 steps where 3 matter hides the bug it shows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shrink } from './shrink.ts';

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

test('keeps exactly the steps the failure needs, in order', async () => {
  // Fails when 17 comes before 80 and 133 is there.
  const fails = (s: number[]) =>
    Promise.resolve(s.includes(133) && s.indexOf(17) >= 0 && s.indexOf(17) < s.indexOf(80));
  const { steps } = await shrink(range(150), { fails });
  assert.deepEqual(steps, [17, 80, 133]);
});

test('simplifies the steps left where the failure allows', async () => {
  type S = { n: number; event?: string };
  const input: S[] = range(20).map((n) => ({ n, event: `e${n}` }));
  const fails = (s: S[]) =>
    Promise.resolve(s.filter((x) => x.n % 5 === 0).length >= 2 && s.some((x) => x.event === 'e10'));
  const { steps } = await shrink(input, { fails, simplify: (x) => (x.event ? { n: x.n } : undefined) });
  assert.ok(await fails(steps));
  assert.equal(steps.length, 2);
  assert.deepEqual(
    steps.flatMap((x) => (x.event ? [x.event] : [])),
    ['e10'],
  );
});

test('gives up at its budget with a list that still fails', async () => {
  let runs = 0;
  const fails = (s: number[]) => {
    runs++;
    return Promise.resolve(s.includes(99));
  };
  const result = await shrink(range(100), { fails, maxRuns: 5 });
  assert.equal(result.runs, 5);
  assert.equal(runs, 5);
  assert.ok(result.steps.includes(99));
  assert.ok(result.steps.length < 100);
});
