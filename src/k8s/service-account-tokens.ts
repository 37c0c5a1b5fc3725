// The controller's own service-account tokens, for connections whose serviceAccountToken makes one
// the bearer token: requested from the API server (TokenRequest), one per audience and lifetime,
// and reused until 80% of its life has passed, as a kubelet renews a projected token.
import type { AuthenticationV1TokenRequest } from '@kubernetes/client-node';
import type { KubernetesApi } from '../runtime/kube/api-client.ts';
import { errorMessage } from './api-errors.ts';

/** A token's audience and lifetime, as a connection's serviceAccountToken asks. */
export interface TokenSpec {
  audience: string;
  expirationSeconds: number;
}

/** No token can be had: the message says what to fix. */
export class ServiceAccountTokenError extends Error {
  override name = 'ServiceAccountTokenError';
}

export interface ServiceAccountRef {
  namespace: string;
  name: string;
}

export interface IssuedToken {
  token: string;
  expiresAt: Date;
}

/** A TokenRequest for `account`: tokenRequester's in production. */
export type RequestToken = (account: ServiceAccountRef, request: TokenSpec) => Promise<IssuedToken>;

export interface ServiceAccountTokensOptions {
  /** The controller's service account; undefined when it runs as something else (a kubeconfig user). */
  account: ServiceAccountRef | undefined;
  request: RequestToken;
  now: () => Date;
  /** Renew a token this long after it was issued instead of at 80% of its life (tests rotate in seconds). */
  renewAfterMs?: number;
}

interface Held {
  issued: IssuedToken;
  renewAt: number;
}

export class ServiceAccountTokens {
  private readonly options: ServiceAccountTokensOptions;
  private readonly held = new Map<string, Held>();
  /** One request in flight per audience and lifetime, however many reconciles ask at once. */
  private readonly pending = new Map<string, Promise<Held>>();

  constructor(options: ServiceAccountTokensOptions) {
    this.options = options;
  }

  /**
   * A token for `request`, renewed when due. Throws ServiceAccountTokenError when none
   * can be had; a renewal that fails while the held token is still valid returns that one.
   */
  async token(request: TokenSpec): Promise<string> {
    const { account } = this.options;
    if (!account)
      throw new ServiceAccountTokenError(
        'serviceAccountToken: the controller runs without a service account to request a token for; run it in the cluster, or name one with --service-account',
      );
    const key = `${request.expirationSeconds}/${request.audience}`;
    const now = this.options.now().getTime();
    const held = this.held.get(key);
    if (held && now < held.renewAt) return held.issued.token;
    try {
      return (await this.renew(key, account, request, now)).issued.token;
    } catch (error) {
      if (held && now < held.issued.expiresAt.getTime()) return held.issued.token;
      throw error;
    }
  }

  private renew(key: string, account: ServiceAccountRef, request: TokenSpec, now: number): Promise<Held> {
    const inFlight = this.pending.get(key);
    if (inFlight) return inFlight;
    const renewal = this.options
      .request(account, request)
      .then(
        (issued) => {
          const life = issued.expiresAt.getTime() - now;
          const held = { issued, renewAt: now + (this.options.renewAfterMs ?? life * 0.8) };
          this.held.set(key, held);
          return held;
        },
        (error: unknown) => {
          throw new ServiceAccountTokenError(
            `serviceAccountToken: cannot request a token of ServiceAccount ${account.namespace}/${account.name} for audience ${request.audience}: ${errorMessage(error)}`,
            { cause: error },
          );
        },
      )
      .finally(() => this.pending.delete(key));
    this.pending.set(key, renewal);
    return renewal;
  }
}

/** TokenRequest through the API. */
export function tokenRequester(api: KubernetesApi): RequestToken {
  return async (account, request) => {
    const response = await api.create<AuthenticationV1TokenRequest>(
      `/api/v1/namespaces/${account.namespace}/serviceaccounts/${account.name}/token`,
      {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { audiences: [request.audience], expirationSeconds: request.expirationSeconds },
      },
    );
    const token = response.status?.token;
    const expiresAt = response.status?.expirationTimestamp;
    if (!token || !expiresAt) throw new Error('the TokenRequest came back without a token');
    return { token, expiresAt: new Date(expiresAt) };
  };
}
