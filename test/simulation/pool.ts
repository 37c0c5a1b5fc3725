// Runs seeds on worker threads, one simulation at a time per thread, and hands back what each
// found. The same file is the worker: a simulation is plain computation, so threads use both
// cores where one process would use one.
import { availableParallelism } from 'node:os';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import type { Violation } from './invariants.ts';
import { runSeed } from './simulation.ts';

export interface SeedResult {
  seed: number;
  steps: number;
  reconciles: number;
  /** Liveness was judged at least once, and held. */
  livenessJudged: boolean;
  /** Routings on the informer's stale view (see Invariants.routedOnStaleView). */
  routedOnStaleView: number;
  violation?: Violation;
}

interface Job {
  seed: number;
  steps: number;
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  port.on('message', (job: Job) => {
    void runSeed(job.seed, job.steps).then((outcome) =>
      port.postMessage({
        seed: job.seed,
        steps: outcome.steps.length,
        reconciles: outcome.reconciles,
        livenessJudged: outcome.livenessHeld > 0,
        routedOnStaleView: outcome.routedOnStaleView,
        ...(outcome.violation ? { violation: outcome.violation } : {}),
      } satisfies SeedResult),
    );
  });
}

export interface PoolOptions {
  /** Seeds to run, in order; undefined when no more. */
  nextSeed(): number | undefined;
  steps: number;
  threads?: number;
  onResult(result: SeedResult): void;
}

/** Runs seeds until `nextSeed` has none left; resolves once every one has reported. */
export async function runPool(options: PoolOptions): Promise<void> {
  const threads = Math.max(1, options.threads ?? availableParallelism());
  const workers = Array.from({ length: threads }, () => new Worker(new URL(import.meta.url)));
  try {
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            const feed = (): void => {
              const seed = options.nextSeed();
              if (seed === undefined) return resolve();
              worker.postMessage({ seed, steps: options.steps } satisfies Job);
            };
            worker.on('message', (result: SeedResult) => {
              options.onResult(result);
              feed();
            });
            worker.on('error', reject);
            feed();
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
