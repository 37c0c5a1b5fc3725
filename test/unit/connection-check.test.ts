// The connection check through its adapters over plain data, every call recorded in order: what it
// says of the certificates of the connection's Secrets beside whether Temporal was reached, the
// Warning event once per change of a certificate's state, the gauge of each, and when it looks again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalConnection } from '../../src/api/temporal-connection.ts';
import { checkConnection, type ConnectionCheckDependencies } from '../../src/controller/connection-check.ts';
import type { ReadCertificate } from '../../src/domain/certificates.ts';
import type { ClusterClient } from '../../src/k8s/cluster-client.ts';
import { Backoff } from '../../src/runtime/backoff.ts';
import { TemporalConnectError } from '../../src/temporal/client-pool.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const now = new Date('2026-12-01T12:00:00.000Z');
const at = (ms: number) => new Date(now.getTime() + ms);

const tconn: TemporalConnection = {
  apiVersion: 'temporal.io/v1alpha1',
  kind: 'TemporalConnection',
  metadata: { name: 'temporal', namespace: 'shop', uid: 'uid-temporal', generation: 1 },
  spec: { hostPort: 'temporal:7233', mutualTLSSecretRef: { name: 'temporal-mtls' } },
};

const client = (notAfter: Date): ReadCertificate => ({
  secret: 'shop/temporal-mtls',
  key: 'tls.crt',
  field: 'mutualTLSSecretRef',
  authority: false,
  subject: 'CN=twc-controller',
  serialNumber: '01',
  notAfter,
});

interface Checked {
  result: Awaited<ReturnType<typeof checkConnection>>;
  calls: string[];
  status: TemporalConnection['status'];
}

async function check(
  connection: TemporalConnection,
  certificates: ReadCertificate[],
  options: { unreachable?: boolean; warningMs?: number } = {},
): Promise<Checked> {
  const calls: string[] = [];
  let status: TemporalConnection['status'];
  const deps: ConnectionCheckDependencies = {
    cluster: {
      replaceConnectionStatus: (object: TemporalConnection) => {
        calls.push(`k8s.replaceConnectionStatus ${object.metadata.name}`);
        status = object.status;
        return Promise.resolve('written' as const);
      },
    } as unknown as ClusterClient,
    connect: () =>
      options.unreachable
        ? Promise.reject(new TemporalConnectError('cannot connect to Temporal at temporal:7233: ECONNREFUSED'))
        : Promise.resolve(),
    recordEvent: (about, event) => {
      calls.push(`event ${about.kind} ${event.type} ${event.reason}: ${event.message}`);
      return Promise.resolve();
    },
    now: () => now,
    backoff: new Backoff<string>({ baseMs: 5_000, maxMs: 300_000 }),
    certificates: () => Promise.resolve(certificates),
    setConnectionCertificates: (namespace, name, read) =>
      void calls.push(`metric ${namespace}/${name}: ${read.map((c) => c.notAfter.toISOString()).join(', ')}`),
    ...(options.warningMs === undefined ? {} : { certificateExpiryWarningMs: options.warningMs }),
  };
  const result = await checkConnection(deps, connection);
  return { result, calls, status };
}

const conditionsOf = (status: TemporalConnection['status']) =>
  Object.fromEntries((status?.conditions ?? []).map((c) => [c.type, `${c.status}/${c.reason}`]));

test('reached, its client certificate within the default week: Ready, CertificateExpiring, one Warning event, and a look when the words change', async () => {
  const checked = await check(tconn, [client(at(3 * DAY + 2 * HOUR))]);
  const message =
    'client certificate CN=twc-controller (Secret shop/temporal-mtls key tls.crt, mutualTLSSecretRef) expires at 2026-12-04T14:00:00.000Z, in 3 days: put a renewed certificate in the Secret before then (the controller takes it up when the Secret changes, and the worker Pods roll onto it)';
  assert.deepEqual(checked.calls, [
    'metric shop/temporal: 2026-12-04T14:00:00.000Z',
    `event TemporalConnection Warning CertificateExpiring: ${message}`,
    'k8s.replaceConnectionStatus temporal',
  ]);
  assert.deepEqual(conditionsOf(checked.status), {
    Ready: 'True/Connected',
    Progressing: 'False/Connected',
    Stalled: 'False/Connected',
    CertificateExpiring: 'True/CertificateExpiring',
  });
  assert.deepEqual(checked.status?.certificates, [
    {
      secret: 'shop/temporal-mtls',
      key: 'tls.crt',
      subject: 'CN=twc-controller',
      serialNumber: '01',
      notAfter: '2026-12-04T14:00:00.000Z',
      state: 'Expiring',
    },
  ]);
  assert.deepEqual(checked.result, { requeueAfterMs: 2 * HOUR + 1 }, 'when "in 3 days" becomes "in 2 days"');

  const again = await check({ ...tconn, status: checked.status }, [client(at(3 * DAY + 2 * HOUR))]);
  assert.deepEqual(again.calls, ['metric shop/temporal: 2026-12-04T14:00:00.000Z'], 'said already: no event, no write');
});

test('the lead time moves the warning: an hour ahead, the same certificate is valid, and looked at again within a day', async () => {
  const checked = await check(tconn, [client(at(3 * DAY))], { warningMs: HOUR });
  assert.deepEqual(checked.calls, [
    'metric shop/temporal: 2026-12-04T12:00:00.000Z',
    'k8s.replaceConnectionStatus temporal',
  ]);
  assert.equal(conditionsOf(checked.status).CertificateExpiring, 'False/CertificatesValid');
  assert.deepEqual(checked.result, { requeueAfterMs: DAY }, 'no timer longer than a day');
});

test('reached with an expired certificate: Stalled (CertificateExpired), said once', async () => {
  const checked = await check(tconn, [client(at(-HOUR))]);
  assert.deepEqual(
    checked.calls.map((c) => c.split(':')[0]),
    [
      'metric shop/temporal',
      'event TemporalConnection Warning CertificateExpired',
      'k8s.replaceConnectionStatus temporal',
    ],
  );
  assert.deepEqual(conditionsOf(checked.status), {
    Ready: 'False/CertificateExpired',
    Progressing: 'False/CertificateExpired',
    Stalled: 'True/CertificateExpired',
    CertificateExpiring: 'True/CertificateExpired',
  });
  assert.equal(checked.result, undefined, 'nothing more will change by itself');
  const again = await check({ ...tconn, status: checked.status }, [client(at(-HOUR))]);
  assert.deepEqual(again.calls, ['metric shop/temporal: 2026-12-01T11:00:00.000Z']);
});

test('out of reach: tried again with backoff, or sooner when the certificate words change first', async () => {
  const checked = await check(tconn, [client(at(2 * DAY + 1000))], { unreachable: true });
  assert.deepEqual(
    checked.calls.map((c) => c.split(':')[0]),
    [
      'metric shop/temporal',
      'event TemporalConnection Warning TemporalUnreachable',
      'event TemporalConnection Warning CertificateExpiring',
      'k8s.replaceConnectionStatus temporal',
    ],
  );
  assert.deepEqual(checked.result, { requeueAfterMs: 1001 });
  const later = await check(tconn, [client(at(3 * DAY + HOUR))], { unreachable: true });
  assert.deepEqual(later.result, { requeueAfterMs: 5_000 });
});

test('no certificate: nothing said of certificates, and no look planned once reached; a certificate gone leaves the status', async () => {
  const checked = await check({ ...tconn, status: { certificates: [] } }, []);
  assert.deepEqual(checked.calls, ['metric shop/temporal: ', 'k8s.replaceConnectionStatus temporal']);
  assert.deepEqual(Object.keys(conditionsOf(checked.status)), ['Ready', 'Progressing', 'Stalled']);
  assert.equal(checked.status?.certificates, undefined);
  assert.equal(checked.result, undefined);
});
