// End to end through a mutual-TLS connection: a TLS front that requires a client certificate of
// one CA is the only way to Temporal (`temporal server start-dev` has no TLS options). The
// controller reads the client certificate and CA from the Secret; the workers, run by the node
// agent, read them from the Secret volume the controller mounts. Only workers register a build,
// so a build that becomes Current proves they connected with the client certificate. The test's
// certificates live a day: within --certificate-expiry-warning's week, both objects say so.
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TLS_MOUNT_PATH } from '../../src/k8s/versioned-deployment.ts';
import { connectionUntil } from '../support/connection-status.ts';
import { condition, controlledNamespace, rolledOut } from '../support/controller.ts';
import { eventually, kubeConfig, sharedEnvironment, testNamespace } from '../support/environment.ts';
import { mutualTlsFront } from '../support/grpc-proxy.ts';

const SERVER_NAME = 'temporal.twc.test';

test('a worker deployment becomes Current through a frontend that requires client certificates, its workers using the mounted Secret', async (t) => {
  const namespace = await testNamespace(t, 'mtls');
  const { proxy, certs } = await mutualTlsFront(t, SERVER_NAME);
  const core = kubeConfig().makeApiClient(CoreV1Api);
  // No process trusts the CA: the controller and the workers take it from ca.crt of the Secret.
  await core.createNamespacedSecret({
    namespace,
    body: {
      metadata: { name: 'temporal-mtls' },
      stringData: { 'tls.crt': certs.client.cert, 'tls.key': certs.client.key, 'ca.crt': certs.ca },
    },
  });
  const ns = await controlledNamespace(t, namespace, {
    connectionSpec: {
      hostPort: proxy.address,
      tls: { serverName: SERVER_NAME },
      mutualTLSSecretRef: { name: 'temporal-mtls' },
    },
  });

  await ns.createWorkerDeployment('orders', { replicas: 2, template: ns.template('blue') });
  const orders = await ns.until('orders', 'the build to be current through the mutual TLS front', rolledOut);
  assert.equal(condition(orders, 'Ready')?.status, 'True');
  const pods = (await core.listNamespacedPod({ namespace })).items;
  assert.equal(pods.length, 2);
  const variable = (pod: V1Pod, name: string) => pod.spec?.containers[0]?.env?.find((e) => e.name === name)?.value;
  for (const pod of pods) {
    assert.equal(variable(pod, 'TEMPORAL_TLS_CLIENT_CERT_PATH'), `${TLS_MOUNT_PATH}/tls.crt`);
    assert.equal(variable(pod, 'TEMPORAL_TLS_SERVER_CA_CERT_PATH'), `${TLS_MOUNT_PATH}/ca.crt`);
  }
  // The controller holds one connection; the node agent's workers hold at least one more.
  assert.ok(proxy.connections >= 2, `connections with a trusted client certificate: ${proxy.connections}`);

  // The test's client certificate and CA live a day: within the default week's warning, said on
  // the connection and on the worker deployment, which rolled out all the same.
  const certificate = `client certificate CN=twc-controller \\(Secret ${namespace}/temporal-mtls key tls\\.crt, mutualTLSSecretRef\\) expires at \\S+, in 2[0-3] hours`;
  const expiring = await connectionUntil(
    namespace,
    'CertificateExpiring',
    (c) => c.CertificateExpiring?.status === 'True',
  );
  assert.equal(expiring.CertificateExpiring?.reason, 'CertificateExpiring');
  assert.match(expiring.CertificateExpiring?.message ?? '', new RegExp(certificate));
  assert.equal(expiring.Ready?.status, 'True', 'a warning, not a failure');
  const warned = await ns.until(
    'orders',
    'CertificateExpiring',
    (twd) => condition(twd, 'CertificateExpiring')?.status === 'True',
  );
  assert.match(
    condition(warned, 'CertificateExpiring')?.message ?? '',
    new RegExp(`^TemporalConnection ${namespace}/temporal: .*${certificate}`),
  );
  assert.equal(condition(warned, 'Ready')?.status, 'True');
  // One for each certificate (the client's and the CA's) on each object, each once.
  const warnings = await eventually('a Warning event of each certificate on each', async () => {
    const seen = (await core.listNamespacedEvent({ namespace })).items
      .filter((e) => e.type === 'Warning' && e.reason === 'CertificateExpiring')
      .map((e) => `${e.involvedObject.kind} ${/CN=twc-controller/.test(e.message ?? '') ? 'client' : 'CA'} ${e.count}`)
      .sort();
    return seen.length >= 4 ? seen : undefined;
  });
  assert.deepEqual(warnings, [
    'TemporalConnection CA 1',
    'TemporalConnection client 1',
    'TemporalWorkerDeployment CA 1',
    'TemporalWorkerDeployment client 1',
  ]);
  assert.match(
    await ns.metrics.registry.metrics(),
    new RegExp(
      `twc_connection_certificate_expiry_timestamp_seconds\\{namespace="${namespace}",connection="temporal",secret="${namespace}/temporal-mtls",key="tls.crt",subject="CN=twc-controller",serial_number="[0-9A-F]+"\\} \\d+`,
    ),
  );

  // --certificate-expiry-warning moves it: an hour ahead, the same certificates are valid.
  await ns.stopController();
  await ns.startController({ certificateExpiryWarningMs: 3_600_000 });
  const valid = await connectionUntil(namespace, 'CertificatesValid', (c) => c.CertificateExpiring?.status === 'False');
  assert.equal(valid.CertificateExpiring?.reason, 'CertificatesValid');
  const calm = await ns.until(
    'orders',
    'CertificatesValid',
    (twd) => condition(twd, 'CertificateExpiring')?.status === 'False',
  );
  assert.equal(condition(calm, 'CertificateExpiring')?.reason, 'CertificatesValid');
});

test('a Pod whose Secret volume does not exist waits in ContainerCreating, naming the Secret, and starts once it exists', async (t) => {
  const namespace = await testNamespace(t, 'volume');
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const { proxy, certs } = await mutualTlsFront(t, SERVER_NAME);
  const env = {
    TEMPORAL_ADDRESS: proxy.address,
    TEMPORAL_NAMESPACE: sharedEnvironment().temporalNamespace,
    TEMPORAL_DEPLOYMENT_NAME: `${namespace}/volume`,
    TEMPORAL_WORKER_BUILD_ID: 'b1',
    TEMPORAL_TLS_SERVER_NAME: SERVER_NAME,
    TEMPORAL_TLS_CLIENT_CERT_PATH: '/var/run/certs/client/tls.crt',
    TEMPORAL_TLS_CLIENT_KEY_PATH: '/var/run/certs/client/tls.key',
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/var/run/certs/roots/ca.pem',
  };
  await core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name: 'worker' },
      spec: {
        containers: [
          {
            name: 'worker',
            image: 'sample-worker',
            env: Object.entries(env).map(([name, value]) => ({ name, value })),
            volumeMounts: [{ name: 'certs', mountPath: '/var/run/certs' }],
          },
        ],
        volumes: [
          {
            name: 'certs',
            projected: {
              sources: [
                {
                  secret: {
                    name: 'client',
                    items: [
                      { key: 'tls.crt', path: 'client/tls.crt' },
                      { key: 'tls.key', path: 'client/tls.key' },
                    ],
                  },
                },
                { configMap: { name: 'roots', items: [{ key: 'ca.crt', path: 'roots/ca.pem' }] } },
              ],
            },
          },
        ],
      },
    },
  });
  await core.createNamespacedConfigMap({
    namespace,
    body: { metadata: { name: 'roots' }, data: { 'ca.crt': certs.ca } },
  });
  const waiting = await eventually('the Pod to wait for its Secret', async () => {
    const pod = await core.readNamespacedPod({ namespace, name: 'worker' });
    return pod.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ContainerCreating' ? pod : undefined;
  });
  assert.match(
    waiting.status?.containerStatuses?.[0]?.state?.waiting?.message ?? '',
    new RegExp(`Secret ${namespace}/client not found`),
  );
  assert.equal(waiting.status?.phase, 'Pending');

  await core.createNamespacedSecret({
    namespace,
    body: { metadata: { name: 'client' }, stringData: { 'tls.crt': certs.client.cert, 'tls.key': certs.client.key } },
  });
  await eventually(
    'the worker to poll through the mutual TLS front',
    async () => {
      const pod = await core.readNamespacedPod({ namespace, name: 'worker' });
      return pod.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' ? pod : undefined;
    },
    90_000,
  );
  assert.ok(proxy.connections >= 1, 'the worker connected with its client certificate');
});
