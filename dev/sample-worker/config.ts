// The sample worker is configured only from its environment, the way the controller configures
// every worker container it runs (read by the worker library), and from SAMPLE_BEHAVIOUR.
import { type ReadFile, readWorkerEnvironment, type WorkerEnvironment } from '../../packages/worker/src/index.ts';

export interface SampleWorkerConfig extends WorkerEnvironment {
  /**
   * `SAMPLE_BEHAVIOUR`: reported by every activity, so builds visibly differ; `fail-gate` fails
   * gates; `fail-<percent>` fails that share of orders; one that starts with `workflows-only`
   * registers no activities; `auto-upgrade-breaking` and `pinned-breaking` run workflows of that
   * behaviour changed incompatibly (see workflow-variants/).
   */
  behaviour: string;
}

export function readConfig(env: Record<string, string | undefined>, readFile?: ReadFile): SampleWorkerConfig {
  return { ...readWorkerEnvironment(env, readFile), behaviour: env.SAMPLE_BEHAVIOUR || 'default' };
}

/** The start of a SAMPLE_BEHAVIOUR whose worker registers no activities (see worker.ts). */
export const WORKFLOWS_ONLY = 'workflows-only';
