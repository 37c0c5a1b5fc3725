// `npm run image`: the controller's container image as an OCI layout and its archive, built
// without a Docker engine (see root-filesystem.ts and oci-layout.ts). Files are dated by
// SOURCE_DATE_EPOCH, else by the commit checked out: the same commit and Debian packages give the
// same digest. Load it with `skopeo copy oci-archive:<archive> docker://<registry>/...` or any
// tool that reads OCI archives.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { BUNDLE_ENTRY } from '../bundle.ts';
import { reproducibleTar, writeOciLayout } from './oci-layout.ts';
import {
  APP_DIR,
  ensureBuildTools,
  ImageBuildError,
  makeRootFilesystem,
  NODE_PATH,
  USER_ID,
} from './root-filesystem.ts';

const run = promisify(execFile);

/**
 * V8's flags for the controller, as bin/twc and the image run it: 1 MiB semi-spaces and V8's
 * size-over-speed choices (the controller allocates little at a time; the default young
 * generation was a third of its memory), and no Maglev, V8's middle compiler, which at idle kept
 * compiling, on its helper threads, the code that runs every few seconds
 * (docs/operations.md#where-the-idle-minute-goes).
 */
export const NODE_FLAGS = ['--max-semi-space-size=1', '--optimize-for-size', '--no-maglev'];

/**
 * How `node` runs the CLI's bundle written into `bundleDir` (scripts/bundle.ts): with bin/twc's V8
 * flags. The image's entrypoint, and how the benches start the controller.
 */
export function bundleCommand(node: string, bundleDir: string): string[] {
  return [node, ...NODE_FLAGS, path.posix.join(bundleDir, BUNDLE_ENTRY)];
}
export const IMAGE_ENTRYPOINT = bundleCommand(NODE_PATH, APP_DIR);
/**
 * glibc's malloc: one arena per thread that allocates at once (up to eight per core), and a
 * threshold for mapping large blocks of their own that rises with each such block freed. Freed
 * memory stays resident in either; Node's helper threads (V8's compilers and collector, libuv's
 * pool) and the answers read (a page of Pods, a watch's events) left the controller larger at
 * 1,000 worker deployments (docs/scaling.md#memory).
 */
export const IMAGE_ENV = [
  'PATH=/usr/local/bin:/usr/bin:/bin',
  'NODE_ENV=production',
  'MALLOC_ARENA_MAX=2',
  'MALLOC_MMAP_THRESHOLD_=131072',
];
const REPO = path.resolve(import.meta.dirname, '../..');

export interface BuiltImage {
  /** The OCI layout, a directory. */
  layout: string;
  /** The same as one tar file. */
  archive: string;
  digest: string;
  archiveBytes: number;
}

/** The release's date: SOURCE_DATE_EPOCH, else the commit checked out's. */
export async function sourceDateEpoch(): Promise<number> {
  if (process.env.SOURCE_DATE_EPOCH) return Number(process.env.SOURCE_DATE_EPOCH);
  const { stdout } = await run('git', ['log', '-1', '--format=%ct'], { cwd: REPO }).catch(() => ({ stdout: '0' }));
  return Number(stdout.trim());
}

export async function buildImage(out: string, log: (line: string) => void): Promise<BuiltImage> {
  const { version } = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
  await ensureBuildTools(log);
  const epoch = await sourceDateEpoch();
  const work = mkdtempSync(path.join(tmpdir(), 'twc-image-'));
  try {
    const root = path.join(work, 'root');
    log(`unpacking Debian, Node.js and the controller into ${root}`);
    await makeRootFilesystem(root, REPO, epoch);
    const layout = path.join(out, `temporal-worker-controller-${version}`);
    rmSync(layout, { recursive: true, force: true });
    log(`writing the OCI layout ${layout}`);
    const { digest } = await writeOciLayout(root, layout, {
      user: `${USER_ID}:${USER_ID}`,
      entrypoint: IMAGE_ENTRYPOINT,
      env: IMAGE_ENV,
      workingDir: APP_DIR,
      epoch,
      reference: version,
    });
    const archive = `${layout}.oci.tar`;
    await reproducibleTar(layout, archive, epoch);
    return { layout, archive, digest, archiveBytes: statSync(archive).size };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  try {
    const image = await buildImage(path.join(REPO, 'dist'), (line) => console.error(line));
    console.log(`${image.archive}\n  digest ${image.digest}, ${(image.archiveBytes / 2 ** 20).toFixed(1)} MiB`);
  } catch (error) {
    console.error(error instanceof ImageBuildError ? `${error.message}: ${String(error.cause)}` : error);
    process.exit(1);
  }
}
