// `npm start` as a user runs it, and the processes it leaves behind, read from /proc.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Every live descendant of `pid`, from /proc. */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] !== 'Z') parents.set(Number(entry), Number(fields[1]));
    } catch {
      // the process ended while we looked
    }
  }
  const found: number[] = [];
  const visit = (parent: number): void => {
    for (const [child, ppid] of parents) {
      if (ppid !== parent) continue;
      found.push(child);
      visit(child);
    }
  };
  visit(pid);
  return found;
}

export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The command line of a process, or '' once it ended. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

export interface LocalEnvironment {
  owner: ChildProcessWithoutNullStreams;
  /** Everything `npm start` printed on stdout so far. */
  output: () => string;
}

/** Runs `npm start`'s script and resolves once it printed the environment. */
export async function startLocalEnvironment(): Promise<LocalEnvironment> {
  const owner = spawn(process.execPath, [path.join(import.meta.dirname, '../../dev/localenv/start.ts')]);
  let out = '';
  await new Promise<void>((resolve, reject) => {
    owner.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      // Printed once the controller made the sample worker deployment Current.
      if (/^kubeconfig: /m.test(out) && /^sample: .* is Current at build \S+/m.test(out)) resolve();
    });
    owner.on('exit', (code) =>
      reject(new Error(`npm start exited with ${code} before its environment was ready: ${out}`)),
    );
  });
  return { owner, output: () => out };
}
