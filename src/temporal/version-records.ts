// Deleting Temporal's record of one build. The server refuses while it remembers the build's
// pollers (matching.PollerHistoryTTL, minutes after the last worker stopped): only time lifts that,
// so it is a wait. An answer that the record is already gone is success. Anything else is thrown,
// for the caller to report: nothing here decides that a refusal does not matter.
import { realTimers, type Timers } from '../runtime/timers.ts';
import { GrpcStatus, TemporalCallError } from './call-status.ts';
import type { WorkflowService } from './protocol.ts';
import { aroundCalls } from './service-calls.ts';

export interface VersionRecordTarget {
  service: WorkflowService;
  namespace: string;
  deploymentName: string;
  identity: string;
}

export type VersionRecordDeletion = { deleted: true } | { deleted: false; waitingFor: string };

/** `skipDrainage`: delete even if pinned workflows may still run (only when a deletion is forced). */
export async function deleteVersionRecord(
  target: VersionRecordTarget,
  buildId: string,
  options: { skipDrainage?: boolean } = {},
): Promise<VersionRecordDeletion> {
  const { service, namespace, deploymentName, identity } = target;
  try {
    await service.deleteWorkerDeploymentVersion({
      namespace,
      deploymentVersion: { deploymentName, buildId },
      identity,
      ...(options.skipDrainage ? { skipDrainage: true } : {}),
    });
    return { deleted: true };
  } catch (error) {
    if (error instanceof TemporalCallError && error.code === GrpcStatus.NOT_FOUND) return { deleted: true };
    if (refusedForPollers(error)) {
      return {
        deleted: false,
        waitingFor: `Temporal keeps the record of build ${buildId} while it remembers its pollers: ${error.details}`,
      };
    }
    throw error;
  }
}

function refusedForPollers(error: unknown): error is Error & { details: string } {
  return (
    error instanceof TemporalCallError &&
    error.code === GrpcStatus.FAILED_PRECONDITION &&
    /pollers/i.test(error.details)
  );
}

/**
 * Remembers the deletions the server refused for recent pollers, and gives reconciles that refusal
 * again for `retryAfterMs` without asking. The server remembers pollers for minutes, and each
 * refused deletion is an update of its Worker Deployment workflow: resent by every reconcile (one
 * per Deployment event while old builds retire), they kept that workflow busy and its
 * DescribeWorkerDeployment, which a reconcile waits for before it acts, slow.
 */
export class PollerRefusals {
  private readonly retryAfterMs: number;
  private readonly timers: Timers;
  /** By address, namespace, deployment and build: when the server refused, and its answer. */
  private readonly refused = new Map<string, { at: number; error: unknown }>();

  constructor(retryAfterMs: number, timers: Timers = realTimers) {
    this.retryAfterMs = retryAfterMs;
    this.timers = timers;
  }

  /** The service of Temporal at `address`, whose deletions of version records go through this memory. */
  remembering(service: WorkflowService, address: string): WorkflowService {
    return aroundCalls<Parameters<WorkflowService['deleteWorkerDeploymentVersion']>[0]>(
      service,
      (method) => method === 'deleteWorkerDeploymentVersion',
      async (request, call) => {
        const { deploymentName, buildId } = request.deploymentVersion ?? {};
        const key = JSON.stringify([address, request.namespace, deploymentName, buildId]);
        const now = this.timers.now();
        for (const [k, { at }] of this.refused) if (now - at >= this.retryAfterMs) this.refused.delete(k);
        const earlier = this.refused.get(key);
        if (earlier) throw earlier.error;
        try {
          return await call(request);
        } catch (error) {
          if (refusedForPollers(error)) this.refused.set(key, { at: this.timers.now(), error });
          throw error;
        }
      },
    );
  }
}
