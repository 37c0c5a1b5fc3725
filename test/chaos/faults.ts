// The faults a chaos run injects, chosen from a seed so that a failing run can be replayed: which
// fault, when, and for how long: the controller killed, Temporal out of its reach, a component of
// the cluster or Temporal itself crashed and started again. Pure.

export type FaultKind =
  'kill-controller' | 'temporal-unreachable' | 'restart-kube-apiserver' | 'restart-etcd' | 'restart-temporal';

/** How often each comes, and for how long (seconds: at least, and up to that more). */
const KINDS: { kind: FaultKind; weight: number; lasts: [number, number] }[] = [
  { kind: 'kill-controller', weight: 0.5, lasts: [0, 3] },
  { kind: 'temporal-unreachable', weight: 0.15, lasts: [5, 10] },
  { kind: 'restart-kube-apiserver', weight: 0.1, lasts: [0, 5] },
  { kind: 'restart-etcd', weight: 0.1, lasts: [0, 5] },
  { kind: 'restart-temporal', weight: 0.15, lasts: [0, 5] },
];

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
    let pick = random();
    const chosen = KINDS.find((k) => (pick -= k.weight) < 0) ?? KINDS[0]!;
    const lasts = chosen.lasts[0] + Math.round(random() * chosen.lasts[1]);
    faults.push({ kind: chosen.kind, at, lasts });
    at += lasts + gap();
  }
  return faults;
}
