// Runs `twc pause|resume|promote|abort|move NAME`: reads the worker deployment, decides with
// rollout-controls.ts or move-control.ts, and writes the patch only if the object is still as read.
import { GROUP, KINDS, VERSION } from '../api/kinds.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { errorMessage, httpStatus } from '../runtime/kube/api-errors.ts';
import { commandCluster } from './kube-context.ts';
import { moveControl } from './move-control.ts';
import { type Control, type ControlDecision, rolloutControl } from './rollout-controls.ts';

export interface ControlOptions {
  namespace?: string;
  build?: string;
  kubeconfig?: string;
}

export interface MoveOptions extends Omit<ControlOptions, 'build'> {
  from: string;
  to?: string;
}

export class ControlRefused extends Error {
  override name = 'ControlRefused';
}

/** Resolves with what was done; rejects with ControlRefused (or the API's error) otherwise. */
export function runRolloutControl(control: Control, name: string, options: ControlOptions): Promise<string> {
  return runControl(name, options, (twd) =>
    rolloutControl(control, twd, options.build === undefined ? {} : { build: options.build }),
  );
}

export function runMove(name: string, options: MoveOptions): Promise<string> {
  return runControl(name, options, (twd) =>
    moveControl(twd, { from: options.from, ...(options.to === undefined ? {} : { to: options.to }) }),
  );
}

async function runControl(
  name: string,
  options: Omit<ControlOptions, 'build'>,
  decide: (twd: TemporalWorkerDeployment) => ControlDecision,
): Promise<string> {
  const cluster = commandCluster(options);
  const { api } = cluster;
  const namespace = cluster.namespace ?? 'default';
  const path = `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${KINDS.TemporalWorkerDeployment.plural}/${name}`;
  try {
    const twd = await api.get<TemporalWorkerDeployment>(path).catch((error: unknown) => {
      throw httpStatus(error) === 404
        ? new ControlRefused(`worker deployment ${namespace}/${name} not found`)
        : new ControlRefused(`cannot read worker deployment ${namespace}/${name}: ${errorMessage(error)}`, {
            cause: error,
          });
    });
    const decision = decide(twd);
    if ('refusal' in decision) throw new ControlRefused(decision.refusal);
    await api.mergePatch(path, decision.patch).catch((error: unknown) => {
      throw httpStatus(error) === 409
        ? new ControlRefused(`worker deployment ${namespace}/${name} changed meanwhile: run the command again`)
        : new ControlRefused(`cannot change worker deployment ${namespace}/${name}: ${errorMessage(error)}`, {
            cause: error,
          });
    });
    return decision.says;
  } finally {
    api.close();
  }
}
