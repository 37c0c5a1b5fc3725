// TemporalConnection (tconn): how the controller and the workers reach a Temporal frontend.
import { type Static, type TProperties, type TSchema, Type } from '@sinclair/typebox';
import { dnsLabel, withRules, objectMeta, stringMap } from './schema.ts';
import { certificates, conditions } from './status.ts';

/**
 * Audiences the API servers of common distributions accept by default (their issuer, or the
 * in-cluster address): refused at admission on a namespaced connection. Any other the cluster
 * accepts is caught by the TokenReview of each issued token.
 */
export const API_SERVER_AUDIENCES = [
  'https://kubernetes.default.svc.cluster.local',
  'https://kubernetes.default.svc',
  'https://kubernetes.default',
  'kubernetes.default.svc',
  'kubernetes',
  'api',
] as const;

export function isApiServerAudience(audience: string): boolean {
  return (API_SERVER_AUDIENCES as readonly string[]).includes(audience);
}

/** host:port with a DNS name, an IPv4 address or a bracketed IPv6 address. */
export const HOST_PORT = '^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?):[0-9]{1,5}$';

const secretName = (description: string) =>
  dnsLabel(description, { maxLength: 253, pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$' });

/** The kinds of credentials a connection, or its workerAuth, names. */
const CREDENTIALS = ['mutualTLSSecretRef', 'apiKeySecretRef', 'serviceAccountToken'] as const;

/** At most one kind of credentials in one place. */
const oneCredential = (exactlyOne: boolean) => ({
  cel: `[${CREDENTIALS.map((c) => `has(self.${c})`).join(', ')}].filter(set, set).size() ${exactlyOne ? '==' : '<='} 1`,
  message: `set ${exactlyOne ? 'exactly' : 'at most'} one of ${CREDENTIALS.join(', ')}`,
  check: (self: Partial<Record<(typeof CREDENTIALS)[number], unknown>>) => {
    const set = CREDENTIALS.filter((c) => self[c] !== undefined).length;
    return exactlyOne ? set === 1 : set <= 1;
  },
});

/** A projected token's lifetime when serviceAccountToken names none: the kubelet's default. */
export const DEFAULT_TOKEN_SECONDS = 3600;

const audience = Type.String({
  description:
    'The audience the token is issued for: what the Temporal server (or the proxy in front of it) checks the token against.',
  minLength: 1,
  maxLength: 1024,
});
const expirationSeconds = Type.Optional(
  Type.Integer({
    description: `Lifetime of each token requested (default ${DEFAULT_TOKEN_SECONDS}); a token is replaced once 80% of it has passed.`,
    minimum: 600,
    maximum: 86400,
  }),
);
const TOKEN_PURPOSE =
  'A Kubernetes service-account token with this audience, sent as the bearer token, for Temporal servers that accept Kubernetes-issued JWTs. No Secret holds it; turns TLS on.';

/** workerAuth's: the Pods' own, which the controller never requests. */
const workerToken = Type.Object(
  { audience, expirationSeconds },
  {
    description: `${TOKEN_PURPOSE} Worker Pods get their service account's in a projected token volume (TEMPORAL_API_KEY_PATH).`,
  },
);

/**
 * The controller's, on a TemporalConnection: that of a ServiceAccount of the connection's own
 * namespace, never for the API server's own audiences (a namespace editor writes it).
 */
const namespacedToken = withRules(
  Type.Object(
    {
      audience,
      expirationSeconds,
      serviceAccountName: Type.Optional(
        dnsLabel(
          "The ServiceAccount of the connection's namespace whose tokens the controller sends (required); the namespace grants the controller create on its serviceaccounts/token.",
          { maxLength: 253, pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$' },
        ),
      ),
    },
    {
      description: `${TOKEN_PURPOSE} The controller requests one for serviceAccountName (TokenRequest) and sends it only if the cluster's API server refuses it (TokenReview); worker Pods without workerAuth get their own service account's in a projected token volume (TEMPORAL_API_KEY_PATH).`,
    },
  ),
  {
    cel: 'has(self.serviceAccountName)',
    message:
      "serviceAccountName is required: a TemporalConnection's token is that of a ServiceAccount of its own namespace, never the controller's",
    fieldPath: '.serviceAccountName',
    check: (self) => self.serviceAccountName !== undefined,
  },
  {
    cel: `!(self.audience in [${API_SERVER_AUDIENCES.map((a) => `'${a}'`).join(', ')}])`,
    message: "audience is one the cluster's API server accepts: a token for it is never sent",
    fieldPath: '.audience',
    check: (self) => !isApiServerAudience(self.audience),
  },
);

/** The controller's own, on a TemporalClusterConnection: only for audiences the operator allows. */
const clusterToken = Type.Object(
  { audience, expirationSeconds },
  {
    description: `${TOKEN_PURPOSE} The controller requests its own (TokenRequest for its service account) for an audience the operator allows (--own-token-audiences) and sends it only if the cluster's API server refuses it (TokenReview); worker Pods without workerAuth get their own service account's in a projected token volume (TEMPORAL_API_KEY_PATH).`,
  },
);

/** The key of the CA Secret read when caCertSecretRef names none. */
export const DEFAULT_CA_KEY = 'ca.crt';

/**
 * The spec of either kind: a TemporalConnection's Secrets are in its namespace; a
 * TemporalClusterConnection, which has none, names the namespace of each.
 */
function connectionSpec<Token extends TSchema, Own extends TProperties>(
  namespaced: boolean,
  controllerToken: Token,
  own: Own,
) {
  const namespace = Type.Optional(
    dnsLabel(
      namespaced
        ? "The connection's own namespace, if set: a TemporalConnection reads the Secrets of its namespace only."
        : 'Namespace of the Secret: the controller reads it there.',
    ),
  );
  const located = <T extends TSchema & { static: { namespace?: string } }>(ref: T): T =>
    namespaced
      ? ref
      : withRules(ref, {
          cel: 'has(self.namespace)',
          message: 'a TemporalClusterConnection names the namespace of each Secret',
          check: (self) => self.namespace !== undefined,
        });
  const mutualTLSSecretRef = located(
    Type.Object(
      { name: secretName('Name of a kubernetes.io/tls Secret (tls.crt, tls.key, optional ca.crt).'), namespace },
      { description: 'Client certificate for mutual TLS.' },
    ),
  );
  const apiKeySecretRef = located(
    Type.Object(
      {
        name: secretName('Name of the Secret.'),
        key: Type.String({ description: "Key in the Secret's data.", minLength: 1 }),
        namespace,
      },
      { description: 'An API key: a key of a Secret.' },
    ),
  );
  return withRules(
    Type.Object(
      {
        ...own,
        hostPort: Type.String({
          description: 'Temporal frontend address, host:port.',
          pattern: HOST_PORT,
          maxLength: 300,
        }),
        tls: Type.Optional(
          Type.Object(
            {
              serverName: Type.Optional(
                Type.String({
                  description: 'Name to verify the server certificate against (and SNI); turns TLS on.',
                  pattern: '^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$',
                  maxLength: 253,
                }),
              ),
              caCertSecretRef: Type.Optional(
                located(
                  Type.Object(
                    {
                      name: secretName('Name of the Secret.'),
                      key: Type.Optional(
                        Type.String({
                          description: `Key holding the PEM certificates (default ${DEFAULT_CA_KEY}).`,
                          pattern: '^[-._a-zA-Z0-9]+$',
                          maxLength: 253,
                        }),
                      ),
                      namespace,
                    },
                    {
                      description:
                        'CA certificates to verify the server with instead of the system roots, in every mode: the controller uses them and every worker Pod gets them as a file (TEMPORAL_TLS_SERVER_CA_CERT_PATH). Takes the place of ca.crt in the mutual-TLS Secret; turns TLS on.',
                    },
                  ),
                ),
              ),
            },
            {
              description:
                'TLS settings; TLS is on with mutual TLS, an API key, a service-account token, a server name or a CA.',
            },
          ),
        ),
        mutualTLSSecretRef: Type.Optional(mutualTLSSecretRef),
        apiKeySecretRef: Type.Optional(apiKeySecretRef),
        serviceAccountToken: Type.Optional(controllerToken),
        workerAuth: Type.Optional(
          withRules(
            Type.Object(
              {
                mutualTLSSecretRef: Type.Optional(mutualTLSSecretRef),
                apiKeySecretRef: Type.Optional(apiKeySecretRef),
                serviceAccountToken: Type.Optional(workerToken),
              },
              {
                description:
                  "The worker Pods' own credentials, given to them instead of the controller's, so that the credentials that may change routing never reach a worker Pod (recommended).",
              },
            ),
            oneCredential(true),
          ),
        ),
      },
      { description: 'The Temporal frontend and its credentials.' },
    ),
    oneCredential(false),
  );
}

const status = Type.Optional(
  Type.Object(
    {
      observedGeneration: Type.Optional(
        Type.Integer({ format: 'int64', description: 'The generation this status describes.' }),
      ),
      conditions: Type.Optional(conditions),
      certificates: Type.Optional(certificates),
    },
    { description: 'What the controller observed.' },
  ),
);

/** Either kind's object: the same spec but for where its Secrets are. */
function connectionObject<Token extends TSchema, Own extends TProperties>(
  namespaced: boolean,
  controllerToken: Token,
  own: Own,
  description: string,
) {
  return Type.Object(
    {
      apiVersion: Type.Optional(Type.String()),
      kind: Type.Optional(Type.String()),
      metadata: objectMeta(),
      spec: connectionSpec(namespaced, controllerToken, own),
      status,
    },
    { description },
  );
}

export const temporalConnection = connectionObject(true, namespacedToken, {}, 'How to reach a Temporal frontend.');

/** A Kubernetes label selector, as a NetworkPolicy's namespaceSelector is written. */
const namespaceSelector = Type.Object(
  {
    matchLabels: Type.Optional(stringMap('Labels a namespace must have, each with this value.')),
    matchExpressions: Type.Optional(
      Type.Array(
        Type.Object({
          key: Type.String({ description: 'A label key.', minLength: 1, maxLength: 317 }),
          operator: Type.Union(
            [Type.Literal('In'), Type.Literal('NotIn'), Type.Literal('Exists'), Type.Literal('DoesNotExist')],
            {
              description: 'In, NotIn, Exists or DoesNotExist.',
            },
          ),
          values: Type.Optional(
            Type.Array(Type.String({ maxLength: 63 }), { maxItems: 64, description: 'The values of In and NotIn.' }),
          ),
        }),
        { maxItems: 32, description: 'Requirements on labels, all of which a namespace must meet.' },
      ),
    ),
  },
  {
    description:
      "The namespaces whose worker deployments may use this connection, beside those of its own Secrets; absent or empty, none. Only workerAuth's credentials (and the CA) are copied into them: a connection without workerAuth whose controller credentials are in a Secret serves only the namespaces of its own Secrets. Every namespace: matchExpressions [{key: kubernetes.io/metadata.name, operator: Exists}].",
  },
);

export const temporalClusterConnection = connectionObject(
  false,
  clusterToken,
  { allowedNamespaces: Type.Optional(namespaceSelector) },
  'How to reach a Temporal frontend, for worker deployments of every namespace: its Secrets name their namespace.',
);

export type TemporalClusterConnection = Static<typeof temporalClusterConnection>;
export type TemporalConnection = Static<typeof temporalConnection>;
export type NamespaceSelector = Static<typeof namespaceSelector>;
