import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import {
  newestChangelogVersion,
  releaseVersion,
  ReleaseVersionMismatch,
  versionMismatches,
} from '../../scripts/release/versions.ts';

test("this commit's versions agree: package.json, both charts' version and appVersion, the changelog", () => {
  const { name, version } = releaseVersion(path.join(import.meta.dirname, '../..'));
  assert.equal(name, 'temporal-worker-controller');
  assert.match(version, /^\d+\.\d+\.\d+/);
});

test('the newest changelog version is the first versioned heading, past Unreleased', () => {
  const changelog = '# Changelog\n\n## [Unreleased]\n\n- a\n\n## [0.2.0] - 2027-01-04\n\n## [0.1.0] - 2026-12-01\n';
  assert.equal(newestChangelogVersion(changelog), '0.2.0');
  assert.equal(newestChangelogVersion('# Changelog\n\n## [Unreleased]\n'), undefined);
});

test('each source that disagrees is named, with what it says', () => {
  assert.deepEqual(
    versionMismatches('0.2.0', {
      'Chart.yaml version': '0.2.0',
      'Chart.yaml appVersion': '0.1.0',
      CHANGELOG: undefined,
    }),
    ['Chart.yaml appVersion says 0.1.0, package.json says 0.2.0', 'CHANGELOG says nothing, package.json says 0.2.0'],
  );
  const error = new ReleaseVersionMismatch(['a says 1, package.json says 2']);
  assert.equal(error.name, 'ReleaseVersionMismatch');
  assert.match(error.message, /do not agree:\n- a says 1/);
});
