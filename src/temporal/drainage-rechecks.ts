// A Worker Deployment lists each of its versions with a copy of its drainage, which the version
// sends it when that changes. The copy can stay at Draining after the version itself found its
// workflows gone: under several test files' load, server 1.29.1 answered Drained for a version
// and Draining for its line in the deployment's list for over 90 s, unchanged (the Go controller's
// maintainers saw the same, temporal-worker-controller#552). Trusted alone, the copy keeps a
// drained build's Pods forever and a worker deployment's deletion waiting. So a build listed as
// Draining for a while is also read from its own record, on a cadence that slows as it stays
// draining, and the record's Drained is believed while the list says Draining. Not for ever: a
// version drained can drain again (a versioning override pins workflows to it, a reset), and its
// list line need not change when it does. So the record is still read on that cadence, and at once
// when the list's line changes: it is what the build says of itself that counts.
import { realTimers, type Timers } from '../runtime/timers.ts';
import { GrpcStatus, TemporalCallError } from './call-status.ts';
import { enums, type WorkflowService } from './protocol.ts';
import { aroundCalls } from './service-calls.ts';

const { VersionDrainageStatus } = enums;
type DeploymentResponse = Awaited<ReturnType<WorkflowService['describeWorkerDeployment']>>;
type VersionSummary = NonNullable<NonNullable<DeploymentResponse['workerDeploymentInfo']>['versionSummaries']>[number];
type DrainageInfo = NonNullable<VersionSummary['drainageInfo']>;

/** A copy that turns Drained on its own does so within seconds where drainage is refreshed often; not worth a read before. */
export const FIRST_RECHECK_MS = 30_000;
/** However long a build drains, its record is read at least this often. */
export const MAX_RECHECK_INTERVAL_MS = 600_000;

/**
 * Whether a build listed as Draining since `drainingSince` (as this process first saw it) is due a
 * read of its own record: from FIRST_RECHECK_MS on, then every quarter of the time it has drained,
 * within FIRST_RECHECK_MS and MAX_RECHECK_INTERVAL_MS. A build with week-long workflows costs a few
 * reads an hour, not one per reconcile.
 */
export function recheckDue(drainingSince: number, lastReadAt: number | undefined, now: number): boolean {
  const draining = now - drainingSince;
  if (draining < FIRST_RECHECK_MS) return false;
  if (lastReadAt === undefined) return true;
  const interval = Math.min(Math.max(draining / 4, FIRST_RECHECK_MS), MAX_RECHECK_INTERVAL_MS);
  return now - lastReadAt >= interval;
}

interface DrainingBuild {
  since: number;
  readAt?: number;
  /** What the build's own record said when last read, if it said Drained. */
  drained?: DrainageInfo;
  /** The list's line when the record said Drained: a change of it is news of the build. */
  listed?: string;
}

export class DrainageRechecks {
  private readonly timers: Timers;
  private readonly corrected: (deploymentName: string, buildId: string) => void;
  /** By address, namespace and deployment (JSON of the three): the builds its list last called Draining. */
  private readonly draining = new Map<string, Map<string, DrainingBuild>>();

  /** `corrected` hears of each build whose record said Drained while the list still said Draining. */
  constructor(corrected: (deploymentName: string, buildId: string) => void = () => {}, timers: Timers = realTimers) {
    this.corrected = corrected;
    this.timers = timers;
  }

  /**
   * The service of Temporal at `address`, whose deployment descriptions carry each due build's own
   * drainage. `reads: false` (a reconcile a change brought, whose reads go ahead of routine looks):
   * no record is read, the records already read still count, but one whose list line changed since
   * is not believed (the list's Draining stands until a routine look reads the record again).
   */
  checking(service: WorkflowService, address: string, reads = true): WorkflowService {
    return aroundCalls<Parameters<WorkflowService['describeWorkerDeployment']>[0]>(
      service,
      (method) => method === 'describeWorkerDeployment',
      async (request, call) => {
        const response = (await call(request)) as DeploymentResponse;
        await this.recheck(service, address, request, response, reads);
        return response;
      },
    );
  }

  private async recheck(
    service: WorkflowService,
    address: string,
    request: Parameters<WorkflowService['describeWorkerDeployment']>[0],
    response: DeploymentResponse,
    reads: boolean,
  ): Promise<void> {
    const { namespace, deploymentName } = request;
    const key = JSON.stringify([address, namespace, deploymentName]);
    const previous = this.draining.get(key);
    const next = new Map<string, DrainingBuild>();
    for (const summary of response.workerDeploymentInfo?.versionSummaries ?? []) {
      const buildId = summary.deploymentVersion?.buildId;
      const drainage = summary.drainageInfo?.status ?? summary.drainageStatus;
      if (!buildId || drainage !== VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINING) continue;
      const now = this.timers.now();
      const build = previous?.get(buildId) ?? { since: now };
      next.set(buildId, build);
      const listed = JSON.stringify(summary.drainageInfo ?? null);
      const news = build.drained !== undefined && build.listed !== listed;
      if (news && !reads) continue;
      if (reads && (news || recheckDue(build.since, build.readAt, now))) {
        build.readAt = now;
        const own = await versionDrainage(service, namespace ?? '', deploymentName ?? '', buildId);
        const wasDrained = build.drained !== undefined;
        delete build.drained;
        delete build.listed;
        if (own?.status === VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINED) {
          build.drained = own;
          build.listed = listed;
          if (!wasDrained) this.corrected(deploymentName ?? '', buildId);
        }
      }
      if (build.drained) {
        summary.drainageInfo = build.drained;
        summary.drainageStatus = VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINED;
      }
    }
    if (next.size > 0) this.draining.set(key, next);
    else this.draining.delete(key);
  }

  /** Forgets a deployment deleted: no description of it will come to replace what is kept. */
  forget(deploymentName: string): void {
    for (const key of this.draining.keys())
      if ((JSON.parse(key) as string[])[2] === deploymentName) this.draining.delete(key);
  }
}

/** The drainage the build's own record holds; undefined once the record is gone. */
async function versionDrainage(
  service: WorkflowService,
  namespace: string,
  deploymentName: string,
  buildId: string,
): Promise<DrainageInfo | undefined> {
  try {
    const response = await service.describeWorkerDeploymentVersion({
      namespace,
      deploymentVersion: { deploymentName, buildId },
    });
    return response.workerDeploymentVersionInfo?.drainageInfo ?? undefined;
  } catch (error) {
    if (error instanceof TemporalCallError && error.code === GrpcStatus.NOT_FOUND) return undefined;
    throw error;
  }
}
