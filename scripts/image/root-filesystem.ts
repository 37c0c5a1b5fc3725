// The image's root file system, without a Docker engine: Debian's libc, C++ runtime, CA
// certificates and time zones unpacked by mmdebstrap (no shell, no package manager), the pinned
// Node.js, the controller's CLI bundled with its production dependencies (scripts/bundle.ts), and a
// user 65532 to run as.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { bundleCli } from '../bundle.ts';

const run = promisify(execFile);

export const DEBIAN_SUITE = 'bookworm';
export const DEBIAN_PACKAGES = ['libc6', 'libstdc++6', 'libgcc-s1', 'ca-certificates', 'tzdata'];
/** Tools the build runs, by the Debian package that has them. */
const BUILD_TOOLS: Record<string, string> = { mmdebstrap: 'mmdebstrap', strip: 'binutils', tar: 'tar' };

export const APP_DIR = '/app';
export const NODE_PATH = '/usr/local/bin/node';
export const USER_ID = 65532;

export class ImageBuildError extends Error {
  override name = 'ImageBuildError';
}

/** Installs with apt-get whatever build tool is missing (the machines reach Debian's packages). */
export async function ensureBuildTools(log: (line: string) => void): Promise<void> {
  const missing: string[] = [];
  for (const [tool, pkg] of Object.entries(BUILD_TOOLS)) {
    await run('sh', ['-c', `command -v ${tool}`]).catch(() => missing.push(pkg));
  }
  if (missing.length === 0) return;
  log(`installing ${missing.join(', ')} with apt-get`);
  try {
    await run('apt-get', ['install', '-y', '-q', ...missing], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  } catch (error) {
    throw new ImageBuildError(`apt-get could not install ${missing.join(', ')}: run it as root`, { cause: error });
  }
}

/** Fills `root` (which must not exist) with everything the image holds; `epoch` dates what Debian writes. */
export async function makeRootFilesystem(root: string, repo: string, epoch: number): Promise<void> {
  await run(
    'mmdebstrap',
    ['--variant=extract', `--include=${DEBIAN_PACKAGES.join(',')}`, '--quiet', DEBIAN_SUITE, root],
    { env: { ...process.env, SOURCE_DATE_EPOCH: String(epoch) }, maxBuffer: 16 * 1024 * 1024 },
  ).catch((error: unknown) => {
    throw new ImageBuildError(`mmdebstrap could not unpack Debian ${DEBIAN_SUITE}`, { cause: error });
  });
  // Node asks who it runs as (os.userInfo); there is no shell to log in with.
  writeFileSync(
    path.join(root, 'etc/passwd'),
    `root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:${USER_ID}:${USER_ID}:nonroot:/home/nonroot:/sbin/nologin\n`,
  );
  writeFileSync(path.join(root, 'etc/group'), `root:x:0:\nnonroot:x:${USER_ID}:\n`);
  mkdirSync(path.join(root, 'home/nonroot'), { recursive: true });
  mkdirSync(path.join(root, 'tmp'), { recursive: true, mode: 0o1777 });

  const node = path.join(root, NODE_PATH);
  mkdirSync(path.dirname(node), { recursive: true });
  cpSync(path.join(repo, 'node_modules/node/bin/node'), node);
  await run('strip', [node]); // its debug information is a sixth of it

  await bundleCli(path.join(root, APP_DIR)).catch((error: unknown) => {
    throw new ImageBuildError('esbuild could not bundle the CLI', { cause: error });
  });
}
