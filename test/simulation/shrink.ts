// Shortens a failing run to the steps it needs: chunks of steps are dropped, halving the chunk
// down to single steps (as delta debugging does), then each step left is simplified where it can
// be (a user's or a fault's step becomes one where only time passes), keeping every change after
// which the same invariant still breaks. Generic over what a step is and how a candidate runs, so
// it can be tested on its own.

export interface ShrinkOptions<S> {
  /** Whether these steps still break the invariant. */
  fails(steps: S[]): Promise<boolean>;
  /** A simpler step in place of this one, if there is one. */
  simplify?(step: S): S | undefined;
  /** Gives up after this many runs, keeping the shortest failing list found. */
  maxRuns?: number;
}

export async function shrink<S>(steps: readonly S[], options: ShrinkOptions<S>): Promise<{ steps: S[]; runs: number }> {
  const maxRuns = options.maxRuns ?? 400;
  let best = [...steps];
  let runs = 0;
  const tryCandidate = async (candidate: S[]): Promise<boolean> => {
    runs++;
    if (!(await options.fails(candidate))) return false;
    best = candidate;
    return true;
  };
  for (let chunk = Math.max(1, Math.floor(best.length / 2)); runs < maxRuns;) {
    let removed = false;
    for (let at = 0; at < best.length && runs < maxRuns;) {
      if (await tryCandidate([...best.slice(0, at), ...best.slice(at + chunk)])) removed = true;
      else at += chunk;
    }
    if (chunk > 1) chunk = Math.floor(chunk / 2);
    else if (!removed) break;
  }
  if (options.simplify)
    for (let at = 0; at < best.length && runs < maxRuns; at++) {
      const simpler = options.simplify(best[at] as S);
      if (simpler !== undefined) await tryCandidate([...best.slice(0, at), simpler, ...best.slice(at + 1)]);
    }
  return { steps: best, runs };
}
