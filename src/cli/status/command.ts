// `twc status [NAME]`: the worker deployments of a namespace with what belongs to them
// (watch.ts), printed once, or with --watch again at every change the watches bring, in place on
// a terminal.
import { stringify } from 'yaml';
import type { CommandScope } from '../kube-context.ts';
import { renderStatus } from './render.ts';
import type { OUTPUTS } from './view.ts';
import { commandWatch } from './watch.ts';

export interface StatusOptions extends CommandScope {
  watch?: boolean;
  output?: (typeof OUTPUTS)[number];
}

export interface Terminal {
  write(text: string): void;
  /** Colours, symbols and redrawing in place. */
  isTTY: boolean;
}

/** Clears the screen and moves to its top: each frame of --watch replaces the last. */
const REDRAW = '\u001b[H\u001b[2J';
/** Changes arrive in bursts (a rollout step writes several objects): one frame per burst. */
const FRAME_MS = 100;

export class StatusError extends Error {
  override name = 'StatusError';
}

/** Resolves when done: at once without --watch, on `stop` with it. */
export async function showStatus(
  name: string | undefined,
  options: StatusOptions,
  terminal: Terminal,
  stop: AbortSignal,
): Promise<void> {
  const { watch, namespace, close } = commandWatch(options, name);
  try {
    await watch.start();
    const frame = (): string => {
      const shown = watch.views();
      if (name && shown.length === 0) throw new StatusError(`worker deployment ${namespace ?? ''}/${name} not found`);
      if (options.output === 'json')
        return `${JSON.stringify(name ? shown[0] : { items: shown }, null, options.watch ? 0 : 2)}\n`;
      if (options.output === 'yaml')
        return `${options.watch ? '---\n' : ''}${stringify(name ? shown[0] : { items: shown })}`;
      return renderStatus(shown, { color: terminal.isTTY && !process.env.NO_COLOR, now: new Date() });
    };
    const redraw = terminal.isTTY && !options.output;
    let last = frame();
    terminal.write(`${options.watch && redraw ? REDRAW : ''}${last}`);
    if (!options.watch) return;
    let timer: NodeJS.Timeout | undefined;
    let unsubscribe = (): void => {};
    await new Promise<void>((resolve, reject) => {
      unsubscribe = watch.onChange(() => {
        timer ??= setTimeout(() => {
          timer = undefined;
          try {
            const next = frame();
            // Ages change every second; a frame is drawn for a change of the objects only.
            if (next === last) return;
            last = next;
            terminal.write(`${redraw ? REDRAW : ''}${next}`);
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        }, FRAME_MS);
      });
      stop.addEventListener('abort', () => resolve(), { once: true });
    });
    unsubscribe();
    clearTimeout(timer);
  } finally {
    await close();
  }
}
