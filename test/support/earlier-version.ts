// An earlier commit of this repository, checked out for a test that runs its controller beside
// this checkout's: the files of that commit (git archive, so the repository's worktrees are left
// alone) in a temporary folder removed when the test ends.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { promisify } from 'node:util';

const THIS_CHECKOUT = path.join(import.meta.dirname, '../..');

/** The folder holding `commit`'s files, its dependencies installed. */
export async function checkoutOf(t: TestContext, commit: string): Promise<string> {
  try {
    execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: THIS_CHECKOUT, stdio: 'ignore' });
  } catch {
    throw new Error(
      `commit ${commit} is not in this clone: the test needs the repository's history (not a shallow clone)`,
    );
  }
  const dir = mkdtempSync(path.join(tmpdir(), `twc-${commit.slice(0, 7)}-`));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync('sh', ['-c', 'git archive "$1" | tar -x -C "$2"', 'sh', commit, dir], { cwd: THIS_CHECKOUT });
  const lock = (root: string) => readFileSync(path.join(root, 'package-lock.json'), 'utf8');
  // The same lock installs the same packages: this checkout's serve. Otherwise its own, which
  // costs a download and minutes.
  if (lock(dir) === lock(THIS_CHECKOUT))
    symlinkSync(path.join(THIS_CHECKOUT, 'node_modules'), path.join(dir, 'node_modules'));
  else await promisify(execFile)('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir });
  return dir;
}
