// Keeps `npm start`'s controller running: a controller that exits is started again, and the
// user is told; one that keeps exiting stops the environment rather than leave it looking
// healthy while nothing reconciles.
import { Component, type ComponentSpec } from './process.ts';

/** More exits than this within RESTART_WINDOW_MS and the supervisor gives up. */
export const MAX_RESTARTS = 3;
export const RESTART_WINDOW_MS = 60_000;

/** Restart, or give up when the controller exited too often lately. Pure. */
export function afterExit(exits: readonly Date[], now: Date): 'restart' | 'give up' {
  const recent = exits.filter((at) => now.getTime() - at.getTime() < RESTART_WINDOW_MS);
  return recent.length > MAX_RESTARTS ? 'give up' : 'restart';
}

export interface SupervisedController {
  /** The running controller: a new Component after each restart. */
  readonly current: Component;
  /** Resolves once the controller said it is ready (after a restart: the new one). */
  ready(timeoutMs: number): Promise<void>;
  /** Stops the controller for good: no restart follows. */
  stop(): Promise<void>;
}

export interface SupervisorOptions {
  spec: ComponentSpec;
  say: (line: string) => void;
  /** Called once the supervisor gave up, with what to tell the user. */
  giveUp: (message: string) => void;
  now?: () => Date;
}

export function superviseController({
  spec,
  say,
  giveUp,
  now = () => new Date(),
}: SupervisorOptions): SupervisedController {
  const exits: Date[] = [];
  let stopped = false;
  let current: Component;
  let readyNow = false;

  const start = (restart: boolean): void => {
    readyNow = false;
    const component = new Component(spec);
    current = component;
    component.child.on('message', (message: { type?: string }) => (readyNow ||= message.type === 'ready'));
    component.child.once('exit', (code, signal) => {
      if (stopped) return;
      const how = signal ?? `exit code ${code}`;
      exits.push(now());
      if (afterExit(exits, now()) === 'give up') {
        giveUp(
          `the controller exited ${exits.length} times within ${RESTART_WINDOW_MS / 1000}s (last: ${how}); ` +
            `stopping the environment. Its log: ${spec.logFile}`,
        );
        return;
      }
      say(`controller exited (${how}); restarting it (log: ${spec.logFile})`);
      start(true);
    });
    if (!restart) return;
    // An exit before ready is handled above; only a controller that hangs unready is given up on here.
    supervisor.ready(60_000).then(
      () => say('controller running again'),
      (error: unknown) => component.hasExited || giveUp(`the restarted controller is not ready: ${String(error)}`),
    );
  };

  const supervisor: SupervisedController = {
    get current() {
      return current;
    },
    ready: (timeoutMs) =>
      current.waitUntil('ready', () => Promise.resolve(readyNow || undefined), timeoutMs).then(() => undefined),
    stop: async () => {
      stopped = true;
      await current.stop();
    },
  };
  start(false);
  return supervisor;
}
