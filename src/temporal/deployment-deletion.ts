// Deletes Temporal's Worker Deployment once its worker deployment has no version left there.
// An answer that it is already gone is success; anything else is thrown for the caller to report.
import { GrpcStatus, TemporalCallError } from './call-status.ts';
import type { VersionRecordTarget } from './version-records.ts';

export async function deleteWorkerDeployment(target: VersionRecordTarget): Promise<void> {
  const { service, namespace, deploymentName, identity } = target;
  try {
    await service.deleteWorkerDeployment({ namespace, deploymentName, identity });
  } catch (error) {
    if (!(error instanceof TemporalCallError && error.code === GrpcStatus.NOT_FOUND)) throw error;
  }
}
