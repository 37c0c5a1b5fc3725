// `twc move NAME --from BUILD [--to BUILD]`: asks the controller to move the pinned workflows of
// one build that the current build's code replays onto the current build
// (spec.sunset.pinnedWorkflows.moveFrom), made only where it means something; anywhere else the
// command refuses and says why. Pure: the worker deployment as read comes in, the patch or the
// refusal out.
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import type { ControlDecision } from './rollout-controls.ts';

export function moveControl(twd: TemporalWorkerDeployment, options: { from: string; to?: string }): ControlDecision {
  const { from, to } = options;
  const name = `${twd.metadata.namespace ?? ''}/${twd.metadata.name ?? ''}`;
  const refuse = (why: string): ControlDecision => ({ refusal: `${name}: ${why}` });
  const status = twd.status;
  const current = status?.currentVersion?.buildID;
  if (!current) return refuse('has no current build: there is no build to move workflows onto');
  if (to !== undefined && to !== current)
    return refuse(
      `workflows move onto the current build only, build ${current}: a build that is not current may be scaled down and deleted while they run on it`,
    );
  if (from === current) return refuse(`build ${from} is current: its workflows are where new ones go`);
  const target = status.targetVersion;
  const builds = [target?.buildID, ...(status.deprecatedVersions ?? []).map((v) => v.buildID)];
  if (!builds.includes(from))
    return refuse(
      `build ${from} has no workers here: its builds with workers are ${builds.filter(Boolean).join(', ')}`,
    );
  const rollout = twd.spec.rollout ?? twd.spec.cutover;
  const failed = (status.failedBuilds ?? []).some((f) => f.buildID === from);
  if (from === target?.buildID && rollout?.abort !== from && !failed)
    return refuse(
      `build ${from} is the target of a rollout under way: abort it first (twc abort ${twd.metadata.name ?? ''})`,
    );
  if (twd.spec.sunset?.pinnedWorkflows?.moveFrom === from)
    return refuse(`the pinned workflows of build ${from} are already being moved`);
  return {
    patch: {
      metadata: { resourceVersion: twd.metadata.resourceVersion },
      spec: { sunset: { pinnedWorkflows: { moveFrom: from } } },
    },
    says: `${name}: the pinned workflows of build ${from} that build ${current}'s code replays are moved onto it, in rounds; the status of build ${from} (pinnedWorkflows.move) says what moved and what stays`,
  };
}
