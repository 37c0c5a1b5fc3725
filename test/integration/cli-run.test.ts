import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect } from 'node:tls';
import { test, type TestContext } from 'node:test';
import { CoordinationV1Api, CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { get as httpsGet, request as httpsRequest } from 'node:https';
import { freePort } from '../../dev/localenv/ports.ts';
import { eventually, kubeConfig, sharedEnvironment, testNamespace, uniqueName } from '../support/environment.ts';
import { workerDeployments } from '../support/controller.ts';
import { create } from '../support/manifests.ts';
import { startTwcRun, type TwcRun } from '../support/twc-run.ts';

interface Replica extends TwcRun {
  webhookPort: number;
  /** The fingerprint of the certificate its webhook serves. */
  webhookCertificate(): Promise<string>;
}

/** `twc run` in a child process, scoped to the test's namespace, with its Lease there too. */
async function startReplica(t: TestContext, namespace: string, lease: string, flags: string[] = []): Promise<Replica> {
  const webhookPort = await freePort();
  const replica = await startTwcRun(t, [
    `--kubeconfig=${sharedEnvironment().kubeconfigPath}`,
    `--identity=${uniqueName('twc-cli')}`,
    `--namespace=${namespace}`,
    '--poll-interval=1s',
    `--leader-election-namespace=${namespace}`,
    `--leader-election-id=${lease}`,
    // The webhook as by default, its certificate self-managed in a Secret that the replicas share.
    `--webhook-bind-address=127.0.0.1:${webhookPort}`,
    `--webhook-namespace=${namespace}`,
    ...flags,
  ]);
  return {
    ...replica,
    webhookPort,
    webhookCertificate: () =>
      new Promise((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port: webhookPort, rejectUnauthorized: false }, () => {
          resolve(socket.getPeerCertificate().fingerprint256);
          socket.end();
        });
        socket.on('error', reject);
      }),
  };
}

test('`twc run` leads and serves probes and counted metrics; on SIGTERM it releases the Lease and a standby takes over; a leader that loses the Lease exits 1', async (t) => {
  const namespace = await testNamespace(t, 'cli');
  const lease = uniqueName('lease');
  const { temporalAddress, temporalNamespace } = sharedEnvironment();
  const leaderStatus = new RegExp(`name="${lease}"`);

  const first = await startReplica(t, namespace, lease, ['--log-level=debug']);
  await eventually(
    'the first replica to lead',
    async () => ((await first.sample('leader_election_master_status', leaderStatus)) === 1 ? true : undefined),
    30_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${first.output()}`);
  });
  await eventually(
    'the leader to be ready',
    async () => ((await first.get('/readyz')).status === 200 ? true : undefined),
    30_000,
  );
  assert.deepEqual(await first.get('/healthz'), { status: 200, body: 'ok\n' });

  await create(
    {
      apiVersion: 'temporal.io/v1alpha1',
      kind: 'TemporalConnection',
      metadata: { name: 'temporal' },
      spec: { hostPort: temporalAddress },
    },
    namespace,
  );
  await create(
    {
      apiVersion: 'temporal.io/v1alpha1',
      kind: 'TemporalWorkerDeployment',
      metadata: { name: 'worker' },
      spec: {
        replicas: 1,
        workerOptions: { connectionRef: { name: 'temporal' }, temporalNamespace },
        template: {
          spec: {
            containers: [
              {
                name: 'worker',
                image: 'sample-worker',
                env: [{ name: 'TEMPORAL_TASK_QUEUE', value: uniqueName('q') }],
              },
            ],
          },
        },
      },
    },
    namespace,
  );
  // Each counter is fed by a different mechanism: the work queue, API clients, watches, gRPC.
  const counted: [string, RegExp][] = [
    ['controller_runtime_reconcile_total', /controller="temporalworkerdeployment",result="(success|requeue_after)"/],
    ['workqueue_adds_total', /name="temporalworkerdeployment"/],
    // The build's Deployment becoming available: a rollout's progress, queued in the top lane.
    ['workqueue_queue_duration_seconds_count', /name="temporalworkerdeployment",priority="top"/],
    ['twc_kubernetes_requests_total', /verb="list",resource="temporalworkerdeployments",code="200"/],
    ['twc_kubernetes_requests_total', /verb="watch",resource="temporalworkerdeployments",code="200"/],
    ['twc_kubernetes_requests_total', /verb="create",resource="deployments",code="201"/],
    ['twc_kubernetes_requests_total', /verb="update",resource="leases",code="200"/],
    ['twc_temporal_requests_total', /method="DescribeWorkerDeployment"/],
    ['process_cpu_seconds_total', /./],
  ];
  for (const [name, labels] of counted) {
    await eventually(
      `${name} ${labels.source} to count`,
      async () => ((await first.sample(name, labels)) > 0 ? true : undefined),
      30_000,
    );
  }

  // Its output is a pipe: JSON, each line an object.
  const entries = () =>
    first
      .output()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.ok(
    entries().every((e) => typeof e.time === 'string' && typeof e.level === 'string' && typeof e.msg === 'string'),
    first.output(),
  );
  assert.doesNotMatch(
    first.output(),
    /Unknown API Status Code|HTTP-Code:/,
    "API errors are logged in the server's words",
  );
  // The worker deployment's reconcile may still be writing its status when its Deployment is counted.
  await eventually(
    '--log-level=debug to log the reconcile of the worker deployment with its object and count',
    () =>
      Promise.resolve(
        entries().some(
          (e) =>
            e.level === 'debug' &&
            e.msg === 'reconciled' &&
            e.kind === 'TemporalWorkerDeployment' &&
            e.object === `${namespace}/worker` &&
            typeof e.reconcile === 'number',
        )
          ? true
          : undefined,
      ),
    30_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${first.output()}`);
  });

  const second = await startReplica(t, namespace, lease);
  await eventually(
    'the standby to be ready',
    async () => ((await second.get('/readyz')).status === 200 ? true : undefined),
    30_000,
  );
  assert.equal(await second.sample('leader_election_master_status', leaderStatus), 0);
  assert.equal(
    await second.webhookCertificate(),
    await first.webhookCertificate(),
    'both replicas serve the webhook certificate of their shared Secret',
  );
  assert.equal(await second.sample('controller_runtime_reconcile_total'), 0, 'a standby does not reconcile');
  const coordination = kubeConfig().makeApiClient(CoordinationV1Api);
  const holderBefore = (await coordination.readNamespacedLease({ namespace, name: lease })).spec?.holderIdentity;

  assert.equal(await first.terminate(), 0, `a graceful stop exits 0\n${first.output()}`);
  // The lease lasts 15s: taking over well within it shows that the first released it.
  await eventually(
    'the standby to lead',
    async () => ((await second.sample('leader_election_master_status', leaderStatus)) === 1 ? true : undefined),
    10_000,
  );
  const holderAfter = (await coordination.readNamespacedLease({ namespace, name: lease })).spec?.holderIdentity;
  assert.ok(holderAfter && holderAfter !== holderBefore, `the lease changed hands: ${holderBefore} -> ${holderAfter}`);
  await eventually(
    'the new leader to reconcile',
    async () =>
      (await second.sample('controller_runtime_reconcile_total', /result="(success|requeue_after)"/)) > 0
        ? true
        : undefined,
    30_000,
  );

  await eventually('another holder to write the lease', async () => {
    const current = await coordination.readNamespacedLease({ namespace, name: lease });
    await coordination.replaceNamespacedLease({
      namespace,
      name: lease,
      body: { ...current, spec: { ...current.spec, holderIdentity: 'intruder' } },
    });
    return true;
  });
  assert.equal(await second.exited, 1, 'a lost lease ends the process, so that Kubernetes restarts it');
  assert.match(second.output(), /lost leadership \(the lease is now held by intruder\)/);
});

/** `twc` with these arguments, to its end: exit code and everything it wrote. */
function twc(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(path.join(import.meta.dirname, '../../bin/twc'), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

test('`twc --version` prints the version of package.json', async () => {
  const { version } = JSON.parse(readFileSync(path.join(import.meta.dirname, '../../package.json'), 'utf8')) as {
    version: string;
  };
  assert.deepEqual(await twc(['--version']), { code: 0, stdout: `${version}\n`, stderr: '' });
});

test('a kubeconfig file that does not exist is one line naming it, and exit code 1', async () => {
  const missing = path.join(tmpdir(), uniqueName('no-kubeconfig'));
  const { code, stdout, stderr } = await twc(['run', `--kubeconfig=${missing}`]);
  assert.equal(code, 1);
  assert.equal(stdout, '');
  assert.equal(
    stderr,
    `error: kubeconfig ${missing}: cannot read it: ENOENT: no such file or directory, open '${missing}'\n`,
  );
});

test('the lease timing flags reach the Lease the controller writes', async (t) => {
  const namespace = await testNamespace(t, 'cli-lease');
  const lease = uniqueName('lease');
  const replica = await startReplica(t, namespace, lease, [
    '--leader-elect-lease-duration=40s',
    '--leader-elect-renew-deadline=30s',
    '--leader-elect-retry-period=1s',
  ]);
  const coordination = kubeConfig().makeApiClient(CoordinationV1Api);
  const written = await eventually(
    'the replica to write its Lease',
    async () => (await coordination.readNamespacedLease({ namespace, name: lease })).spec,
    30_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${replica.output()}`);
  });
  assert.equal(written.leaseDurationSeconds, 40);
});

test('--dashboard-bind-address: the controller serves the dashboard of the namespaces it watches', async (t) => {
  const namespace = await testNamespace(t, 'cli-dashboard');
  const port = await freePort();
  await startReplica(t, namespace, uniqueName('lease'), [`--dashboard-bind-address=127.0.0.1:${port}`]);
  await workerDeployments(namespace).createWorkerDeployment('orders', {
    replicas: 1,
    template: workerDeployments(namespace).template('blue'),
  });
  const listed = await eventually('the dashboard to list the worker deployment', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/api/worker-deployments`).catch(() => undefined);
    const body = (await response?.json()) as { items: { namespace: string; name: string }[] } | undefined;
    return body?.items.length ? body.items : undefined;
  });
  assert.deepEqual(
    listed.map((item) => `${item.namespace}/${item.name}`),
    [`${namespace}/orders`],
  );
  const page = await fetch(`http://127.0.0.1:${port}/`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'; script-src 'self'/);
});

test('--metrics-secure: /metrics over HTTPS is refused without a bearer token and to one not allowed, and served to one allowed get on /metrics', async (t) => {
  const namespace = await testNamespace(t, 'cli-metrics');
  const replica = await startReplica(t, namespace, uniqueName('lease'), ['--metrics-secure']);
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const rbac = kubeConfig().makeApiClient(RbacAuthorizationV1Api);
  const reader = uniqueName('metrics-reader');
  for (const name of ['scraper', 'stranger'])
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  await rbac.createClusterRole({
    body: { metadata: { name: reader }, rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }] },
  });
  t.after(() => rbac.deleteClusterRole({ name: reader }));
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: reader },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: reader },
      subjects: [{ kind: 'ServiceAccount', name: 'scraper', namespace }],
    },
  });
  t.after(() => rbac.deleteClusterRoleBinding({ name: reader }));
  const tokenOf = async (name: string) =>
    (await core.createNamespacedServiceAccountToken({ name, namespace, body: { spec: {} } })).status?.token ?? '';
  const scrape = (token?: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const headers = token ? { authorization: `Bearer ${token}` } : {};
      // The certificate is the controller's own, made at start: nothing signs it.
      const options = {
        host: '127.0.0.1',
        port: replica.metricsPort,
        path: '/metrics',
        headers,
        rejectUnauthorized: false,
      };
      httpsGet(options, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      }).on('error', reject);
    });
  const anonymous = await eventually('the metrics to be served', () => scrape().catch(() => undefined), 30_000);
  assert.equal(anonymous.status, 401);
  assert.equal((await scrape('not-a-token')).status, 401);
  const stranger = await scrape(await tokenOf('stranger'));
  assert.deepEqual(stranger, {
    status: 403,
    body: `system:serviceaccount:${namespace}:stranger may not get /metrics\n`,
  });
  const scraper = await eventually('the binding to take effect', async () => {
    const answer = await scrape(await tokenOf('scraper'));
    return answer.status === 200 ? answer : undefined;
  });
  assert.match(scraper.body, /^twc_/m);
});

test('a 50 MiB body POSTed to the webhook port, as any Pod could, gets 413, and the replica goes on serving', async (t) => {
  const namespace = await testNamespace(t, 'cli-webhook-body');
  const replica = await startReplica(t, namespace, uniqueName('lease'));
  const post = (body: Buffer) =>
    new Promise<number>((resolve, reject) => {
      const path = '/validate-temporal-io-v1alpha1-temporalworkerownedresource';
      // The webhook's certificate is the controller's own: this test checks the server, not its name.
      const options = { host: '127.0.0.1', port: replica.webhookPort, path, method: 'POST', rejectUnauthorized: false };
      const sent = httpsRequest(options, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      sent.on('error', reject);
      sent.end(body);
    });
  const review = (uid: string) =>
    Buffer.from(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid } }));
  await eventually('the webhook to serve', () => post(review('first')).catch(() => undefined), 30_000);
  assert.equal(await post(Buffer.alloc(50 * 1024 * 1024, 0x20)), 413);
  assert.equal(await post(review('after')), 200, 'the webhook still answers');
  assert.equal((await replica.get('/healthz')).status, 200, 'and the process lives');
});
