// Runs `go test` in one of the repository's Go modules, with the Go the local environment's
// binaries are built with (GO, or `go` on PATH) and Go's own default caches, as a fresh clone
// has them: the first run downloads the modules through the module proxy and builds them.
import { spawn } from 'node:child_process';
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '../..');

export interface GoTestRun {
  code: number | null;
  output: string;
  seconds: number;
}

/** `go test <args>` in `module` (a path from the repository's root); rejects only when Go cannot be started. */
export function goTest(module: string, args: string[], env: Record<string, string> = {}): Promise<GoTestRun> {
  const started = Date.now();
  const go = process.env.GO ?? 'go';
  const child = spawn(go, ['test', ...args], {
    cwd: path.join(repoRoot, module),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', (error) =>
      reject(
        new Error(
          `Go is not available (ran \`${go} test\`: ${error.message}): install Go 1.26 or newer, or set GO to its path`,
          { cause: error },
        ),
      ),
    );
    child.on('close', (code) => resolve({ code, output, seconds: (Date.now() - started) / 1000 }));
  });
}
