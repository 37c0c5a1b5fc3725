// kstatus, the status rules of sigs.k8s.io/cli-utils that Flux, Config Sync and helm's waiter
// apply, run from Go modules (the `kstatus` command of tools/k8s-testbin), not our reading of them.
import { execFile } from 'node:child_process';
import { sharedEnvironment } from './environment.ts';

export interface Kstatus {
  /** InProgress, Failed, Current, Terminating, NotFound or Unknown. */
  status: string;
  message: string;
}

export function kstatus(objects: object[]): Promise<Kstatus[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(sharedEnvironment().kubeBinary, ['kstatus'], (error, stdout, stderr) => {
      if (error) reject(new Error(`kstatus: ${stderr}`, { cause: error }));
      else
        resolve(
          stdout
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as Kstatus),
        );
    });
    child.stdin?.end(JSON.stringify(objects));
  });
}
