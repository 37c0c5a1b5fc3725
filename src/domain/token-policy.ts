// Whose service-account token a connection's serviceAccountToken may make the controller mint, and
// for which audience. A namespaced connection's author is only a namespace editor: its token is
// that of a ServiceAccount of its own namespace, and never one the cluster's API server accepts
// (API_SERVER_AUDIENCES, refused at admission: api/temporal-connection.ts). Only a cluster
// connection, which a cluster admin creates, may use the controller's own identity, and only for
// audiences the operator allows. Pure.

/** A ServiceAccount, by namespace and name. */
export interface ServiceAccountRef {
  namespace: string;
  name: string;
}

/** What a connection asks a token for: `account` is its namespace's, absent for a cluster connection. */
export interface TokenAsk {
  audience: string;
  expirationSeconds: number;
  account?: ServiceAccountRef;
}

/** What the operator allows the controller's own identity for. */
export interface OwnTokenPolicy {
  /** The controller's service account; undefined when it runs as something else (a kubeconfig user). */
  own: ServiceAccountRef | undefined;
  /** Audiences a cluster connection may have the controller's own token for (--own-token-audiences). */
  ownAudiences: readonly string[];
}

/** The account whose token to request, or why none is requested (the message names the field). */
export type TokenAccount =
  { account: ServiceAccountRef } | { refused: 'OwnTokenAudienceNotAllowed' | 'NoServiceAccount'; message: string };

export function tokenAccount(ask: TokenAsk, policy: OwnTokenPolicy): TokenAccount {
  if (ask.account) return { account: ask.account };
  if (!policy.ownAudiences.includes(ask.audience))
    return {
      refused: 'OwnTokenAudienceNotAllowed',
      message: `serviceAccountToken.audience ${ask.audience} is not one the controller's own token may be issued for; the operator allows ${policy.ownAudiences.length > 0 ? policy.ownAudiences.join(', ') : 'none'} (--own-token-audiences, chart value controller.ownTokenAudiences)`,
    };
  if (!policy.own)
    return {
      refused: 'NoServiceAccount',
      message:
        'serviceAccountToken: the controller runs without a service account to request a token for; run it in the cluster, or name one with --service-account',
    };
  return { account: policy.own };
}
