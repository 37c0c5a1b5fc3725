// One HTTP/2 connection to a Temporal frontend, carrying the controller's WorkflowService calls as
// gRPC frames unary calls: a POST of one length-prefixed message, answered by one message and the
// status in trailers. gRPC's own client for Node (grpc-js) costs about 10 MiB to load and twice
// the CPU per call (issue 11). Kept from the SDK's connection: its keepalive, the API key header,
// and its retries of transient failures (call-retries.ts). Every call ends within its timeout,
// retries included: a frontend that accepts a call and never answers must not hold a reconcile.
import http2, { type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { isIP } from 'node:net';
import { DEFAULT_CALL_TIMEOUTS } from '../api/defaults.ts';
import { retryDelayMs } from './call-retries.ts';
import { type CallStatus, GrpcStatus, TemporalCallError } from './call-status.ts';
import { CALL_KINDS, WORKFLOW_SERVICE } from './protocol-scope.ts';
import { workflowService, type WorkflowService } from './protocol.ts';

export interface TlsSettings {
  /** The name the server's certificate must carry, when it is not the address's host. */
  serverNameOverride?: string;
  /** PEM; the process's default roots when absent. */
  serverRootCACertificate?: Buffer;
  clientCertPair?: { crt: Buffer; key: Buffer };
}

/** How long a call may take, retries included, by whether it reads or writes (CALL_KINDS). */
export interface CallTimeouts {
  readMs: number;
  writeMs: number;
}

/** What cut a call off: its own timeout (a read's or a write's), or its reconcile's deadline. */
export type CallCutOff = 'read' | 'write' | 'reconcile';

export interface ChannelOptions {
  /** host:port */
  address: string;
  /**
   * host:port to open the connection at instead, as curl's --connect-to (a port-forward, say): the
   * certificate is still checked against the address's host, and every call still names it.
   */
  dialAddress?: string;
  /** Undefined for plaintext. */
  tls?: TlsSettings;
  apiKey?: string;
  /** Default: DEFAULT_CALL_TIMEOUTS. */
  timeouts?: CallTimeouts;
  /** Told how every attempt ended, retries included. */
  onAttempt?: (method: string, status: CallStatus) => void;
  /** Told of every call that was cut off, and by what. */
  onCutOff?: (method: string, by: CallCutOff) => void;
}

/** One call's limits: when its timeout ends it, and the signal that may end it sooner. */
interface CallLimits {
  deadline: number;
  timeoutMs: number;
  kind: 'read' | 'write';
  signal: AbortSignal | undefined;
}

interface AttemptOutcome {
  status: CallStatus;
  message?: Buffer;
  cutOff?: CallCutOff;
}

/** As the SDK's connection: a ping every 30 s, even between calls; no answer in 15 s ends the connection. */
const KEEPALIVE_INTERVAL_MS = 30_000;
const KEEPALIVE_TIMEOUT_MS = 15_000;

export class TemporalChannel {
  private readonly options: ChannelOptions;
  private readonly timeouts: CallTimeouts;
  private apiKey: string | undefined;
  private session: ClientHttp2Session | undefined;
  private closed = false;
  /** Every call of it ends within its read or write timeout. */
  readonly service: WorkflowService;

  constructor(options: ChannelOptions) {
    this.options = options;
    this.timeouts = options.timeouts ?? DEFAULT_CALL_TIMEOUTS;
    this.apiKey = options.apiKey;
    this.service = this.serviceWith(undefined);
  }

  /**
   * The service, whose every call also ends when `signal` aborts (its reconcile's deadline): the
   * stream in flight is cancelled, so nothing of the reconcile goes on talking to Temporal.
   */
  cutOffBy(signal: AbortSignal): WorkflowService {
    return this.serviceWith(signal);
  }

  /** A rotated key is sent from the next call on, on the same connection. */
  setApiKey(apiKey: string): void {
    this.apiKey = apiKey;
  }

  close(): void {
    this.closed = true;
    this.session?.close();
    this.session = undefined;
  }

  private serviceWith(signal: AbortSignal | undefined): WorkflowService {
    return workflowService((method, request, callback) => {
      this.call(method.name, request, signal).then(
        (response) => callback(null, response),
        (error: unknown) => callback(error as Error),
      );
    });
  }

  /** One call, tried again after a transient failure while its timeout allows. */
  private async call(method: string, request: Uint8Array, signal: AbortSignal | undefined): Promise<Buffer> {
    const kind = CALL_KINDS[(method.charAt(0).toLowerCase() + method.slice(1)) as keyof typeof CALL_KINDS];
    const timeoutMs = kind === 'write' ? this.timeouts.writeMs : this.timeouts.readMs;
    const limits: CallLimits = { deadline: Date.now() + timeoutMs, timeoutMs, kind, signal };
    let failed: CallStatus | undefined;
    for (let attempt = 1; ; attempt++) {
      const { status, message, cutOff } = await this.attempt(method, request, limits);
      this.options.onAttempt?.(method, status);
      if (status.code === GrpcStatus.OK && message) return message;
      if (cutOff) {
        this.options.onCutOff?.(method, cutOff);
        if (cutOff === 'reconcile') throw new TemporalCallError(method, status, { cause: signal?.reason });
        // The timeout ended an attempt made again after a failure: that failure says why, the timeout does not.
        throw new TemporalCallError(method, failed ?? status);
      }
      failed = status;
      const delay = retryDelayMs(attempt, status, Math.random);
      if (delay === undefined || Date.now() + delay >= limits.deadline) throw new TemporalCallError(method, status);
      await pause(delay, signal);
    }
  }

  private attempt(method: string, request: Uint8Array, limits: CallLimits): Promise<AttemptOutcome> {
    return new Promise((resolve) => {
      const { signal } = limits;
      // Said the same each time, with no figure that changes: it ends up in a condition's message.
      const timedOut: AttemptOutcome = {
        status: {
          code: GrpcStatus.DEADLINE_EXCEEDED,
          details: `no answer within ${limits.timeoutMs / 1000}s, the timeout of a ${limits.kind}`,
        },
        cutOff: limits.kind,
      };
      const aborted = (): AttemptOutcome => ({
        status: { code: GrpcStatus.DEADLINE_EXCEEDED, details: reasonOf(signal) },
        cutOff: 'reconcile',
      });
      if (signal?.aborted) return resolve(aborted());
      const remainingMs = limits.deadline - Date.now();
      if (remainingMs <= 0) return resolve(timedOut);
      let stream: http2.ClientHttp2Stream;
      try {
        stream = this.connected().request(this.headers(method, remainingMs));
      } catch (error) {
        return resolve({ status: unavailable(error) });
      }
      let settled = false;
      const settle = (outcome: AttemptOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const cancel = (outcome: AttemptOutcome) => {
        stream.close(http2.constants.NGHTTP2_CANCEL);
        settle(outcome);
      };
      const timer = setTimeout(() => cancel(timedOut), remainingMs);
      const onAbort = () => cancel(aborted());
      signal?.addEventListener('abort', onAbort, { once: true });
      let head: IncomingHttpHeaders = {};
      let trailers: IncomingHttpHeaders | undefined;
      const chunks: Buffer[] = [];
      stream.on('response', (headers) => (head = headers));
      stream.on('trailers', (headers: IncomingHttpHeaders) => (trailers = headers));
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (error) => settle({ status: unavailable(error) }));
      stream.on('close', () => settle(answer(head, trailers, Buffer.concat(chunks), stream.rstCode)));
      stream.end(framed(request));
    });
  }

  private headers(method: string, remainingMs: number): http2.OutgoingHttpHeaders {
    const authority =
      this.options.tls?.serverNameOverride ?? (this.options.dialAddress ? this.options.address : undefined);
    return {
      ':method': 'POST',
      ':path': `/${WORKFLOW_SERVICE}/${method}`,
      ...(authority ? { ':authority': authority } : {}),
      'content-type': 'application/grpc',
      te: 'trailers',
      'user-agent': 'temporal-worker-controller',
      ...(this.apiKey === undefined ? {} : { authorization: `Bearer ${this.apiKey}` }),
      'grpc-timeout': `${Math.ceil(remainingMs)}m`,
    };
  }

  /** The open connection, or a new one: a connection that closed or failed is left behind. */
  private connected(): ClientHttp2Session {
    if (this.closed) throw new Error('the channel is closed');
    if (this.session && !this.session.closed && !this.session.destroyed) return this.session;
    const { address, dialAddress, tls } = this.options;
    // SNI carries names only: a certificate for an IP address is checked against the dialled one.
    const host = dialAddress ? hostOf(address) : undefined;
    const servername = tls?.serverNameOverride ?? (host && !isIP(host) ? host : undefined);
    const session = tls
      ? http2.connect(`https://${dialAddress ?? address}`, {
          ...(tls.serverRootCACertificate ? { ca: tls.serverRootCACertificate } : {}),
          ...(tls.clientCertPair ? { cert: tls.clientCertPair.crt, key: tls.clientCertPair.key } : {}),
          ...(servername ? { servername } : {}),
        })
      : http2.connect(`http://${dialAddress ?? address}`);
    // A failed connection fails its calls, each with the reason; the channel opens another at the next call.
    session.on('error', () => {});
    session.on('close', () => {
      clearTimeout(keepalive);
      if (this.session === session) this.session = undefined;
    });
    // Neither an idle connection nor its keepalive keeps the process alive.
    const ping = (): void => {
      // Destroyed (a timeout, a failed socket) before its close event came: that event ends the keepalive.
      if (session.destroyed) return;
      const noAnswer = setTimeout(() => session.destroy(), KEEPALIVE_TIMEOUT_MS).unref();
      session.ping((error) => {
        clearTimeout(noAnswer);
        if (!error) keepalive = setTimeout(ping, KEEPALIVE_INTERVAL_MS).unref();
      });
    };
    let keepalive = setTimeout(ping, KEEPALIVE_INTERVAL_MS).unref();
    session.unref();
    this.session = session;
    return session;
  }
}

/** Waits `ms`, or less if `signal` aborts meanwhile. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

function reasonOf(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason.message : String(reason);
}

/** The host of host:port, without the brackets of an IPv6 address. */
function hostOf(address: string): string {
  return new URL(`http://${address}`).hostname.replace(/^\[(.*)\]$/, '$1');
}

/** gRPC's framing of one message: not compressed, its length, the message. */
function framed(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame.writeUInt8(0, 0);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

/** The call's outcome from what the stream carried: the status in trailers, or in the headers alone. */
function answer(
  head: IncomingHttpHeaders,
  trailers: IncomingHttpHeaders | undefined,
  body: Buffer,
  rstCode: number | undefined,
): { status: CallStatus; message?: Buffer } {
  const ending = trailers?.['grpc-status'] !== undefined ? trailers : head;
  const code = ending['grpc-status'];
  if (code === undefined) return { status: withoutGrpcStatus(head[':status'], rstCode) };
  const details = ending['grpc-status-details-bin'];
  const status: CallStatus = {
    code: Number(code),
    details: percentDecoded(String(ending['grpc-message'] ?? '')),
    ...(typeof details === 'string' ? { statusDetails: Buffer.from(details, 'base64') } : {}),
  };
  if (status.code !== GrpcStatus.OK) return { status };
  if (body.length < 5 || body.readUInt8(0) !== 0 || body.readUInt32BE(1) !== body.length - 5)
    return { status: { code: GrpcStatus.INTERNAL, details: 'the answer is not one uncompressed message' } };
  return { status, message: body.subarray(5) };
}

/** gRPC's mapping of the HTTP statuses a proxy may answer with. */
const FROM_HTTP_STATUS: ReadonlyMap<number, GrpcStatus> = new Map([
  [400, GrpcStatus.INTERNAL],
  [401, GrpcStatus.UNAUTHENTICATED],
  [403, GrpcStatus.PERMISSION_DENIED],
  [404, GrpcStatus.UNIMPLEMENTED],
  [429, GrpcStatus.UNAVAILABLE],
  [502, GrpcStatus.UNAVAILABLE],
  [503, GrpcStatus.UNAVAILABLE],
  [504, GrpcStatus.UNAVAILABLE],
]);

/** A stream that ended without a gRPC status: as gRPC maps the HTTP status, or the stream's reset. */
function withoutGrpcStatus(httpStatus: unknown, rstCode: number | undefined): CallStatus {
  if (typeof httpStatus === 'number' && httpStatus !== 200)
    return {
      code: FROM_HTTP_STATUS.get(httpStatus) ?? GrpcStatus.UNKNOWN,
      details: `HTTP status ${httpStatus} without a gRPC status`,
    };
  if (rstCode === http2.constants.NGHTTP2_REFUSED_STREAM)
    return { code: GrpcStatus.UNAVAILABLE, details: 'the server refused the stream' };
  if (rstCode !== undefined && rstCode !== http2.constants.NGHTTP2_NO_ERROR)
    return { code: GrpcStatus.INTERNAL, details: `Received RST_STREAM with code ${rstCode}` };
  return { code: GrpcStatus.INTERNAL, details: 'Call ended without gRPC status' };
}

/** grpc-message is percent-encoded; a malformed one is shown as sent. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The connection failed (refused, TLS, closed): the reason, in the words of the layer that gave it. */
function unavailable(error: unknown): CallStatus {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return { code: GrpcStatus.UNAVAILABLE, details: cause instanceof Error ? cause.message : String(cause) };
}
