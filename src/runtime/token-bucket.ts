// A token bucket on an injectable clock: `perSecond` tokens a second, at most `burst` saved up.
// A taker may borrow a token not there yet and is told how long to wait for it; whoever comes
// next waits behind the debt, so waits are handed out in order.
import { realTimers, type Timers } from './timers.ts';

export interface TokenRate {
  perSecond: number;
  burst: number;
}

export class TokenBucket {
  private readonly rate: TokenRate;
  private readonly timers: Timers;
  private tokens: number;
  private refilledAt: number;

  constructor(rate: TokenRate, timers: Timers = realTimers) {
    this.rate = rate;
    this.timers = timers;
    this.tokens = rate.burst;
    this.refilledAt = timers.now();
  }

  /** Takes a token, borrowing it if none is left: resolves to how long to wait for it (0: now). */
  take(): number {
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : this.msUntil(0);
  }

  /** Takes a token only if one is there now, never borrowing. */
  tryTake(): boolean {
    if (this.msUntilAvailable() > 0) return false;
    this.tokens -= 1;
    return true;
  }

  /** How long until a token can be taken without waiting (0: now). */
  msUntilAvailable(): number {
    this.refill();
    return this.tokens >= 1 ? 0 : this.msUntil(1);
  }

  private msUntil(level: number): number {
    return ((level - this.tokens) / this.rate.perSecond) * 1000;
  }

  private refill(): void {
    const now = this.timers.now();
    this.tokens = Math.min(this.rate.burst, this.tokens + ((now - this.refilledAt) / 1000) * this.rate.perSecond);
    this.refilledAt = now;
  }
}
