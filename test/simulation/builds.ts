// What each build does, fixed per seed and build ID (not drawn from the run's stream): a replay
// with steps dropped meets the same builds, so a shrunk failure stays the same failure.
import { Prng } from './prng.ts';
import type { BuildBehaviour, GateTraits } from './temporal-model.ts';
import type { BuildPods } from './kubernetes-model.ts';

export interface BuildTraits {
  /** Its Pods never become ready. */
  crashes: boolean;
  /** Share of its workflows that fail: 0 for a good build, high for a bad one. */
  failureRate: number;
}

function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

export class Builds implements BuildBehaviour, BuildPods {
  private readonly seed: number;
  private readonly traits = new Map<string, BuildTraits>();
  private readonly gates = new Map<string, GateTraits>();
  private readonly replaying = new Map<string, boolean>();

  constructor(seed: number) {
    this.seed = seed;
  }

  of(buildId: string): BuildTraits {
    let traits = this.traits.get(buildId);
    if (!traits) {
      const rng = new Prng(this.seed ^ hash(buildId));
      traits = { crashes: rng.chance(0.06), failureRate: rng.chance(0.25) ? 0.5 : 0 };
      this.traits.set(buildId, traits);
    }
    return traits;
  }

  crashes(buildId: string): boolean {
    return this.of(buildId).crashes;
  }

  failureRate(buildId: string): number {
    return this.of(buildId).failureRate;
  }

  /** A build's code replays most workflow types' histories from other builds; which ones is fixed per build. */
  replays(buildId: string, workflowType: string): boolean {
    const key = `${buildId}/${workflowType}`;
    let replays = this.replaying.get(key);
    if (replays === undefined) {
      replays = new Prng(this.seed ^ hash(`replays/${key}`)).chance(0.7);
      this.replaying.set(key, replays);
    }
    return replays;
  }

  gate(buildId: string, workflowType: string): GateTraits {
    const key = `${buildId}/${workflowType}`;
    let traits = this.gates.get(key);
    if (!traits) {
      const rng = new Prng(this.seed ^ hash(`gate/${key}`));
      traits = { outcome: rng.weighted({ pass: 75, fail: 15, hang: 10 }), workMs: rng.int(20, 300) * 1000 };
      this.gates.set(key, traits);
    }
    return traits;
  }
}
