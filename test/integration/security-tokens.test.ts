// From a namespace editor's seat (docs/security.md, T1 and T2): with `edit` in one namespace,
// mallory writes a TemporalConnection whose serviceAccountToken asks for a token the cluster's API
// server accepts, sent to a TLS server she runs. Admission refuses the API server's usual audience;
// for one it cannot know (a second audience of the API server), the controller's TokenReview
// refuses the token before it leaves. A token of an audience only her server accepts does arrive:
// the server would see one if one were sent.
import { AuthenticationV1Api, CoreV1Api, setHeaderOptions } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EXTRA_API_AUDIENCE } from '../../dev/localenv/kubernetes.ts';
import { createAs } from '../support/admission.ts';
import { makeCertificates } from '../support/certificates.ts';
import { connectionUntil } from '../support/connection-status.ts';
import { controlledNamespace } from '../support/controller.ts';
import { grantAccountTokens, grantEdit } from '../support/controller-rbac.ts';
import { eventually, kubeConfig, sharedEnvironment, testNamespace } from '../support/environment.ts';
import { GrpcProxy } from '../support/grpc-proxy.ts';

const SERVER_NAME = 'exfil.twc.test';
const MALLORY = setHeaderOptions('Impersonate-User', 'mallory');

/** Creates the TemporalConnection `name` as mallory; resolves to the API server's refusal, or '' when created. */
const asMallory = (namespace: string, name: string, spec: Record<string, unknown>): Promise<string> =>
  createAs('TemporalConnection', namespace, { metadata: { name }, spec }, 'mallory');

test("a namespace editor's connection never sends a token the API server accepts to the editor's TLS server", async (t) => {
  const namespace = await testNamespace(t, 'sec-token');
  const certs = await makeCertificates(t, SERVER_NAME);
  const received: string[] = [];
  const server = new GrpcProxy({
    upstream: sharedEnvironment().temporalAddress,
    server: certs.server,
    verifyBearer: (token) => {
      if (token) received.push(token);
      return Promise.resolve('mallory only collects tokens');
    },
  });
  await server.listen();
  t.after(() => server.close());

  // What the namespace's admin sets up, as the README says: mallory edits, the controller may
  // request the tokens of the namespace's account `temporal`.
  const core = kubeConfig().makeApiClient(CoreV1Api);
  await grantEdit(namespace, 'mallory');
  await grantAccountTokens(namespace, 'temporal');
  const ns = await controlledNamespace(t, namespace);

  // mallory's own Secret with her CA, and connections to her server.
  await core.createNamespacedSecret(
    { namespace, body: { metadata: { name: 'mallory-ca' }, stringData: { 'ca.crt': certs.ca } } },
    MALLORY,
  );
  const to = (token: Record<string, unknown>) => ({
    hostPort: server.address,
    tls: { serverName: SERVER_NAME, caCertSecretRef: { name: 'mallory-ca' } },
    serviceAccountToken: token,
  });
  assert.match(
    await asMallory(
      namespace,
      'issuer',
      to({ audience: 'https://kubernetes.default.svc.cluster.local', serviceAccountName: 'temporal' }),
    ),
    /spec\.serviceAccountToken\.audience: .*one the cluster's API server accepts/,
  );
  assert.match(
    await asMallory(namespace, 'own', to({ audience: 'temporal.twc.test' })),
    /spec\.serviceAccountToken\.serviceAccountName: .*never the controller's/,
  );
  assert.equal(
    await asMallory(namespace, 'extra', to({ audience: EXTRA_API_AUDIENCE, serviceAccountName: 'temporal' })),
    '',
  );
  const refused = await connectionUntil(
    namespace,
    'its token refused',
    (c) => c.Stalled?.reason === 'TokenRefused',
    'extra',
  );
  assert.match(
    refused.Stalled?.message ?? '',
    /serviceAccountToken\.audience: .* is accepted by the cluster's API server, so it is never sent/,
  );

  // A token for an audience only mallory's server accepts is sent: her server does see tokens.
  assert.equal(
    await asMallory(namespace, 'honest', to({ audience: 'temporal.twc.test', serviceAccountName: 'temporal' })),
    '',
  );
  await eventually('a token at the server', () => Promise.resolve(received.length > 0 || undefined));

  const reviews = kubeConfig().makeApiClient(AuthenticationV1Api);
  for (const token of new Set(received)) {
    const { status } = await reviews.createTokenReview({ body: { spec: { token } } });
    assert.notEqual(status?.authenticated, true, 'no token the API server accepts reached the server');
  }
  const counted = await ns.metrics.registry.getSingleMetric('twc_service_account_tokens_refused_total')?.get();
  assert.ok(
    counted?.values.some((v) => v.labels.reason === 'AcceptedByApiServer' && v.value >= 1),
    `the refusal is counted: ${JSON.stringify(counted?.values)}`,
  );
});
