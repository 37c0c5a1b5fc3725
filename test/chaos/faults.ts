// The faults a chaos run injects, chosen from a seed so that a failing run can be replayed: which
// fault, when, and for how long: the controller killed, Temporal out of its reach, the answers of
// the API server and Temporal slowed down, a component of the cluster or Temporal itself crashed
// and started again. Pure.

export type FaultKind =
  | 'kill-controller'
  | 'temporal-unreachable'
  | 'slow-responses'
  | 'restart-kube-apiserver'
  | 'restart-etcd'
  | 'restart-temporal';

/** How often each comes, and for how long (seconds: at least, and up to that more). */
const KINDS: { kind: FaultKind; weight: number; lasts: [number, number] }[] = [
  { kind: 'kill-controller', weight: 0.5, lasts: [0, 3] },
  { kind: 'temporal-unreachable', weight: 0.1, lasts: [5, 10] },
  { kind: 'slow-responses', weight: 0.1, lasts: [5, 10] },
  { kind: 'restart-kube-apiserver', weight: 0.1, lasts: [0, 5] },
  { kind: 'restart-etcd', weight: 0.1, lasts: [0, 5] },
  { kind: 'restart-temporal', weight: 0.1, lasts: [0, 5] },
];

export interface Fault {
  kind: FaultKind;
  /** Seconds from the start of the run. */
  at: number;
  /** Seconds it lasts: the controller down, Temporal out of reach, answers slow. */
  lasts: number;
  /** Of slow responses: how much later every byte between the controller and the API server or Temporal arrives. */
  delayMs?: number;
}

/** Slow responses add from 200 ms up to this to every byte, both ways. */
const MAX_DELAY_MS = 2000;

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
  /** Go on past `duration` until the controller was killed this often. */
  kills?: number;
}

/** Faults one after another (never two at once, so each one's recovery is measured alone). */
export function planFaults({ seed, duration, every, kills = 0 }: FaultPlanOptions): Fault[] {
  const random = seededRandom(seed);
  const faults: Fault[] = [];
  const gap = () => Math.max(1, Math.round(every * (0.5 + random())));
  const killed = () => faults.filter((f) => f.kind === 'kill-controller').length;
  for (let at = gap(); at < duration || killed() < kills;) {
    let pick = random();
    const chosen = KINDS.find((k) => (pick -= k.weight) < 0) ?? KINDS[0]!;
    const lasts = chosen.lasts[0] + Math.round(random() * chosen.lasts[1]);
    const delay =
      chosen.kind === 'slow-responses' ? { delayMs: 200 + Math.round(random() * (MAX_DELAY_MS - 200)) } : {};
    faults.push({ kind: chosen.kind, at, lasts, ...delay });
    at += lasts + gap();
  }
  return faults;
}
