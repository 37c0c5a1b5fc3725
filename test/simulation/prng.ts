// The one source of chance of a simulation: a small seeded generator (sfc32, seeded through
// splitmix32), so that a seed replays exactly, on any machine and Node.js release. Math.random
// would make a failing seed impossible to run again.

export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    // The first outputs of sfc32 are still close to the seed: discard them.
    for (let i = 0; i < 12; i++) this.uint32();
  }

  uint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** In [0, 1). */
  float(): number {
    return this.uint32() / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.float() * items.length)] as T;
  }

  /** One of `weighted`'s keys, each as likely as its weight. */
  weighted<K extends string>(weighted: Record<K, number>): K {
    const entries = Object.entries(weighted) as [K, number][];
    const total = entries.reduce((sum, [, w]) => sum + w, 0);
    let at = this.float() * total;
    for (const [key, weight] of entries) {
      at -= weight;
      if (at < 0) return key;
    }
    return (entries.at(-1) as [K, number])[0];
  }
}
