// Counting every call the controller makes to Temporal, by RPC method and gRPC status: a gRPC
// client interceptor, placed inside Temporal's retry interceptor so that each attempt counts.
import { InterceptingCall, type Interceptor, status } from '@grpc/grpc-js';

/** Called once per call; code is the gRPC status name, e.g. OK or NOT_FOUND. */
export type TemporalRequestCounter = (method: string, code: string) => void;

export function countingInterceptor(count: TemporalRequestCounter): Interceptor {
  return (options, nextCall) => {
    // The path is /temporal.api.workflowservice.v1.WorkflowService/DescribeWorkerDeployment.
    const method = options.method_definition.path.slice(options.method_definition.path.lastIndexOf('/') + 1);
    return new InterceptingCall(nextCall(options), {
      start: (metadata, _listener, next) =>
        next(metadata, {
          onReceiveStatus: (received, nextStatus) => {
            count(method, status[received.code] ?? String(received.code));
            nextStatus(received);
          },
        }),
    });
  };
}
