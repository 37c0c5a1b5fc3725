// An earlier commit of this repository, checked out for a test that runs its controller beside
// this checkout's: the files of that commit (git archive, so the repository's worktrees are left
// alone) in the shared environment's folder, removed with it once every process that may run
// them has been stopped.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { sharedEnvironment } from './environment.ts';

const THIS_CHECKOUT = path.join(import.meta.dirname, '../..');

/** The folder holding `commit`'s files, its dependencies installed. */
export async function checkoutOf(commit: string): Promise<string> {
  try {
    execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: THIS_CHECKOUT, stdio: 'ignore' });
  } catch {
    throw new Error(
      `commit ${commit} is not in this clone: the test needs the repository's history (not a shallow clone)`,
    );
  }
  const dir = mkdtempSync(path.join(sharedEnvironment().dir, `version-${commit.slice(0, 7)}-`));
  execFileSync('sh', ['-c', 'git archive "$1" | tar -x -C "$2"', 'sh', commit, dir], { cwd: THIS_CHECKOUT });
  const lock = (root: string) => readFileSync(path.join(root, 'package-lock.json'), 'utf8');
  // The same lock installs the same packages: this checkout's serve. Otherwise its own (npm ci
  // took a minute here, its cache warm).
  if (lock(dir) === lock(THIS_CHECKOUT))
    symlinkSync(path.join(THIS_CHECKOUT, 'node_modules'), path.join(dir, 'node_modules'));
  else await promisify(execFile)('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir });
  return dir;
}
