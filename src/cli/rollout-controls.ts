// `twc pause`, `resume`, `promote` and `abort`: each is a change of spec.rollout (paused, promote,
// abort), so that GitOps sees it, made only where it means something; anywhere else the command
// refuses and says why. Pure: the worker deployment as read comes in, the patch or the refusal out.
import { DEFAULT_STRATEGY } from '../api/defaults.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';

export const CONTROLS = ['pause', 'resume', 'promote', 'abort'] as const;
export type Control = (typeof CONTROLS)[number];

export type ControlDecision =
  | {
      /** A JSON merge patch, with the resourceVersion it was decided on. */
      patch: object;
      /** What it does, for the person who asked. */
      says: string;
    }
  | { refusal: string };

export function rolloutControl(
  control: Control,
  twd: TemporalWorkerDeployment,
  options: { build?: string } = {},
): ControlDecision {
  const name = `${twd.metadata.namespace ?? ''}/${twd.metadata.name ?? ''}`;
  const field = twd.spec.rollout === undefined && twd.spec.cutover !== undefined ? 'cutover' : 'rollout';
  const rollout = twd.spec[field] ?? { strategy: DEFAULT_STRATEGY };
  const refuse = (why: string): ControlDecision => ({ refusal: `${name}: ${why}` });
  const patch = (change: Record<string, unknown>, says: string): ControlDecision => ({
    patch: {
      metadata: { resourceVersion: twd.metadata.resourceVersion },
      spec: { [field]: twd.spec[field] === undefined ? { strategy: rollout.strategy, ...change } : change },
    },
    says: `${name}: ${says}`,
  });

  if (control === 'resume') return rollout.paused ? patch({ paused: null }, 'resumed') : refuse('is not paused');
  if (rollout.strategy === 'Manual' && control !== 'promote')
    return refuse(`uses the Manual strategy, which moves no traffic: there is nothing to ${control}`);
  if (control === 'pause')
    return rollout.paused
      ? refuse('is already paused')
      : patch({ paused: true }, `paused: no change moves new workflows toward the target until \`twc resume\``);

  const generation = twd.metadata.generation;
  if (generation !== undefined && twd.status?.observedGeneration !== generation)
    return refuse(
      `the controller has not observed generation ${generation} yet: its target is not known; try again in a moment`,
    );
  const target = twd.status?.targetVersion?.buildID;
  if (!target) return refuse('has no target build yet');
  if (options.build !== undefined && options.build !== target)
    return refuse(`build ${options.build} is not the target: the target is build ${target}`);
  if (twd.status?.currentVersion?.buildID === target)
    return refuse(
      control === 'promote'
        ? `build ${target} is already current`
        : `build ${target} is already current: to go back, set the template of the build to run`,
    );

  if (control === 'abort')
    return rollout.abort === target
      ? refuse(`the rollout of build ${target} is already aborted`)
      : patch({ abort: target }, `the rollout of build ${target} is aborted: its ramp is cleared`);
  if (rollout.strategy === 'AllAtOnce')
    return refuse(`uses AllAtOnce, which promotes build ${target} as soon as it is available and past its gate`);
  if (rollout.paused) return refuse('is paused: `twc resume` it first');
  if (rollout.abort === target)
    return refuse(`the rollout of build ${target} is aborted: change the template to go on`);
  if (rollout.promote === target) return refuse(`build ${target} is already being promoted`);
  return patch(
    { promote: target },
    rollout.strategy === 'Manual'
      ? `build ${target} is promoted: it becomes current once available and past its gate`
      : `build ${target} is promoted: the remaining steps go without their pauses, each gate still runs`,
  );
}
