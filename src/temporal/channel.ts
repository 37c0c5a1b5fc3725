// One gRPC channel to a Temporal frontend, carrying the WorkflowService calls of protocol.ts, with
// the keepalive and API key header of the SDK's own connection. The SDK's Connection would load
// the protobuf root of Temporal's whole API with it (issue 11: the controller's footprint).
import {
  type CallOptions,
  Client,
  credentials as channelCredentials,
  type Interceptor,
  Metadata,
  type ServiceError,
} from '@grpc/grpc-js';
import { WORKFLOW_SERVICE } from './protocol-scope.ts';
import { workflowService, type WorkflowService } from './protocol.ts';

export interface TlsSettings {
  /** The name the server's certificate must carry, when it is not the address's host. */
  serverNameOverride?: string;
  /** PEM; Node's default roots when absent. */
  serverRootCACertificate?: Buffer;
  clientCertPair?: { crt: Buffer; key: Buffer };
}

export interface ChannelOptions {
  /** host:port */
  address: string;
  /** Undefined for plaintext. */
  tls?: TlsSettings;
  apiKey?: string;
  /** Around every call, outermost first. */
  interceptors: Interceptor[];
}

/** A call Temporal (or the network) refused: grpc-js's error, with the status code and its details. */
export function isServiceError(error: unknown): error is ServiceError {
  return error instanceof Error && typeof (error as Partial<ServiceError>).code === 'number' && 'details' in error;
}

export class TemporalChannel {
  private readonly client: Client;
  private readonly interceptors: Interceptor[];
  private apiKey: string | undefined;
  /** Every call of it waits as long as it must: grpc-js's keepalive finds a connection that died. */
  readonly service: WorkflowService;

  constructor(options: ChannelOptions) {
    const { tls } = options;
    const credentials = tls
      ? channelCredentials.createSsl(tls.serverRootCACertificate, tls.clientCertPair?.key, tls.clientCertPair?.crt)
      : channelCredentials.createInsecure();
    this.client = new Client(options.address, credentials, {
      'grpc.keepalive_permit_without_calls': 1,
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 15_000,
      ...(tls?.serverNameOverride
        ? { 'grpc.ssl_target_name_override': tls.serverNameOverride, 'grpc.default_authority': tls.serverNameOverride }
        : {}),
    });
    this.interceptors = options.interceptors;
    this.apiKey = options.apiKey;
    this.service = this.serviceWith({});
  }

  /** The service, whose every call ends by `deadline`. */
  until(deadline: Date): WorkflowService {
    return this.serviceWith({ deadline });
  }

  /** A rotated key is sent from the next call on, on the same connection. */
  setApiKey(apiKey: string): void {
    this.apiKey = apiKey;
  }

  close(): void {
    this.client.close();
  }

  private serviceWith(callOptions: Pick<CallOptions, 'deadline'>): WorkflowService {
    const options = { ...callOptions, interceptors: this.interceptors };
    return workflowService((method, request, callback) => {
      const metadata = new Metadata();
      if (this.apiKey !== undefined) metadata.set('authorization', `Bearer ${this.apiKey}`);
      this.client.makeUnaryRequest(
        `/${WORKFLOW_SERVICE}/${method.name}`,
        (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
        (bytes: Buffer) => bytes,
        request,
        metadata,
        options,
        callback,
      );
    });
  }
}
