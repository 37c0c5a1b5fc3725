// How a call to Temporal ended: gRPC's status codes (fixed by the gRPC protocol), and the error of
// a call that did not end OK.

export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcStatus = (typeof GrpcStatus)[keyof typeof GrpcStatus];

const NAMES = new Map(Object.entries(GrpcStatus).map(([name, code]) => [code as number, name]));

/** OK, NOT_FOUND...; the number itself for a code gRPC does not define. */
export function statusName(code: number): string {
  return NAMES.get(code) ?? String(code);
}

export interface CallStatus {
  code: number;
  details: string;
  /** The server's google.rpc.Status (grpc-status-details-bin), when it sent one. */
  statusDetails?: Buffer;
}

/** A call to Temporal that ended with a status other than OK, after any retries. */
export class TemporalCallError extends Error {
  override name = 'TemporalCallError';
  readonly code: number;
  readonly details: string;
  readonly statusDetails: Buffer | undefined;

  /** `cause`: what cut the call off, when that was not the server (a reconcile's deadline). */
  constructor(method: string, status: CallStatus, options?: ErrorOptions) {
    super(`${method}: ${statusName(status.code)}: ${status.details}`, options);
    this.code = status.code;
    this.details = status.details;
    this.statusDetails = status.statusDetails;
  }
}
