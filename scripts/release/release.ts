// `npm run release`: what a release ships, from the commit checked out, into dist/release-<version>/:
// both charts packaged, the image as an OCI archive, and the image's bill of materials; then the
// digest of each, for the release notes. Refuses when the versions that must agree do not
// (docs/releases.md says which).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ensureBinaries } from '../../dev/localenv/binaries.ts';
import { buildImage, type BuiltImage, sourceDateEpoch } from '../image/build.ts';
import { DEBIAN_PACKAGES, DEBIAN_SUITE } from '../image/root-filesystem.ts';
import { imageSbom, type PackageLock } from './sbom.ts';
import { releaseVersion } from './versions.ts';

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '../..');
const CHARTS = ['charts/temporal-worker-controller-crds', 'charts/temporal-worker-controller'];

function sha256(file: string): string {
  return `sha256:${createHash('sha256').update(readFileSync(file)).digest('hex')}`;
}

export interface Release {
  image: BuiltImage;
  charts: string[];
  sbom: string;
}

/** Everything a release ships, written into `out`. */
export async function release(out: string, log: (line: string) => void): Promise<Release> {
  const { name, version } = releaseVersion(REPO);
  mkdirSync(out, { recursive: true });
  const { helm } = await ensureBinaries(log);
  const charts: string[] = [];
  for (const chart of CHARTS) {
    log(`packaging ${chart}`);
    const { stdout } = await run(helm, ['package', path.join(REPO, chart), '--destination', out]);
    charts.push(stdout.trim().replace(/^.*saved it to: /s, ''));
  }
  const image = await buildImage(out, log);
  const { stdout: nodeVersion } = await run(path.join(REPO, 'node_modules/node/bin/node'), ['--version']);
  const sbom = path.join(out, `${name}-${version}.sbom.cdx.json`);
  const lock = JSON.parse(readFileSync(path.join(REPO, 'package-lock.json'), 'utf8')) as PackageLock;
  const contents = imageSbom(lock, {
    name,
    version,
    imageDigest: image.digest,
    nodeVersion: nodeVersion.trim().replace(/^v/, ''),
    debianSuite: DEBIAN_SUITE,
    debianPackages: DEBIAN_PACKAGES,
    epoch: await sourceDateEpoch(),
  });
  writeFileSync(sbom, `${JSON.stringify(contents, null, 2)}\n`);
  return { image, charts, sbom };
}

if (import.meta.main) {
  try {
    const { version } = releaseVersion(REPO);
    const out = path.join(REPO, 'dist', `release-${version}`);
    rmSync(out, { recursive: true, force: true });
    const { image, charts, sbom } = await release(out, (line) => console.error(line));
    console.log(`image ${image.digest}`);
    for (const file of [...charts, image.archive, sbom]) console.log(`${path.relative(REPO, file)} ${sha256(file)}`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
