// A clock for unit tests that moves only when told to.
import type { Timers } from '../../src/runtime/timers.ts';

/** Lets pending promise callbacks run. */
export const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class FakeTimers implements Timers {
  private time = 0;
  private readonly pending = new Map<number, { at: number; callback: () => void }>();
  private next = 0;
  now = (): number => this.time;
  setTimeout = (callback: () => void, ms: number): unknown => {
    this.pending.set(++this.next, { at: this.time + ms, callback });
    return this.next;
  };
  clearTimeout = (handle: unknown): void => void this.pending.delete(handle as number);
  /** Moves time forward, firing what falls due in order. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      const due = [...this.pending.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.pending.delete(due[0]);
      this.time = due[1].at;
      due[1].callback();
      await settle();
    }
    this.time = end;
    await settle();
  }
}
