import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readWorkerEnvironment as readConfig, WorkerEnvironmentError } from '../../packages/worker/src/index.ts';
import { API_KEY_PATH_ENV } from '../../src/api/reserved-env.ts';
import { API_KEY_PATH_ENV as LIBRARY_API_KEY_PATH_ENV } from '../../packages/worker/src/index.ts';
import { readConfig as readSampleConfig } from '../../dev/sample-worker/config.ts';

const base = {
  TEMPORAL_ADDRESS: 'host:7233',
  TEMPORAL_NAMESPACE: 'ns',
  TEMPORAL_DEPLOYMENT_NAME: 'ns/workers',
  TEMPORAL_WORKER_BUILD_ID: 'b1',
};

test('the worker is configured from the variables the controller injects', () => {
  assert.deepEqual(readConfig({ ...base, TEMPORAL_TASK_QUEUE: 'q', TEMPORAL_API_KEY: 'k' }), {
    address: 'host:7233',
    namespace: 'ns',
    deploymentName: 'ns/workers',
    buildId: 'b1',
    taskQueue: 'q',
    apiKey: 'k',
    tls: {},
    tlsFiles: [],
  });
  assert.equal(API_KEY_PATH_ENV, LIBRARY_API_KEY_PATH_ENV, 'the library reads the variable the controller sets');
});

test("the sample worker: the library's environment, and its behaviour", () => {
  assert.equal(readSampleConfig({ ...base, SAMPLE_BEHAVIOUR: 'fail-gate' }).behaviour, 'fail-gate');
  assert.equal(readSampleConfig(base).behaviour, 'default');
});

test('TLS is on with an API key, TEMPORAL_TLS, a server name or a server CA', () => {
  assert.equal(readConfig(base).tls, undefined);
  assert.deepEqual(readConfig({ ...base, TEMPORAL_TLS: 'true' }).tls, {});
  assert.deepEqual(
    readConfig({ ...base, TEMPORAL_TLS_SERVER_NAME: 'temporal.example.com', TEMPORAL_TLS_SERVER_CA_CERT_DATA: 'PEM' })
      .tls,
    {
      serverName: 'temporal.example.com',
      serverCACertificate: 'PEM',
    },
  );
});

test('mutual TLS: the client certificate, its key and the server CA are read from the files the variables name', () => {
  const files: Record<string, string> = { '/tls/tls.crt': 'CERT', '/tls/tls.key': 'KEY', '/tls/ca.crt': 'CA' };
  const read = (path: string) => files[path];
  const env = {
    ...base,
    TEMPORAL_TLS_CLIENT_CERT_PATH: '/tls/tls.crt',
    TEMPORAL_TLS_CLIENT_KEY_PATH: '/tls/tls.key',
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/tls/ca.crt',
  };
  assert.deepEqual(readConfig(env, read).tls, {
    serverCACertificate: 'CA',
    clientCertPair: { crt: 'CERT', key: 'KEY' },
  });
  assert.deepEqual(
    readConfig(env, read).tlsFiles,
    ['/tls/ca.crt', '/tls/tls.crt', '/tls/tls.key'],
    'watched for rotation',
  );
  assert.deepEqual(
    readConfig({ ...env, TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/tls/absent.crt' }, read).tls,
    { clientCertPair: { crt: 'CERT', key: 'KEY' } },
    'no CA file: the default roots',
  );
  assert.throws(() => readConfig({ ...env, TEMPORAL_TLS_CLIENT_KEY_PATH: '/tls/absent.key' }, read), {
    name: 'WorkerEnvironmentError',
    message: /TEMPORAL_TLS_CLIENT_KEY_PATH: file \/tls\/absent.key does not exist/,
  });
  const certOnly: Record<string, string> = { ...env };
  delete certOnly.TEMPORAL_TLS_CLIENT_KEY_PATH;
  assert.throws(() => readConfig(certOnly, read), { name: 'WorkerEnvironmentError', message: /go together/ });
});

test('the task queue defaults to the deployment name and the older variable names are accepted', () => {
  const config = readConfig({
    TEMPORAL_HOST_PORT: 'old:7233',
    TEMPORAL_NAMESPACE: 'ns',
    TEMPORAL_DEPLOYMENT_NAME: 'd',
    WORKER_BUILD_ID: 'b2',
  });
  assert.equal(config.address, 'old:7233');
  assert.equal(config.buildId, 'b2');
  assert.equal(config.taskQueue, 'd');
});

for (const missing of [
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_DEPLOYMENT_NAME',
  'TEMPORAL_WORKER_BUILD_ID',
]) {
  test(`a missing ${missing} is refused by name`, () => {
    const env: Record<string, string> = { ...base };
    delete env[missing];
    assert.throws(
      () => readConfig(env),
      (error: unknown) => error instanceof WorkerEnvironmentError && error.message.includes(missing),
    );
  });
}

test('a token file (TEMPORAL_API_KEY_PATH) is the API key, trimmed, and is followed from its path; TLS is on', () => {
  const read = (path: string) => (path === '/etc/temporal/token/token' ? 'eyJ.token\n' : undefined);
  const config = readConfig({ ...base, TEMPORAL_API_KEY_PATH: '/etc/temporal/token/token' }, read);
  assert.deepEqual(
    [config.apiKey, config.apiKeyPath, config.tls, config.tlsFiles],
    ['eyJ.token', '/etc/temporal/token/token', {}, []],
  );
  assert.throws(() => readConfig({ ...base, TEMPORAL_API_KEY_PATH: '/absent' }, read), {
    name: 'WorkerEnvironmentError',
    message: /TEMPORAL_API_KEY_PATH: file \/absent does not exist/,
  });
});
