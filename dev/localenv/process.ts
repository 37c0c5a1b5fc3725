// One child process of the environment: its output kept in a log file and a short in-memory
// tail (for error messages), a readiness wait that fails fast when the process dies, and a
// stop that escalates from SIGTERM to SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';

export class ComponentError extends Error {
  override name = 'ComponentError';
  readonly component: string;
  /** The process died before it was ready, rather than staying unready. */
  readonly exitedEarly: boolean;
  constructor(component: string, message: string, logTail: string, options?: ErrorOptions & { exitedEarly?: boolean }) {
    super(
      `${component}: ${message}${logTail ? `\n--- last lines of ${component}'s log ---\n${logTail}` : ''}`,
      options,
    );
    this.component = component;
    this.exitedEarly = options?.exitedEarly ?? false;
  }
}

const running = new Set<ChildProcess>();
// Last resort when the owner exits without calling stop(): 'exit' handlers must be synchronous,
// so this only signals. Children of ours also die with their parent (see tools/k8s-testbin).
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface ComponentSpec {
  name: string;
  command: string;
  args: string[];
  logFile: string;
  env?: NodeJS.ProcessEnv;
  /** Adds an IPC channel, for Node children that must notice their parent's death. */
  ipc?: boolean;
}

export class Component {
  readonly name: string;
  readonly spec: ComponentSpec;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  private readonly tail: string[] = [];
  private exitCode: number | null | undefined;

  constructor(spec: ComponentSpec) {
    this.name = spec.name;
    this.spec = spec;
    const log = createWriteStream(spec.logFile, { flags: 'a' });
    this.child = spawn(spec.command, spec.args, {
      env: spec.env ?? process.env,
      stdio: spec.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
    });
    running.add(this.child);
    for (const stream of [this.child.stdout, this.child.stderr]) {
      stream?.on('data', (chunk: Buffer) => {
        log.write(chunk);
        this.remember(chunk.toString('utf8'));
      });
    }
    this.exited = new Promise((resolve) => {
      this.child.on('error', (error) => {
        this.remember(`failed to start ${spec.command}: ${error.message}\n`);
        this.exitCode = null;
        running.delete(this.child);
        resolve(null);
      });
      this.child.on('exit', (code, signal) => {
        this.remember(`exited with ${code ?? signal}\n`);
        this.exitCode = code;
        running.delete(this.child);
        log.end();
        resolve(code);
      });
    });
  }

  get hasExited(): boolean {
    return this.exitCode !== undefined;
  }

  logTail(lines = 30): string {
    return this.tail.slice(-lines).join('\n');
  }

  /** Polls `check` until it returns a value, failing if the process exits or time runs out. */
  async waitUntil<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let lastError: unknown;
    while (Date.now() < deadline) {
      if (this.hasExited)
        throw new ComponentError(this.name, `exited before it was ${what}`, this.logTail(), { exitedEarly: true });
      try {
        const result = await check();
        if (result !== undefined) return result;
      } catch (error) {
        lastError = error;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const reason = lastError instanceof Error ? ` (last check: ${lastError.message})` : '';
    throw new ComponentError(this.name, `not ${what} after ${timeoutMs / 1000}s${reason}`, this.logTail());
  }

  /** Kills it at once, as a crash would, and starts the same command again (same ports, same data). */
  async restart(downMs = 0): Promise<Component> {
    this.child.kill('SIGKILL');
    await this.exited;
    await new Promise((resolve) => setTimeout(resolve, downMs));
    return new Component(this.spec);
  }

  async stop(graceMs = 10_000): Promise<void> {
    if (this.hasExited) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  private remember(text: string): void {
    for (const line of text.split('\n')) if (line !== '') this.tail.push(line);
    if (this.tail.length > 200) this.tail.splice(0, this.tail.length - 200);
  }
}
