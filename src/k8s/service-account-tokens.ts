// Service-account tokens for connections whose serviceAccountToken makes one the bearer token:
// requested from the API server (TokenRequest) for the account token-policy.ts names, checked by a
// TokenReview never to be one the API server itself accepts, one per account, audience and
// lifetime, and reused until 80% of its life has passed, as a kubelet renews a projected token.
import type { AuthenticationV1TokenRequest, V1TokenReview } from '@kubernetes/client-node';
import { type OwnTokenPolicy, type ServiceAccountRef, type TokenAsk, tokenAccount } from '../domain/token-policy.ts';
import type { KubernetesApi } from '../runtime/kube/api-client.ts';
import { errorMessage } from '../runtime/kube/api-errors.ts';

export type { ServiceAccountRef } from '../domain/token-policy.ts';

/**
 * No token can be had: the message says what to fix. TokenRefused: the controller will not issue
 * or send it (an audience the operator does not allow, a token the API server accepts);
 * TokenUnavailable: the API server gave none.
 */
export class ServiceAccountTokenError extends Error {
  override name = 'ServiceAccountTokenError';
  readonly reason: 'TokenRefused' | 'TokenUnavailable';

  constructor(reason: 'TokenRefused' | 'TokenUnavailable', message: string, options?: ErrorOptions) {
    super(message, options);
    this.reason = reason;
  }
}

export interface IssuedToken {
  token: string;
  expiresAt: Date;
}

/** A TokenRequest for `account`: tokenRequester's in production. */
export type RequestToken = (
  account: ServiceAccountRef,
  request: Pick<TokenAsk, 'audience' | 'expirationSeconds'>,
) => Promise<IssuedToken>;

/** Whether the API server authenticates `token` for its own audiences: tokenReviewer's in production. */
export type ReviewToken = (token: string) => Promise<boolean>;

export interface ServiceAccountTokensOptions extends OwnTokenPolicy {
  request: RequestToken;
  review: ReviewToken;
  now: () => Date;
  /** Told of each token refused, by why (a metric). */
  onRefused?: (why: 'OwnTokenAudienceNotAllowed' | 'AcceptedByApiServer') => void;
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
  /** One request in flight per account, audience and lifetime, however many reconciles ask at once. */
  private readonly pending = new Map<string, Promise<Held>>();

  constructor(options: ServiceAccountTokensOptions) {
    this.options = options;
  }

  /**
   * A token for `ask`, renewed when due. Throws ServiceAccountTokenError when none may or can be
   * had; a renewal that fails while the held token is still valid returns that one.
   */
  async token(ask: TokenAsk): Promise<string> {
    const decided = tokenAccount(ask, this.options);
    if ('refused' in decided) {
      if (decided.refused === 'OwnTokenAudienceNotAllowed') this.options.onRefused?.(decided.refused);
      throw new ServiceAccountTokenError(
        decided.refused === 'NoServiceAccount' ? 'TokenUnavailable' : 'TokenRefused',
        decided.message,
      );
    }
    const { account } = decided;
    const key = `${account.namespace}/${account.name}/${ask.expirationSeconds}/${ask.audience}`;
    const now = this.options.now().getTime();
    const held = this.held.get(key);
    if (held && now < held.renewAt) return held.issued.token;
    try {
      return (await this.renew(key, account, ask, now)).issued.token;
    } catch (error) {
      const refused = error instanceof ServiceAccountTokenError && error.reason === 'TokenRefused';
      if (!refused && held && now < held.issued.expiresAt.getTime()) return held.issued.token;
      throw error;
    }
  }

  private renew(key: string, account: ServiceAccountRef, ask: TokenAsk, now: number): Promise<Held> {
    const inFlight = this.pending.get(key);
    if (inFlight) return inFlight;
    const of = `a token of ServiceAccount ${account.namespace}/${account.name} for audience ${ask.audience}`;
    const renewal = this.options
      .request(account, { audience: ask.audience, expirationSeconds: ask.expirationSeconds })
      .catch((error: unknown) => {
        throw new ServiceAccountTokenError(
          'TokenUnavailable',
          `serviceAccountToken: cannot request ${of}: ${errorMessage(error)}`,
          {
            cause: error,
          },
        );
      })
      .then(async (issued) => {
        if (await this.acceptedByApiServer(issued.token, of)) {
          this.options.onRefused?.('AcceptedByApiServer');
          throw new ServiceAccountTokenError(
            'TokenRefused',
            `serviceAccountToken.audience: ${of} is accepted by the cluster's API server, so it is never sent; choose an audience only your Temporal server accepts`,
          );
        }
        const life = issued.expiresAt.getTime() - now;
        const held = { issued, renewAt: now + (this.options.renewAfterMs ?? life * 0.8) };
        this.held.set(key, held);
        return held;
      })
      .finally(() => this.pending.delete(key));
    this.pending.set(key, renewal);
    return renewal;
  }

  /** A review that fails refuses the token too: it is sent only when known not to open the API server. */
  private async acceptedByApiServer(token: string, of: string): Promise<boolean> {
    try {
      return await this.options.review(token);
    } catch (error) {
      throw new ServiceAccountTokenError(
        'TokenUnavailable',
        `serviceAccountToken: cannot check ${of} by TokenReview, so it is not sent: ${errorMessage(error)}`,
        { cause: error },
      );
    }
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

/** TokenReview through the API, with no audiences: the API server checks the token against its own. */
export function tokenReviewer(api: KubernetesApi): ReviewToken {
  return async (token) => {
    const response = await api.create<V1TokenReview>('/apis/authentication.k8s.io/v1/tokenreviews', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token },
    });
    return response.status?.authenticated === true;
  };
}
