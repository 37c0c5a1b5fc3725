// The Go worker library (packages/worker-go) and the Go sample worker (dev/sample-worker-go): their
// Go tests, run by Go. The tests that need a Temporal server skip here; test/integration/go-worker.test.ts
// runs them against the suite's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goTest } from '../support/go-test.ts';

for (const module of ['packages/worker-go', 'dev/sample-worker-go']) {
  test(`go test ./... passes in ${module}`, { timeout: 600_000 }, async (t) => {
    const run = await goTest(module, ['-count=1', './...']);
    t.diagnostic(`go test ./... in ${module}: ${run.seconds.toFixed(1)} s`);
    assert.equal(run.code, 0, `go test ./... failed in ${module}:\n${run.output}`);
  });
}
