// The controller's Temporal clients, one per TemporalConnection. A client is replaced when its
// address, TLS settings or client certificate change, takes a rotated API key or a renewed
// service-account token in place, and is
// dropped when Temporal refuses its credentials, so the next reconcile connects again with what
// the Secret holds then.
import type { V1Secret } from '@kubernetes/client-node';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import { type CallStatus, GrpcStatus, statusName } from './call-status.ts';
import { type CallCutOff, type CallTimeouts, TemporalChannel } from './channel.ts';
import {
  controllerSecrets,
  CredentialsError,
  lookupSecrets,
  resolveConnection,
  type ResolvedConnection,
} from './credentials.ts';
import type { TokenAsk } from '../domain/token-policy.ts';
import { ServiceAccountTokenError } from '../k8s/service-account-tokens.ts';
import type { WorkflowService } from './protocol.ts';

export interface ClientPoolOptions {
  /** The Secret as cached, undefined when it does not exist. */
  secret(namespace: string, name: string): Promise<V1Secret | undefined>;
  /** Default: the channel's (DEFAULT_CALL_TIMEOUTS). */
  timeouts?: CallTimeouts;
  /** Addresses (host:port) to dial elsewhere, keyed by a connection's hostPort: see ChannelOptions.dialAddress. */
  connectTo?: ReadonlyMap<string, string>;
  /**
   * A service-account token, for connections whose serviceAccountToken makes it the bearer token;
   * rejects with a message that says what to fix (a ServiceAccountTokenError says whether it was
   * refused). Absent, such connections are refused.
   */
  serviceAccountToken?: (request: TokenAsk) => Promise<string>;
  /** Told how every call attempt ended (metrics, for instance). */
  onAttempt?: (method: string, status: CallStatus) => void;
  /** Told of every call cut off by its timeout or its reconcile's deadline. */
  onCutOff?: (method: string, by: CallCutOff) => void;
}

/** Temporal could not be reached with these settings; the message says why. */
export class TemporalConnectError extends Error {
  override name = 'TemporalConnectError';
  /** The last failed attempt's gRPC status, when an attempt got one. */
  readonly status: CallStatus | undefined;

  constructor(message: string, options: ErrorOptions & { status?: CallStatus } = {}) {
    super(message, options);
    this.status = options.status;
  }
}

interface PooledClient {
  fingerprint: string;
  channel: Promise<TemporalChannel>;
}

export class TemporalClientPool {
  private readonly options: ClientPoolOptions;
  private readonly clients = new Map<string, PooledClient>();
  private closed = false;

  constructor(options: ClientPoolOptions) {
    this.options = options;
  }

  /**
   * Throws CredentialsError when the connection's Secret is missing or unusable, or no token can be
   * had. `signal`: a reconcile's deadline, which also cuts off the calls it makes.
   */
  async workflowService(connection: TemporalConnection, signal?: AbortSignal): Promise<WorkflowService> {
    const namespace = connection.metadata.namespace ?? '';
    const identity = identityOf(namespace, connection.metadata.name ?? '');
    const secrets = await lookupSecrets(controllerSecrets(connection), (secretNamespace, name) =>
      this.options.secret(secretNamespace, name),
    );
    const resolved = resolveConnection(connection, secrets);
    const bearer = resolved.serviceAccountToken ? await this.token(resolved.serviceAccountToken) : resolved.apiKey;
    let pooled = this.clients.get(identity);
    if (pooled?.fingerprint !== resolved.fingerprint) {
      if (pooled) this.discard(identity, pooled);
      pooled = this.connect(identity, resolved, bearer);
    }
    const live = await pooled.channel;
    // Swapped in place: a rotated key or a renewed token needs no new connection.
    if (bearer !== undefined) live.setApiKey(bearer);
    return signal ? live.cutOffBy(signal) : live.service;
  }

  /** The TemporalConnection is gone: its client goes too. */
  release(namespace: string, name: string): void {
    const identity = identityOf(namespace, name);
    const pooled = this.clients.get(identity);
    if (pooled) this.discard(identity, pooled);
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(all.map(closeQuietly));
  }

  private async token(request: TokenAsk): Promise<string> {
    const issue = this.options.serviceAccountToken;
    if (!issue)
      throw new CredentialsError(
        'TokenUnavailable',
        'serviceAccountToken: this controller cannot request service-account tokens',
      );
    try {
      return await issue(request);
    } catch (error) {
      const refused = error instanceof ServiceAccountTokenError && error.reason === 'TokenRefused';
      throw new CredentialsError(
        refused ? 'TokenRefused' : 'TokenUnavailable',
        error instanceof Error ? error.message : String(error),
        { cause: error },
      );
    }
  }

  private connect(identity: string, resolved: ResolvedConnection, bearer: string | undefined): PooledClient {
    // A reconcile still running at shutdown must not open a connection that nobody closes.
    if (this.closed) throw new Error('the Temporal client pool is closed');
    let lastFailure: CallStatus | undefined;
    const dialAddress = this.options.connectTo?.get(resolved.address);
    const channel = new TemporalChannel({
      address: resolved.address,
      ...(dialAddress ? { dialAddress } : {}),
      ...(resolved.tls ? { tls: resolved.tls } : {}),
      ...(bearer === undefined ? {} : { apiKey: bearer }),
      ...(this.options.timeouts ? { timeouts: this.options.timeouts } : {}),
      ...(this.options.onCutOff ? { onCutOff: this.options.onCutOff } : {}),
      onAttempt: (method, status) => {
        this.options.onAttempt?.(method, status);
        if (status.code === GrpcStatus.OK) return;
        // A deadline says only that time ran out; the failure before it says why.
        if (status.code !== GrpcStatus.DEADLINE_EXCEEDED) lastFailure = status;
        if (status.code === GrpcStatus.UNAUTHENTICATED || status.code === GrpcStatus.PERMISSION_DENIED)
          this.discard(identity, pooled);
      },
    });
    const pooled: PooledClient = {
      fingerprint: resolved.fingerprint,
      channel: this.verified(channel, resolved.address, () => lastFailure),
    };
    void pooled.channel.catch(() => this.discard(identity, pooled));
    this.clients.set(identity, pooled);
    return pooled;
  }

  /**
   * The channel connects at its first call: this one, a read with a read's timeout, checks the
   * settings and reports what went wrong (a certificate, a server name, a refused key).
   */
  private async verified(
    channel: TemporalChannel,
    address: string,
    lastFailure: () => CallStatus | undefined,
  ): Promise<TemporalChannel> {
    try {
      await channel.service.getSystemInfo({});
      return channel;
    } catch (error) {
      channel.close();
      const status = lastFailure();
      const why = status
        ? `${statusName(status.code)}: ${status.details}`
        : error instanceof Error
          ? error.message
          : String(error);
      throw new TemporalConnectError(`cannot connect to Temporal at ${address}: ${why}`, {
        cause: error,
        ...(status ? { status } : {}),
      });
    }
  }

  /** Forgets the client if it is still the pooled one, and closes it. */
  private discard(identity: string, pooled: PooledClient): void {
    if (this.clients.get(identity) !== pooled) return;
    this.clients.delete(identity);
    void closeQuietly(pooled);
  }
}

function identityOf(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

async function closeQuietly(pooled: PooledClient): Promise<void> {
  const channel = await pooled.channel.catch(() => undefined);
  channel?.close();
}
