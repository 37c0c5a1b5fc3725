// The one version a release carries: package.json's, which the image is tagged with, must be each
// chart's `version` and `appVersion` and the newest heading of CHANGELOG.md (docs/releases.md).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

export class ReleaseVersionMismatch extends Error {
  override readonly name = 'ReleaseVersionMismatch';
  readonly mismatches: string[];
  constructor(mismatches: string[]) {
    super(`the versions of this release do not agree:\n${mismatches.map((m) => `- ${m}`).join('\n')}`);
    this.mismatches = mismatches;
  }
}

/** Where a version is written, and what it says there (undefined: not found). */
export type VersionSources = Record<string, string | undefined>;

/** The newest `## [x.y.z]` heading of a changelog. */
export function newestChangelogVersion(changelog: string): string | undefined {
  return /^## \[(\d+\.\d+\.\d+[^\]]*)\]/m.exec(changelog)?.[1];
}

/** Each source that does not say `version`, in words. */
export function versionMismatches(version: string, sources: VersionSources): string[] {
  return Object.entries(sources).flatMap(([where, said]) =>
    said === version ? [] : [`${where} says ${said ?? 'nothing'}, package.json says ${version}`],
  );
}

export function releaseVersion(repo: string): { name: string; version: string } {
  const read = (file: string) => readFileSync(path.join(repo, file), 'utf8');
  const { name, version } = JSON.parse(read('package.json')) as { name: string; version: string };
  const sources: VersionSources = { 'CHANGELOG.md (newest heading)': newestChangelogVersion(read('CHANGELOG.md')) };
  for (const chart of ['temporal-worker-controller', 'temporal-worker-controller-crds']) {
    const file = `charts/${chart}/Chart.yaml`;
    const { version: chartVersion, appVersion } = parse(read(file)) as { version?: string; appVersion?: string };
    sources[`${file} version`] = chartVersion;
    sources[`${file} appVersion`] = appVersion;
  }
  const mismatches = versionMismatches(version, sources);
  if (mismatches.length > 0) throw new ReleaseVersionMismatch(mismatches);
  return { name, version };
}
