// The faults a chaos run injects, chosen from a seed so that a failing run can be replayed: which
// fault, when, and for how long. Pure.

export type FaultKind = 'kill-controller' | 'temporal-unreachable';

export interface Fault {
  kind: FaultKind;
  /** Seconds from the start of the run. */
  at: number;
  /** Seconds it lasts: the controller down, or Temporal out of reach. */
  lasts: number;
}

/** A small, fast generator: the same seed gives the same run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface FaultPlanOptions {
  seed: number;
  /** Seconds in which faults happen. */
  duration: number;
  /** Mean seconds between the end of one fault and the start of the next. */
  every: number;
}

/** Faults one after another (never two at once, so each one's recovery is measured alone). */
export function planFaults({ seed, duration, every }: FaultPlanOptions): Fault[] {
  const random = seededRandom(seed);
  const faults: Fault[] = [];
  const gap = () => Math.max(1, Math.round(every * (0.5 + random())));
  for (let at = gap(); at < duration;) {
    const kind: FaultKind = random() < 0.75 ? 'kill-controller' : 'temporal-unreachable';
    const lasts = kind === 'kill-controller' ? Math.round(random() * 3) : 5 + Math.round(random() * 10);
    faults.push({ kind, at, lasts });
    at += lasts + gap();
  }
  return faults;
}
