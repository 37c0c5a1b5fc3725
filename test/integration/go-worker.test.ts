// The Go worker library against the suite's Temporal server: versioned workers run from the
// injected environment, the replay gate failing a breaking build and passing a compatible one,
// and the drain on SIGTERM (packages/worker-go/temporal_test.go).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goTest } from '../support/go-test.ts';
import { sharedEnvironment } from '../support/environment.ts';

test(
  'the Go worker library runs versioned workers, gates a breaking build and drains on SIGTERM',
  { timeout: 600_000 },
  async (t) => {
    const { temporalAddress, temporalNamespace } = sharedEnvironment();
    const run = await goTest('packages/worker-go', ['-count=1', '-v', '-run', '^TestAgainstTemporal$', '.'], {
      TWC_TEST_TEMPORAL_ADDRESS: temporalAddress,
      TWC_TEST_TEMPORAL_NAMESPACE: temporalNamespace,
    });
    t.diagnostic(
      run.output
        .split('\n')
        .filter((line) => /^\s+temporal_test\.go/.test(line))
        .join('\n'),
    );
    assert.equal(run.code, 0, `go test failed:\n${run.output}`);
    assert.match(run.output, /--- PASS: TestAgainstTemporal/, `the test ran, not skipped:\n${run.output}`);
  },
);
