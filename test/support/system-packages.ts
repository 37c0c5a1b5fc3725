// Commands the tests need from the system, installed from Debian's packages when a new machine
// lacks them: a fresh clone must test without anyone installing anything by hand.
import { spawnSync } from 'node:child_process';

/** Runs `command --version`-like `probe`; when it cannot start, installs `debianPackage` with apt-get. */
export function ensureCommand(command: string, probe: string[], debianPackage: string): void {
  if (spawnSync(command, probe, { stdio: 'ignore' }).error === undefined) return;
  const install = () =>
    spawnSync('apt-get', ['install', '-y', '--no-install-recommends', debianPackage], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  let result = install();
  if (result.status !== 0) {
    spawnSync('apt-get', ['update'], { stdio: 'inherit' });
    result = install();
  }
  if (result.status !== 0 || spawnSync(command, probe, { stdio: 'ignore' }).error !== undefined) {
    throw new Error(
      `the tests need \`${command}\`: install the Debian package ${debianPackage} (apt-get install ${debianPackage}) and run them again`,
    );
  }
}
