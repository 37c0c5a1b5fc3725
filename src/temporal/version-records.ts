// Deleting Temporal's record of one build. The server refuses while it remembers the build's
// pollers (matching.PollerHistoryTTL, minutes after the last worker stopped): only time lifts that,
// so it is a wait. An answer that the record is already gone is success. Anything else is thrown,
// for the caller to report: nothing here decides that a refusal does not matter.
import { status as GrpcStatus } from '@grpc/grpc-js';
import { isGrpcServiceError, type WorkflowService } from '@temporalio/client';

export interface VersionRecordTarget {
  service: WorkflowService;
  namespace: string;
  deploymentName: string;
  identity: string;
}

export type VersionRecordDeletion = { deleted: true } | { deleted: false; waitingFor: string };

/** `skipDrainage`: delete even if pinned workflows may still run (only when the whole deployment goes). */
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
    if (isGrpcServiceError(error) && error.code === GrpcStatus.NOT_FOUND) return { deleted: true };
    if (isGrpcServiceError(error) && error.code === GrpcStatus.FAILED_PRECONDITION && /pollers/i.test(error.details)) {
      return {
        deleted: false,
        waitingFor: `Temporal keeps the record of build ${buildId} while it remembers its pollers: ${error.details}`,
      };
    }
    throw error;
  }
}
