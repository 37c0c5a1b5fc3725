// A TemporalConnection says whether the controller reached Temporal with it (READY in `kubectl get
// tconn`): Connected when it did; a Secret it cannot use, named with the key, until the Secret is
// fixed; an address nobody answers while it tries again. And --temporal-connect-to reaches a
// connection's in-cluster address through another one, as a controller outside the cluster must.
import { CoreV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freePort } from '../../dev/localenv/ports.ts';
import { connectionUntil, ready } from '../support/connection-status.ts';
import { controlledNamespace } from '../support/controller.ts';
import { eventually, kubeConfig, sharedEnvironment, testNamespace } from '../support/environment.ts';
import { mutualTlsFront } from '../support/grpc-proxy.ts';

const SERVER_NAME = 'temporal.twc.test';
const PLACEHOLDER = '-----BEGIN CERTIFICATE-----\nreplace with your client certificate\n-----END CERTIFICATE-----\n';

test('a connection is Ready once reached, says which key of its Secret is unusable until it is fixed, then is Ready again', async (t) => {
  const namespace = await testNamespace(t, 'tconn-check');
  const { proxy, certs } = await mutualTlsFront(t, SERVER_NAME);
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const secret = (cert: string) => ({
    metadata: { name: 'temporal-mtls' },
    stringData: { 'tls.crt': cert, 'tls.key': certs.client.key, 'ca.crt': certs.ca },
  });
  await core.createNamespacedSecret({ namespace, body: secret(certs.client.cert) });
  await controlledNamespace(t, namespace, {
    connectionSpec: {
      hostPort: proxy.address,
      tls: { serverName: SERVER_NAME },
      mutualTLSSecretRef: { name: 'temporal-mtls' },
    },
  });
  const reached = await connectionUntil(namespace, 'Ready, Connected', ready('True', 'Connected'));
  assert.equal(reached.Ready?.message, `reached Temporal at ${proxy.address}`);
  assert.deepEqual([reached.Progressing?.status, reached.Stalled?.status], ['False', 'False']);

  await core.replaceNamespacedSecret({ namespace, name: 'temporal-mtls', body: secret(PLACEHOLDER) });
  const invalid = await connectionUntil(namespace, 'InvalidSecret', ready('False', 'InvalidSecret'));
  assert.match(invalid.Ready?.message ?? '', new RegExp(`Secret ${namespace}/temporal-mtls key tls\\.crt`));
  assert.deepEqual([invalid.Stalled?.status, invalid.Progressing?.status], ['True', 'False'], 'a person must act');
  const warning = await eventually('the Warning event', async () =>
    (await core.listNamespacedEvent({ namespace })).items.find(
      (e) => e.type === 'Warning' && e.reason === 'InvalidSecret' && e.involvedObject.kind === 'TemporalConnection',
    ),
  );
  assert.match(warning.message ?? '', /key tls\.crt/);

  await core.replaceNamespacedSecret({ namespace, name: 'temporal-mtls', body: secret(certs.client.cert) });
  await connectionUntil(namespace, 'Ready again once the Secret is fixed', ready('True', 'Connected'));
});

test('a connection to an address nobody answers is Progressing while the controller tries again', async (t) => {
  const namespace = await testNamespace(t, 'tconn-unreachable');
  const hostPort = `127.0.0.1:${await freePort()}`;
  await controlledNamespace(t, namespace, { connectionSpec: { hostPort } });
  const unreachable = await connectionUntil(namespace, 'TemporalUnreachable', ready('False', 'TemporalUnreachable'));
  assert.match(unreachable.Ready?.message ?? '', new RegExp(`cannot connect to Temporal at ${hostPort}.*trying again`));
  assert.deepEqual([unreachable.Progressing?.status, unreachable.Stalled?.status], ['True', 'False']);
});

test('--temporal-connect-to: a connection at an in-cluster name is reached at the address it maps to', async (t) => {
  const namespace = await testNamespace(t, 'tconn-connect-to');
  const hostPort = 'temporal-frontend.temporal.svc:7233';
  await controlledNamespace(t, namespace, {
    connectionSpec: { hostPort },
    temporalConnectTo: new Map([[hostPort, sharedEnvironment().temporalAddress]]),
  });
  const reached = await connectionUntil(namespace, 'Ready, Connected', ready('True', 'Connected'));
  assert.equal(reached.Ready?.message, `reached Temporal at ${hostPort}`);
});
