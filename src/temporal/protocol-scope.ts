// The part of Temporal's API the controller uses: the RPCs it calls and the messages it decodes by
// hand. protocol.json is cut to this by `npm run generate`; a call outside it is a type error here.
import type { temporal } from '@temporalio/proto';

/** The cut of the SDK's descriptor to these RPCs and messages. */
export const PROTOCOL_FILE = new URL('./protocol.json', import.meta.url);

export const WORKFLOW_SERVICE = 'temporal.api.workflowservice.v1.WorkflowService';

/** Every WorkflowService RPC the controller calls, by protobufjs's name. */
export const WORKFLOW_SERVICE_METHODS = [
  'getSystemInfo',
  'describeNamespace',
  'describeWorkerDeployment',
  'describeWorkerDeploymentVersion',
  'describeTaskQueue',
  'setWorkerDeploymentCurrentVersion',
  'setWorkerDeploymentRampingVersion',
  'setWorkerDeploymentManager',
  'deleteWorkerDeploymentVersion',
  'deleteWorkerDeployment',
  'countWorkflowExecutions',
  'listWorkflowExecutions',
  'describeWorkflowExecution',
  'getWorkflowExecutionHistory',
  'startWorkflowExecution',
  'terminateWorkflowExecution',
  'startBatchOperation',
  'describeBatchOperation',
  'stopBatchOperation',
] as const;

/**
 * Whether each RPC only reads or changes something in Temporal: a read may be asked again at no
 * cost, so it gets the shorter timeout (channel.ts).
 */
export const CALL_KINDS = {
  getSystemInfo: 'read',
  describeNamespace: 'read',
  describeWorkerDeployment: 'read',
  describeWorkerDeploymentVersion: 'read',
  describeTaskQueue: 'read',
  setWorkerDeploymentCurrentVersion: 'write',
  setWorkerDeploymentRampingVersion: 'write',
  setWorkerDeploymentManager: 'write',
  deleteWorkerDeploymentVersion: 'write',
  deleteWorkerDeployment: 'write',
  countWorkflowExecutions: 'read',
  listWorkflowExecutions: 'read',
  describeWorkflowExecution: 'read',
  getWorkflowExecutionHistory: 'read',
  startWorkflowExecution: 'write',
  terminateWorkflowExecution: 'write',
  startBatchOperation: 'write',
  describeBatchOperation: 'read',
  stopBatchOperation: 'write',
} as const satisfies Record<(typeof WORKFLOW_SERVICE_METHODS)[number], 'read' | 'write'>;

/** Messages decoded outside any RPC: what a refusal carries in its status details. */
export const DETAIL_MESSAGES = ['google.rpc.Status', 'temporal.api.errordetails.v1.ResourceExhaustedFailure'] as const;

export type WorkflowService = Pick<
  temporal.api.workflowservice.v1.WorkflowService,
  (typeof WORKFLOW_SERVICE_METHODS)[number]
>;
