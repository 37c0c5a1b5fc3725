import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RESERVED_ENV } from '../../src/api/reserved-env.ts';
import type { Pool, TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import type { TemporalConnection } from '../../src/api/temporal-connection.ts';
import {
  ANNOTATIONS,
  CA_MOUNT_PATH,
  TOKEN_MOUNT_PATH,
  TLS_MOUNT_PATH,
  versionedDeployment,
  withConnection,
} from '../../src/k8s/versioned-deployment.ts';
import { workerConnection } from '../../src/k8s/worker-connection.ts';
import { templateHash } from '../../src/k8s/build-id.ts';

function workerDeployment(spec: Partial<TemporalWorkerDeployment['spec']> = {}): TemporalWorkerDeployment {
  return {
    metadata: { name: 'orders', namespace: 'team-a', uid: 'uid-1' },
    spec: {
      replicas: 3,
      workerOptions: { connectionRef: { name: 'temporal' }, temporalNamespace: 'orders-ns' },
      template: {
        metadata: { labels: { app: 'orders' }, annotations: { team: 'a' } },
        spec: {
          containers: [
            {
              name: 'worker',
              image: 'w:1',
              env: [
                { name: 'LOG_LEVEL', value: 'debug' },
                { name: 'TEMPORAL_NAMESPACE', value: 'wrong' },
              ],
            } as never,
          ],
        },
      },
      ...spec,
    },
  };
}

const env = (d: ReturnType<typeof versionedDeployment>) =>
  Object.fromEntries((d.spec?.template.spec?.containers[0]?.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom]));

test('a plaintext connection: names, labels, owner, timings and the worker environment', () => {
  const d = versionedDeployment({
    workerDeployment: workerDeployment(),
    connection: { hostPort: 'temporal:7233' },
    buildId: 'w-1-abc',
  });
  assert.equal(d.metadata?.name, 'orders-w-1-abc');
  assert.equal(d.metadata?.namespace, 'team-a');
  assert.deepEqual(d.spec?.selector.matchLabels, {
    'temporal.io/deployment-name': 'orders',
    'temporal.io/build-id': 'w-1-abc',
  });
  assert.deepEqual(d.spec?.template.metadata?.labels, {
    app: 'orders',
    'temporal.io/deployment-name': 'orders',
    'temporal.io/build-id': 'w-1-abc',
  });
  assert.equal(d.spec?.template.metadata?.annotations?.team, 'a');
  assert.match(d.spec?.template.metadata?.annotations?.[ANNOTATIONS.templateHash] ?? '', /^[0-9a-f]{64}$/);
  assert.deepEqual(d.metadata?.ownerReferences, [
    {
      apiVersion: 'temporal.io/v1alpha1',
      kind: 'TemporalWorkerDeployment',
      name: 'orders',
      uid: 'uid-1',
      controller: true,
      blockOwnerDeletion: true,
    },
  ]);
  assert.equal(d.spec?.replicas, 3);
  assert.equal(d.spec?.minReadySeconds, 0);
  assert.equal(d.spec?.progressDeadlineSeconds, 600);
  assert.deepEqual(env(d), {
    LOG_LEVEL: 'debug',
    TEMPORAL_ADDRESS: 'temporal:7233',
    TEMPORAL_HOST_PORT: 'temporal:7233',
    TEMPORAL_NAMESPACE: 'orders-ns',
    TEMPORAL_DEPLOYMENT_NAME: 'team-a/orders',
    TEMPORAL_WORKER_BUILD_ID: 'w-1-abc',
    WORKER_BUILD_ID: 'w-1-abc',
  });
});

test('unset replicas stay unset, for an autoscaler to own', () => {
  const d = versionedDeployment({
    workerDeployment: workerDeployment({ replicas: undefined }),
    connection: { hostPort: 'temporal:7233' },
    buildId: 'b',
  });
  assert.equal('replicas' in (d.spec ?? {}), false);
});

test('mutual TLS mounts the Secret in every container and points the SDK at it', () => {
  const d = versionedDeployment({
    workerDeployment: workerDeployment(),
    connection: { hostPort: 'cloud:7233', mutualTLSSecretRef: { name: 'client-cert' } },
    buildId: 'b',
  });
  assert.deepEqual(d.spec?.template.spec?.volumes, [{ name: 'temporal-tls', secret: { secretName: 'client-cert' } }]);
  assert.deepEqual(d.spec?.template.spec?.containers[0]?.volumeMounts, [
    { name: 'temporal-tls', mountPath: TLS_MOUNT_PATH, readOnly: true },
  ]);
  const vars = env(d);
  assert.equal(vars.TEMPORAL_TLS, 'true');
  assert.equal(vars.TEMPORAL_TLS_CLIENT_CERT_PATH, `${TLS_MOUNT_PATH}/tls.crt`);
  assert.equal(vars.TEMPORAL_TLS_CLIENT_KEY_PATH, `${TLS_MOUNT_PATH}/tls.key`);
  assert.equal(vars.TEMPORAL_TLS_SERVER_CA_CERT_PATH, `${TLS_MOUNT_PATH}/ca.crt`);
  assert.equal(vars.TEMPORAL_API_KEY, undefined);
});

test('an API key comes from its Secret, with TLS on; switching auth mode changes the connection hash', () => {
  const apiKey = versionedDeployment({
    workerDeployment: workerDeployment(),
    connection: { hostPort: 'cloud:7233', apiKeySecretRef: { name: 'key', key: 'api-key' } },
    buildId: 'b',
  });
  const vars = env(apiKey);
  assert.deepEqual(vars.TEMPORAL_API_KEY, { secretKeyRef: { name: 'key', key: 'api-key' } });
  assert.equal(vars.TEMPORAL_TLS, 'true');
  assert.equal(apiKey.spec?.template.spec?.volumes, undefined);
  const mtls = versionedDeployment({
    workerDeployment: workerDeployment(),
    connection: { hostPort: 'cloud:7233', mutualTLSSecretRef: { name: 'key' } },
    buildId: 'b',
  });
  const hash = (d: typeof mtls) => d.spec?.template.metadata?.annotations?.[ANNOTATIONS.connectionHash];
  assert.notEqual(hash(apiKey), hash(mtls));
});

test('a CA Secret reaches every container as one file, in every mode, and takes the place of ca.crt of the mutual-TLS Secret', () => {
  const ca = { caCertSecretRef: { name: 'private-ca', key: 'bundle.pem' } };
  const modes: [string, TemporalConnection['spec']][] = [
    ['TLS without credentials', { hostPort: 'cloud:7233', tls: ca }],
    ['API key', { hostPort: 'cloud:7233', tls: ca, apiKeySecretRef: { name: 'key', key: 'api-key' } }],
    ['mutual TLS', { hostPort: 'cloud:7233', tls: ca, mutualTLSSecretRef: { name: 'client-cert' } }],
  ];
  const caVolume = {
    name: 'temporal-tls-ca',
    secret: { secretName: 'private-ca', items: [{ key: 'bundle.pem', path: 'ca.crt' }] },
  };
  const caMount = { name: 'temporal-tls-ca', mountPath: CA_MOUNT_PATH, readOnly: true };
  for (const [mode, connection] of modes) {
    const d = versionedDeployment({ workerDeployment: workerDeployment(), connection, buildId: 'b' });
    const vars = env(d);
    assert.equal(vars.TEMPORAL_TLS, 'true', mode);
    assert.equal(vars.TEMPORAL_TLS_SERVER_CA_CERT_PATH, `${CA_MOUNT_PATH}/ca.crt`, mode);
    assert.deepEqual(d.spec?.template.spec?.volumes?.at(-1), caVolume, mode);
    assert.deepEqual(d.spec?.template.spec?.containers[0]?.volumeMounts?.at(-1), caMount, mode);
  }
  const dropped = withConnection(
    versionedDeployment({ workerDeployment: workerDeployment(), connection: modes[0]![1], buildId: 'b' }).spec!
      .template,
    { hostPort: 'cloud:7233' },
  );
  assert.equal(dropped.spec?.volumes, undefined, 'a CA taken off the connection leaves no volume behind');
  assert.equal(dropped.spec?.containers[0]?.volumeMounts, undefined);
  assert.equal(env({ spec: { template: dropped } } as never).TEMPORAL_TLS_SERVER_CA_CERT_PATH, undefined);
});

test("a service-account token: the Pod's own, projected with the audience, read from a file the kubelet renews; TLS on", () => {
  const connection: TemporalConnection['spec'] = {
    hostPort: 'cloud:7233',
    serviceAccountToken: { audience: 'temporal.example.com', expirationSeconds: 900 },
  };
  const d = versionedDeployment({ workerDeployment: workerDeployment(), connection, buildId: 'b' });
  const vars = env(d);
  assert.equal(vars.TEMPORAL_TLS, 'true');
  assert.equal(vars.TEMPORAL_API_KEY_PATH, `${TOKEN_MOUNT_PATH}/token`);
  assert.equal(vars.TEMPORAL_API_KEY, undefined);
  assert.deepEqual(d.spec?.template.spec?.volumes, [
    {
      name: 'temporal-token',
      projected: {
        sources: [{ serviceAccountToken: { audience: 'temporal.example.com', expirationSeconds: 900, path: 'token' } }],
      },
    },
  ]);
  assert.deepEqual(d.spec?.template.spec?.containers[0]?.volumeMounts, [
    { name: 'temporal-token', mountPath: TOKEN_MOUNT_PATH, readOnly: true },
  ]);
  const hash = (spec: TemporalConnection['spec']) =>
    withConnection({}, spec).metadata?.annotations?.[ANNOTATIONS.connectionHash];
  assert.notEqual(
    hash(connection),
    hash({ ...connection, serviceAccountToken: { audience: 'elsewhere' } }),
    'a new audience rolls the Pods',
  );
  const apiKey = withConnection(d.spec.template, { hostPort: 'cloud:7233', apiKeySecretRef: { name: 'k', key: 'k' } });
  assert.equal(apiKey.spec?.volumes, undefined, 'switching to an API key leaves no token volume behind');
  assert.equal(env({ spec: { template: apiKey } } as never).TEMPORAL_API_KEY_PATH, undefined);
});

test("with workerAuth.serviceAccountToken the Pods get a token, and none of the controller's credentials", () => {
  const spec: TemporalConnection['spec'] = {
    hostPort: 'cloud:7233',
    apiKeySecretRef: { name: 'controller-key', key: 'key' },
    workerAuth: { serviceAccountToken: { audience: 'temporal' } },
  };
  const d = versionedDeployment({
    workerDeployment: workerDeployment(),
    connection: workerConnection({ metadata: { namespace: 'team-a' }, spec }, () => undefined),
    buildId: 'b',
  });
  const vars = env(d);
  assert.equal(vars.TEMPORAL_API_KEY, undefined);
  assert.equal(vars.TEMPORAL_API_KEY_PATH, `${TOKEN_MOUNT_PATH}/token`);
  assert.deepEqual(
    d.spec?.template.spec?.volumes?.map((v) => v.projected?.sources?.[0]?.serviceAccountToken),
    [{ audience: 'temporal', expirationSeconds: 3600, path: 'token' }],
  );
});

test('a rotated CA changes the connection hash: the Pods, which read it at start, roll', () => {
  const spec: TemporalConnection['spec'] = { hostPort: 'cloud:7233', tls: { caCertSecretRef: { name: 'ca' } } };
  const hash = (ca: string) =>
    withConnection(
      {},
      workerConnection({ metadata: { namespace: 'team-a' }, spec }, () => ({ data: { 'ca.crt': ca, other: 'x' } })),
    ).metadata?.annotations?.[ANNOTATIONS.connectionHash];
  assert.notEqual(hash('one'), hash('two'));
  assert.equal(
    withConnection(
      {},
      workerConnection({ metadata: { namespace: 'team-a' }, spec }, () => ({ data: { 'ca.crt': 'one', other: 'y' } })),
    ).metadata?.annotations?.[ANNOTATIONS.connectionHash],
    hash('one'),
    'another key of the Secret rolls nothing',
  );
});

test("with workerAuth the Pods hold only the workers' credentials, and the controller's Secret changing rolls nothing", () => {
  const base = (workerAuth: TemporalConnection['spec']['workerAuth']): TemporalConnection['spec'] => ({
    hostPort: 'cloud:7233',
    mutualTLSSecretRef: { name: 'controller-cert' },
    ...(workerAuth ? { workerAuth } : {}),
  });
  const secret = (data: Record<string, string>) => ({ data });
  const controllerSecret = { v: secret({ 'tls.crt': 'c1', 'tls.key': 'k1' }) };
  const lookup = (_namespace: string, name: string) =>
    name === 'controller-cert' ? controllerSecret.v : secret({ 'api-key': 'worker', 'tls.crt': 'w', 'tls.key': 'w' });
  const build = (spec: TemporalConnection['spec']) =>
    versionedDeployment({
      workerDeployment: workerDeployment(),
      connection: workerConnection({ metadata: { namespace: 'team-a' }, spec }, lookup),
      buildId: 'b',
    });
  const keyed = build(base({ apiKeySecretRef: { name: 'worker-key', key: 'api-key' } }));
  assert.deepEqual(env(keyed).TEMPORAL_API_KEY, { secretKeyRef: { name: 'worker-key', key: 'api-key' } });
  assert.equal(keyed.spec?.template.spec?.volumes, undefined, "no volume of the controller's certificate");
  assert.equal(
    JSON.stringify(keyed).includes('controller-cert'),
    false,
    "the controller's Secret is not named anywhere",
  );
  const certified = build(base({ mutualTLSSecretRef: { name: 'worker-cert' } }));
  assert.deepEqual(certified.spec?.template.spec?.volumes, [
    { name: 'temporal-tls', secret: { secretName: 'worker-cert' } },
  ]);
  assert.equal(JSON.stringify(certified).includes('controller-cert'), false);
  const hash = (d: typeof keyed) => d.spec?.template.metadata?.annotations?.[ANNOTATIONS.connectionHash];
  const before = hash(keyed);
  controllerSecret.v = secret({ 'tls.crt': 'c2', 'tls.key': 'k2' });
  assert.equal(hash(build(base({ apiKeySecretRef: { name: 'worker-key', key: 'api-key' } }))), before);
  const without = build(base(undefined));
  controllerSecret.v = secret({ 'tls.crt': 'c3', 'tls.key': 'k3' });
  assert.notEqual(
    hash(build(base(undefined))),
    hash(without),
    "without workerAuth the Pods use the controller's, and roll with it",
  );
});

test('a connection without the new fields hashes as before them: upgrading the controller rolls no Pod', () => {
  const b = (value: string) => Buffer.from(value).toString('base64');
  const hash = (spec: TemporalConnection['spec'], data?: Record<string, string>) =>
    withConnection(
      {},
      workerConnection({ metadata: { namespace: 'team-a' }, spec }, () => (data ? { data } : undefined)),
    ).metadata?.annotations?.[ANNOTATIONS.connectionHash];
  // As computed by the controller before caCertSecretRef and workerAuth existed.
  assert.equal(
    hash(
      { hostPort: 'cloud:7233', tls: { serverName: 'cloud.example' }, apiKeySecretRef: { name: 'api', key: 'token' } },
      { token: b('the-key') },
    ),
    'efe52106324b709e3d16e24479a4c9056f3b07897b135ac134cd00928d5f85c7',
  );
  assert.equal(
    hash(
      { hostPort: 'cloud:7233', mutualTLSSecretRef: { name: 'client-cert' } },
      {
        'tls.crt': b('crt'),
        'tls.key': b('key'),
        'ca.crt': b('ca'),
      },
    ),
    '870a78bf6f4e2791c7134a9e4cb1136c8d06b12e1109170b059f30a5c6a1ab9c',
  );
  assert.equal(hash({ hostPort: 'temporal:7233' }), '2e84bad9af1666c1cb68b60fe1af9e01827cd5a6142c79e4a76936947859a8bc');
});

test('a pool adds its label, task queue, placement and resources', () => {
  const d = versionedDeployment({
    workerDeployment: workerDeployment(),
    connection: { hostPort: 'temporal:7233' },
    buildId: 'b',
    pool: {
      name: 'metastore',
      taskQueue: 'metastore-tq',
      replicas: 1,
      nodeSelector: { pool: 'on-demand' },
      tolerations: [{ key: 'dedicated', operator: 'Exists' }],
      resources: { requests: { cpu: '2' } },
    },
  });
  assert.equal(d.metadata?.name, 'orders-metastore-b');
  assert.equal(d.spec?.selector.matchLabels?.['temporal.io/pool'], 'metastore');
  assert.equal(d.spec?.replicas, 1);
  assert.equal(env(d).TEMPORAL_TASK_QUEUE, 'metastore-tq');
  assert.deepEqual(d.spec?.template.spec?.nodeSelector, { pool: 'on-demand' });
  assert.deepEqual(d.spec?.template.spec?.tolerations, [{ key: 'dedicated', operator: 'Exists' }]);
  assert.deepEqual(d.spec?.template.spec?.containers[0]?.resources, { requests: { cpu: '2' } });
});

test('the user template is not changed by building from it', () => {
  const twd = workerDeployment();
  const before = structuredClone(twd);
  versionedDeployment({
    workerDeployment: twd,
    connection: { hostPort: 'cloud:7233', mutualTLSSecretRef: { name: 'c' } },
    buildId: 'b',
    pool: { name: 'p', nodeSelector: { a: 'b' } },
  });
  assert.deepEqual(twd, before);
});

test('switching a running build from mutual TLS to an API key leaves no TLS mount, volume or variable behind', () => {
  const mtls = versionedDeployment({
    workerDeployment: workerDeployment(),
    connection: { hostPort: 'cloud:7233', mutualTLSSecretRef: { name: 'client-cert' } },
    buildId: 'b',
  });
  const switched = withConnection(mtls.spec?.template ?? {}, {
    hostPort: 'cloud:7233',
    apiKeySecretRef: { name: 'key', key: 'api-key' },
  });
  const fresh = versionedDeployment({
    workerDeployment: workerDeployment(),
    connection: { hostPort: 'cloud:7233', apiKeySecretRef: { name: 'key', key: 'api-key' } },
    buildId: 'b',
  });
  assert.deepEqual(switched, fresh.spec?.template, 'the same template as a build made with the new connection');
  assert.equal(switched.spec?.volumes, undefined);
  assert.equal(switched.spec?.containers[0]?.volumeMounts, undefined);
  const back = withConnection(switched, { hostPort: 'cloud:7233', mutualTLSSecretRef: { name: 'client-cert' } });
  assert.deepEqual(back, mtls.spec?.template, 'and back again');
});

test('the spec hash covers everything but replicas', () => {
  const hash = (spec: Partial<TemporalWorkerDeployment['spec']>) =>
    versionedDeployment({
      workerDeployment: workerDeployment(spec),
      connection: { hostPort: 'temporal:7233' },
      buildId: 'b',
    }).metadata?.annotations?.[ANNOTATIONS.specHash];
  assert.equal(hash({ replicas: 1 }), hash({ replicas: 9 }));
  assert.notEqual(hash({ minReadySeconds: 5 }), hash({}));
  assert.notEqual(hash({ progressDeadlineSeconds: 60 }), hash({}));
});

test('every variable the controller sets, whatever the connection, is one admission refuses in a template', () => {
  const connections = [
    { hostPort: 'temporal:7233' },
    { hostPort: 'cloud:7233', tls: { serverName: 'cloud' }, mutualTLSSecretRef: { name: 'cert' } },
    { hostPort: 'cloud:7233', apiKeySecretRef: { name: 'key', key: 'api-key' } },
    { hostPort: 'cloud:7233', tls: { caCertSecretRef: { name: 'ca' } } },
    { hostPort: 'cloud:7233', serviceAccountToken: { audience: 'temporal' } },
  ];
  const injected = new Set(
    connections.flatMap((connection) =>
      Object.keys(env(versionedDeployment({ workerDeployment: workerDeployment(), connection, buildId: 'b' }))),
    ),
  );
  injected.delete('LOG_LEVEL'); // the template's own
  assert.deepEqual([...injected].sort(), [...RESERVED_ENV].sort());
});

test("a pool's template: its image, variables (replaced where they stand), resources, ServiceAccount and Pod labels; the other pools run spec.template", () => {
  const twd = workerDeployment();
  twd.spec.template = {
    metadata: { labels: { app: 'orders' } },
    spec: {
      containers: [
        {
          name: 'worker',
          image: 'orders:1',
          env: [
            { name: 'A', value: '1' },
            { name: 'B', value: '$(A)' },
          ],
        },
        { name: 'sidecar', image: 'proxy:1' },
      ],
    },
  } as TemporalWorkerDeployment['spec']['template'];
  const gpu = {
    name: 'gpu',
    resources: { requests: { cpu: '1' } },
    template: {
      metadata: { labels: { role: 'trainer' } },
      spec: {
        serviceAccountName: 'trainer',
        containers: [
          {
            name: 'worker',
            image: 'orders-gpu:1',
            env: [
              { name: 'A', value: 'gpu' },
              { name: 'C', value: '3' },
            ],
            resources: { limits: { 'nvidia.com/gpu': '1' } },
          },
        ],
      },
    },
  };
  const build = (pool: Pool) =>
    versionedDeployment({ workerDeployment: twd, connection: { hostPort: 't:7233' }, buildId: 'b', pool });
  const pod = build(gpu).spec?.template;
  const [worker, sidecar] = pod?.spec?.containers ?? [];
  assert.equal(worker?.image, 'orders-gpu:1');
  assert.deepEqual(
    worker?.env?.filter((e) => !RESERVED_ENV.includes(e.name)).map((e) => `${e.name}=${e.value}`),
    ['A=gpu', 'B=$(A)', 'C=3'],
  );
  assert.deepEqual(worker?.resources, { limits: { 'nvidia.com/gpu': '1' } }, "the container's own over the pool's");
  assert.deepEqual(sidecar?.resources, { requests: { cpu: '1' } }, "the pool's for the others");
  assert.equal(sidecar?.image, 'proxy:1');
  assert.equal(pod?.spec?.serviceAccountName, 'trainer');
  assert.equal(pod?.metadata?.labels?.role, 'trainer');
  assert.equal(pod?.metadata?.labels?.app, 'orders');
  assert.equal(pod?.metadata?.labels?.['temporal.io/pool'], 'gpu', 'the selector labels stay ours');

  const other = build({ name: 'cpu' }).spec?.template;
  assert.equal(other?.spec?.containers[0]?.image, 'orders:1');
  assert.equal(other?.spec?.serviceAccountName, undefined);
  assert.equal(other?.metadata?.annotations?.['temporal.io/pod-template-hash'], templateHash(twd.spec.template));
});
