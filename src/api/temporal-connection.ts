// TemporalConnection (tconn): how the controller and the workers reach a Temporal frontend.
import { type Static, Type } from '@sinclair/typebox';
import { dnsLabel, keyRef, withRules, objectMeta } from './schema.ts';
import { conditions } from './status.ts';

/** host:port with a DNS name, an IPv4 address or a bracketed IPv6 address. */
export const HOST_PORT = '^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?):[0-9]{1,5}$';

const spec = withRules(
  Type.Object(
    {
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
          },
          { description: 'TLS settings; TLS is on with mutual TLS, an API key or a server name.' },
        ),
      ),
      mutualTLSSecretRef: Type.Optional(
        Type.Object(
          {
            name: dnsLabel('Name of a kubernetes.io/tls Secret (tls.crt, tls.key, optional ca.crt).', {
              maxLength: 253,
            }),
          },
          { description: 'Client certificate for mutual TLS.' },
        ),
      ),
      apiKeySecretRef: Type.Optional(keyRef('Secret')),
    },
    { description: 'The Temporal frontend and its credentials.' },
  ),
  {
    cel: '!(has(self.mutualTLSSecretRef) && has(self.apiKeySecretRef))',
    message: 'set at most one of mutualTLSSecretRef or apiKeySecretRef',
    check: (self) => !(self.mutualTLSSecretRef !== undefined && self.apiKeySecretRef !== undefined),
  },
);

export const temporalConnection = Type.Object(
  {
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: objectMeta(),
    spec,
    status: Type.Optional(
      Type.Object(
        { observedGeneration: Type.Optional(Type.Integer({ format: 'int64' })), conditions: Type.Optional(conditions) },
        { description: 'What the controller observed.' },
      ),
    ),
  },
  { description: 'How to reach a Temporal frontend.' },
);

export type TemporalConnection = Static<typeof temporalConnection>;
