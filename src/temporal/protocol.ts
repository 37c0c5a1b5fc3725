// The protobuf side of the controller's calls to Temporal. The SDK's client with its root of the
// whole API takes about 50 MiB to load, for 15 RPCs; protocol.json holds only what those RPCs
// reach, cut from the SDK's root by `npm run generate`. The types are the SDK's, imported as types.
import type { google, temporal } from '@temporalio/proto';
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs/light.js';
import { PROTOCOL_FILE, WORKFLOW_SERVICE, type WorkflowService } from './protocol-scope.ts';

export type { WorkflowService };

const root = protobuf.Root.fromJSON(JSON.parse(readFileSync(PROTOCOL_FILE, 'utf8')) as protobuf.INamespace);
const service = root.lookupService(WORKFLOW_SERVICE);

/** The service over `rpcImpl`, which carries each call's encoded request and answers with the encoded response. */
export function workflowService(rpcImpl: protobuf.RPCImpl): WorkflowService {
  return service.create(rpcImpl) as unknown as WorkflowService;
}

/** An enum's values by name, and names by value, as the SDK's types declare them. */
function enumeration<E>(name: string): E {
  return root.lookupEnum(name).values as E;
}

const v1 = 'temporal.api.enums.v1';
export const enums = {
  BatchOperationState: enumeration<typeof temporal.api.enums.v1.BatchOperationState>(`${v1}.BatchOperationState`),
  HistoryEventFilterType: enumeration<typeof temporal.api.enums.v1.HistoryEventFilterType>(
    `${v1}.HistoryEventFilterType`,
  ),
  PinnedOverrideBehavior: enumeration<typeof temporal.api.workflow.v1.VersioningOverride.PinnedOverrideBehavior>(
    'temporal.api.workflow.v1.VersioningOverride.PinnedOverrideBehavior',
  ),
  ResourceExhaustedCause: enumeration<typeof temporal.api.enums.v1.ResourceExhaustedCause>(
    `${v1}.ResourceExhaustedCause`,
  ),
  TaskQueueType: enumeration<typeof temporal.api.enums.v1.TaskQueueType>(`${v1}.TaskQueueType`),
  VersionDrainageStatus: enumeration<typeof temporal.api.enums.v1.VersionDrainageStatus>(`${v1}.VersionDrainageStatus`),
  WorkerVersioningMode: enumeration<typeof temporal.api.enums.v1.WorkerVersioningMode>(`${v1}.WorkerVersioningMode`),
  WorkflowExecutionStatus: enumeration<typeof temporal.api.enums.v1.WorkflowExecutionStatus>(
    `${v1}.WorkflowExecutionStatus`,
  ),
  WorkflowIdReusePolicy: enumeration<typeof temporal.api.enums.v1.WorkflowIdReusePolicy>(`${v1}.WorkflowIdReusePolicy`),
};

export const messages = {
  Status: root.lookupType('google.rpc.Status') as unknown as typeof google.rpc.Status,
  ResourceExhaustedFailure: root.lookupType(
    'temporal.api.errordetails.v1.ResourceExhaustedFailure',
  ) as unknown as typeof temporal.api.errordetails.v1.ResourceExhaustedFailure,
};
