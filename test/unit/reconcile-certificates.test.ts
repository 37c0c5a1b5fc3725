// A worker deployment whose connection's certificates near their end, or are past it: one
// reconcile through the adapter interfaces over plain data (test/support/recorded-world.ts). It
// says so in its status (CertificateExpiring; Stalled once expired) and in a Warning event once
// per change, and acts exactly as it would otherwise: a warning stops nothing, and neither does an
// expired certificate that Temporal still accepts.
import type { V1Secret } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalConnection } from '../../src/api/temporal-connection.ts';
import type { TemporalDeploymentState } from '../../src/domain/snapshot.ts';
import { workerConnection } from '../../src/k8s/worker-connection.ts';
import { GrpcStatus, TemporalCallError } from '../../src/temporal/call-status.ts';
import { issueAuthority, issueClient, type KeyPair } from '../../src/webhook/certificate-issuer.ts';
import {
  connection,
  deployment,
  IDENTITY,
  NAMESPACE,
  recordedReconcile,
  workerDeployment,
  type World,
} from '../support/recorded-world.ts';

const DAY = 86_400_000;
const now = new Date('2026-12-01T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);

const mtlsConnection: TemporalConnection = {
  ...connection(),
  spec: { hostPort: 'temporal:7233', mutualTLSSecretRef: { name: 'temporal-mtls' } },
};

function mtlsSecret(pair: KeyPair, ca: KeyPair): V1Secret {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  return {
    metadata: { namespace: NAMESPACE, name: 'temporal-mtls' },
    data: { 'tls.crt': b64(pair.cert), 'tls.key': b64(pair.key), 'ca.crt': b64(ca.cert) },
  };
}

/** A CA valid for a year, and a client certificate of it issued `issuedAgo` ago for `lifetime`. */
async function certificates(issuedAgo: number, lifetime: number): Promise<V1Secret> {
  const ca = await issueAuthority(now.getTime() - issuedAgo, 100 * DAY);
  return mtlsSecret(await issueClient(ca, 'twc-controller', now.getTime() - issuedAgo, lifetime), ca);
}

/** The world of `temporal` with the connection's Secret: its Deployments built with it, as the controller builds them. */
function world(secret: V1Secret, temporal: TemporalDeploymentState, buildId: string, builds: string[]): World {
  const owner = workerDeployment({ buildId });
  const lookup = (namespace: string, name: string) =>
    namespace === NAMESPACE && name === 'temporal-mtls' ? secret : undefined;
  const workers = workerConnection(mtlsConnection, lookup, 'orders');
  return {
    now,
    workerDeployment: owner,
    connection: mtlsConnection,
    secrets: [secret],
    deployments: builds.map((b) => deployment(owner, b, { since: ago(60 * 60_000), workers })),
    temporal,
  };
}

const v1Current: TemporalDeploymentState = {
  exists: true,
  currentBuildId: 'v1',
  managerIdentity: IDENTITY,
  versions: [{ buildId: 'v1', status: 'Current', everActive: true }],
};
const v2Ready: TemporalDeploymentState = {
  ...v1Current,
  versions: [...v1Current.versions, { buildId: 'v2', status: 'Inactive', everActive: false }],
};
const byType = (status: Awaited<ReturnType<typeof recordedReconcile>>['status']) =>
  Object.fromEntries((status?.conditions ?? []).map((c) => [c.type, `${c.status}/${c.reason}`]));

test('a client certificate within the lead time: CertificateExpiring and one Warning event, the target still Ready; no second event', async () => {
  const steady = world(await certificates(DAY, 4 * DAY), v1Current, 'v1', ['v1']);
  const first = await recordedReconcile(steady);
  assert.deepEqual(first.calls, ['temporal.describe', 'k8s.replaceStatus orders@10']);
  assert.deepEqual(byType(first.status), {
    Ready: 'True/TargetCurrent',
    Progressing: 'False/Done',
    Stalled: 'False/Done',
    CertificateExpiring: 'True/CertificateExpiring',
  });
  const said = first.status?.conditions?.find((c) => c.type === 'CertificateExpiring')?.message ?? '';
  assert.match(
    said,
    /^TemporalConnection shop\/temporal: client certificate CN=twc-controller \(Secret shop\/temporal-mtls key tls\.crt, mutualTLSSecretRef\) expires at 2026-12-04T12:00:00\.000Z, in 3 days: put a renewed certificate in the Secret/,
  );
  assert.deepEqual(first.eventMessages, [`CertificateExpiring: ${said}`]);
  assert.deepEqual(
    first.status?.certificates?.map((c) => [c.secret, c.key, c.subject, c.state]),
    [
      ['shop/temporal-mtls', 'tls.crt', 'CN=twc-controller', 'Expiring'],
      ['shop/temporal-mtls', 'ca.crt', 'CN=temporal-worker-controller-webhook-ca@1796040000', 'Valid'],
    ],
  );

  const again = await recordedReconcile({
    ...steady,
    workerDeployment: { ...steady.workerDeployment, status: first.status },
  });
  assert.deepEqual(again.events, [], 'the state was said already');
  assert.deepEqual(again.calls, ['temporal.describe'], 'nothing changed: nothing written');
});

test('a client certificate expired but still accepted: Stalled (CertificateExpired) while the rollout goes on as it would', async () => {
  const valid = await recordedReconcile(world(await certificates(DAY, 300 * DAY), v2Ready, 'v2', ['v1', 'v2']));
  const expired = await recordedReconcile(world(await certificates(10 * DAY, DAY), v2Ready, 'v2', ['v1', 'v2']));
  assert.ok(valid.calls.includes('temporal.changeRouting setCurrent v2'), valid.calls.join('\n'));
  assert.deepEqual(expired.calls, valid.calls, 'the same plan, carried out the same');
  assert.equal(byType(valid.status).CertificateExpiring, 'False/CertificatesValid');
  assert.deepEqual(byType(expired.status), {
    Ready: 'False/CertificateExpired',
    Progressing: 'False/CertificateExpired',
    Stalled: 'True/CertificateExpired',
    CertificateExpiring: 'True/CertificateExpired',
  });
  assert.match(
    expired.status?.conditions?.find((c) => c.type === 'Stalled')?.message ?? '',
    /^TemporalConnection shop\/temporal: client certificate CN=twc-controller \(Secret shop\/temporal-mtls key tls\.crt, mutualTLSSecretRef\) expired at 2026-11-22T12:00:00\.000Z: .*the controller goes on with whatever still works/,
  );
  assert.deepEqual(
    expired.events.filter((e) => e.startsWith('Warning')),
    ['Warning CertificateExpired'],
    "the stall's own event",
  );
});

test('Temporal refusing an expired client certificate: the refusal, and also the expiry', async () => {
  const refused = await recordedReconcile({
    ...world(await certificates(10 * DAY, DAY), v1Current, 'v1', ['v1']),
    failures: {
      'temporal.describe': new TemporalCallError('DescribeWorkerDeployment', {
        code: GrpcStatus.UNAUTHENTICATED,
        details: 'certificate expired',
      }),
    },
  });
  assert.deepEqual(refused.calls, ['temporal.describe', 'k8s.replaceStatus orders@10']);
  assert.deepEqual(byType(refused.status), {
    Ready: 'False/TemporalCredentialsRefused',
    Progressing: 'False/TemporalCredentialsRefused',
    Stalled: 'True/TemporalCredentialsRefused',
    CertificateExpiring: 'True/CertificateExpired',
  });
  assert.match(
    refused.status?.conditions?.find((c) => c.type === 'Stalled')?.message ?? '',
    /Temporal refused the client certificate .*; also TemporalConnection shop\/temporal: client certificate CN=twc-controller .* expired at/,
  );
  assert.equal(refused.status?.certificates?.[0]?.state, 'Expired');
});
