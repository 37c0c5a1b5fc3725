// The controller's gRPC channel at the edges the real server seldom shows: a status without a
// message, a proxy's HTTP error, a reset stream, a server that never answers, a reconcile's
// deadline, a refused connection; and the retry policy it follows. The happy path runs against the real Temporal server in the integration suite.
import assert from 'node:assert/strict';
import {
  constants,
  createSecureServer,
  createServer,
  type Http2Server,
  type IncomingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { retryDelayMs } from '../../src/temporal/call-retries.ts';
import type { TemporalCallError } from '../../src/temporal/call-status.ts';
import { type CallStatus, GrpcStatus } from '../../src/temporal/call-status.ts';
import { type CallCutOff, type CallTimeouts, TemporalChannel } from '../../src/temporal/channel.ts';
import { makeCertificates } from '../support/certificates.ts';

const half = () => 0.5;

test('retries: transient codes are tried again with growing delays, up to 10 attempts; a rate limit and a refusal are not', () => {
  const unavailable = { code: GrpcStatus.UNAVAILABLE, details: 'connect ECONNREFUSED' };
  assert.deepEqual(
    [1, 2, 3, 9].map((attempt) => retryDelayMs(attempt, unavailable, half)),
    [170, 100 * 1.7 ** 2, 100 * 1.7 ** 3, 5000],
  );
  assert.equal(retryDelayMs(10, unavailable, half), undefined, 'the tenth attempt is the last');
  assert.equal(Math.round(retryDelayMs(1, unavailable, () => 0) ?? 0), 136, 'jitter down to -20 %');
  assert.equal(Math.round(retryDelayMs(1, unavailable, () => 1) ?? 0), 204, 'and up to +20 %');
  const retried = (code: number, details = '') => retryDelayMs(1, { code, details }, half) !== undefined;
  for (const code of [GrpcStatus.UNKNOWN, GrpcStatus.ABORTED, GrpcStatus.DATA_LOSS, GrpcStatus.OUT_OF_RANGE])
    assert.ok(retried(code), `code ${code}`);
  for (const code of [
    GrpcStatus.RESOURCE_EXHAUSTED,
    GrpcStatus.NOT_FOUND,
    GrpcStatus.FAILED_PRECONDITION,
    GrpcStatus.UNAUTHENTICATED,
    GrpcStatus.DEADLINE_EXCEEDED,
  ])
    assert.ok(!retried(code), `code ${code}`);
  assert.ok(retried(GrpcStatus.INTERNAL, 'Received RST_STREAM with code 2'));
  assert.ok(retried(GrpcStatus.INTERNAL, 'Call ended without gRPC status'));
  assert.ok(!retried(GrpcStatus.INTERNAL, 'Received RST_STREAM with code 2 (SSL alert number 42)'));
  assert.ok(!retried(GrpcStatus.INTERNAL, 'failed to decode the request'));
});

/**
 * A channel to a server whose every call `answer` handles; also what the channel sent, each
 * attempt's status and each call cut off.
 */
async function channelTo(
  t: TestContext,
  answer: (stream: ServerHttp2Stream, call: number) => void,
  timeouts?: CallTimeouts,
) {
  const server = createServer();
  const sessions: ServerHttp2Session[] = [];
  server.on('session', (session) => sessions.push(session));
  const paths: string[] = [];
  const headers: IncomingHttpHeaders[] = [];
  server.on('stream', (stream, sent) => {
    paths.push(String(sent[':path']));
    headers.push(sent);
    stream.on('error', () => {});
    answer(stream, paths.length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const attempts: CallStatus[] = [];
  const cutOffs: string[] = [];
  const channel = new TemporalChannel({
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    ...(timeouts ? { timeouts } : {}),
    onAttempt: (_method, status) => attempts.push(status),
    onCutOff: (method: string, by: CallCutOff) => cutOffs.push(`${method} ${by}`),
  });
  t.after(() => {
    channel.close();
    // A call still open (the channel failing to end it) must not keep the test process alive.
    for (const session of sessions) session.destroy();
    server.close();
  });
  return { channel, paths, headers, attempts, cutOffs };
}

/** Takes the call, says it is answering, and never does. */
const neverAnswers = (stream: ServerHttp2Stream) =>
  stream.respond({ ':status': 200, 'content-type': 'application/grpc' });

const trailersOnly = (code: number, message: string) => (stream: ServerHttp2Stream) =>
  stream.respond(
    { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': code, 'grpc-message': message },
    {
      endStream: true,
    },
  );

test('a status in the headers alone is the call’s error, its message percent-decoded', async (t) => {
  const { channel, paths } = await channelTo(t, trailersOnly(GrpcStatus.NOT_FOUND, 'no%20such%20deployment'));
  await assert.rejects(channel.service.describeWorkerDeployment({ namespace: 'n', deploymentName: 'd' }), {
    name: 'TemporalCallError',
    code: GrpcStatus.NOT_FOUND,
    details: 'no such deployment',
  });
  assert.deepEqual(paths, ['/temporal.api.workflowservice.v1.WorkflowService/DescribeWorkerDeployment']);
});

test('a transient failure is tried again and the second answer read; every attempt is reported', async (t) => {
  const { channel, attempts } = await channelTo(t, (stream, call) => {
    if (call === 1) return trailersOnly(GrpcStatus.UNAVAILABLE, 'draining')(stream);
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': GrpcStatus.OK }));
    stream.end(Buffer.from([0, 0, 0, 0, 0])); // an empty GetSystemInfoResponse
  });
  const answer = await channel.service.getSystemInfo({});
  assert.equal(answer.serverVersion, '');
  assert.deepEqual(
    attempts.map((a) => a.code),
    [GrpcStatus.UNAVAILABLE, GrpcStatus.OK],
  );
});

test('an HTTP error from a proxy, a reset stream and a framing error each become a gRPC status', async (t) => {
  const cases: [(stream: ServerHttp2Stream) => void, number, RegExp][] = [
    [(s) => s.respond({ ':status': 403 }, { endStream: true }), GrpcStatus.PERMISSION_DENIED, /HTTP status 403/],
    [(s) => s.close(8), GrpcStatus.INTERNAL, /RST_STREAM with code 8/],
    [
      (s) => {
        s.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        s.on('wantTrailers', () => s.sendTrailers({ 'grpc-status': GrpcStatus.OK }));
        s.end(Buffer.from([1, 0, 0, 0, 0]));
      },
      GrpcStatus.INTERNAL,
      /not one uncompressed message/,
    ],
  ];
  for (const [answer, code, details] of cases) {
    const { channel } = await channelTo(t, answer);
    await assert.rejects(channel.service.describeNamespace({ namespace: 'n' }), (error: TemporalCallError) => {
      assert.equal(error.code, code);
      assert.match(error.details, details);
      return true;
    });
  }
});

test(
  'a server that accepts a call and never answers: a read ends at its timeout, a write at its longer one, each saying which',
  { timeout: 10_000 },
  async (t) => {
    const { channel, headers, cutOffs } = await channelTo(t, neverAnswers, { readMs: 300, writeMs: 900 });
    const timed = async (call: () => Promise<unknown>) => {
      const started = performance.now();
      const error = await call().then(
        () => assert.fail('answered'),
        (e: unknown) => e as TemporalCallError,
      );
      return { error, ms: performance.now() - started };
    };
    const read = await timed(() => channel.service.describeWorkerDeployment({ namespace: 'n', deploymentName: 'd' }));
    assert.equal(read.error.name, 'TemporalCallError');
    assert.equal(read.error.code, GrpcStatus.DEADLINE_EXCEEDED);
    assert.equal(
      read.error.message,
      'DescribeWorkerDeployment: DEADLINE_EXCEEDED: no answer within 0.3s, the timeout of a read',
    );
    // A timer fires no sooner than asked (give or take Node's millisecond); the upper bound is slack for a busy machine.
    assert.ok(read.ms >= 299 && read.ms < 2_300, `the read took ${read.ms} ms`);
    const write = await timed(() =>
      channel.service.setWorkerDeploymentCurrentVersion({ namespace: 'n', deploymentName: 'd', buildId: 'v2' }),
    );
    assert.equal(
      write.error.message,
      'SetWorkerDeploymentCurrentVersion: DEADLINE_EXCEEDED: no answer within 0.9s, the timeout of a write',
    );
    assert.ok(write.ms >= 899 && write.ms < 2_900, `the write took ${write.ms} ms`);
    assert.deepEqual(cutOffs, ['DescribeWorkerDeployment read', 'SetWorkerDeploymentCurrentVersion write']);
    // The server is told too, as gRPC says: it may stop working on a call nobody waits for.
    const told = headers.map((h) => Number(/^(\d+)m$/.exec(String(h['grpc-timeout']))?.[1]));
    assert.ok(told[0]! <= 300 && told[0]! > 0 && told[1]! <= 900 && told[1]! > 300, `grpc-timeout ${told.join(', ')}`);
  },
);

test(
  'a call tried again after a failure and cut off by its timeout says the failure, not the timeout',
  { timeout: 10_000 },
  async (t) => {
    const { channel, cutOffs } = await channelTo(
      t,
      (stream, call) =>
        call === 1 ? trailersOnly(GrpcStatus.UNAVAILABLE, 'certificate mismatch')(stream) : neverAnswers(stream),
      { readMs: 600, writeMs: 600 },
    );
    await assert.rejects(channel.service.getSystemInfo({}), {
      name: 'TemporalCallError',
      code: GrpcStatus.UNAVAILABLE,
      details: 'certificate mismatch',
    });
    assert.deepEqual(cutOffs, ['GetSystemInfo read'], 'still counted as cut off by its timeout');
  },
);

test(
  "a reconcile's deadline cuts its call off at once: the stream is cancelled, the deadline is the cause, and no later call goes out",
  { timeout: 10_000 },
  async (t) => {
    const resets: number[] = [];
    const { channel, paths, cutOffs } = await channelTo(
      t,
      (stream) => {
        stream.on('close', () => resets.push(stream.rstCode));
        neverAnswers(stream);
      },
      { readMs: 60_000, writeMs: 60_000 },
    );
    const deadline = new AbortController();
    const service = channel.cutOffBy(deadline.signal);
    const call = service.setWorkerDeploymentRampingVersion({ namespace: 'n', deploymentName: 'd', percentage: 5 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const reason = new Error('the reconcile of shop/orders ran past its timeout of 120s');
    deadline.abort(reason);
    await assert.rejects(call, (error: TemporalCallError) => {
      assert.equal(error.code, GrpcStatus.DEADLINE_EXCEEDED);
      assert.equal(
        error.message,
        'SetWorkerDeploymentRampingVersion: DEADLINE_EXCEEDED: the reconcile of shop/orders ran past its timeout of 120s',
      );
      assert.equal(error.cause, reason);
      return true;
    });
    await assert.rejects(service.describeWorkerDeployment({ namespace: 'n', deploymentName: 'd' }), { cause: reason });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(resets, [constants.NGHTTP2_CANCEL], 'the server saw the call cancelled');
    assert.equal(paths.length, 1, 'the call after the deadline never left');
    assert.deepEqual(cutOffs, ['SetWorkerDeploymentRampingVersion reconcile', 'DescribeWorkerDeployment reconcile']);
  },
);

test('a refused connection is UNAVAILABLE, with the reason, tried again until the timeout', async () => {
  const attempts: CallStatus[] = [];
  const channel = new TemporalChannel({
    address: '127.0.0.1:1',
    timeouts: { readMs: 500, writeMs: 500 },
    onAttempt: (_method, status) => attempts.push(status),
  });
  try {
    // The last attempt may be cut by the timeout itself on a busy machine: the ones before say why.
    await assert.rejects(channel.service.getSystemInfo({}), (error: TemporalCallError) => {
      assert.ok(
        ([GrpcStatus.UNAVAILABLE, GrpcStatus.DEADLINE_EXCEEDED] as number[]).includes(error.code),
        `code ${error.code}`,
      );
      return true;
    });
    assert.ok(attempts.length > 1, 'tried again');
    assert.equal(attempts[0]?.code, GrpcStatus.UNAVAILABLE);
    assert.match(attempts[0]?.details ?? '', /ECONNREFUSED/);
  } finally {
    channel.close();
  }
});

test('a dial address is where the connection opens; the certificate is checked, and every call named, as of the address', async (t) => {
  const certs = await makeCertificates(t, 'temporal.twc.test');
  const authorities: string[] = [];
  const answerEmpty = (server: Http2Server) =>
    server.on('stream', (stream: ServerHttp2Stream, headers) => {
      authorities.push(String(headers[':authority']));
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': GrpcStatus.OK }));
      stream.end(Buffer.from([0, 0, 0, 0, 0]));
    });
  const listen = async (server: Http2Server) => {
    answerEmpty(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => server.close());
    return `127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const plain = await listen(createServer());
  const secure = await listen(createSecureServer({ cert: certs.server.cert, key: certs.server.key }));
  const call = async (address: string, dialAddress: string, tls?: { serverRootCACertificate: Buffer }) => {
    // The channel dials again until the timeout, then says why it could not: the timeout must
    // leave a loaded machine room for one whole TLS handshake.
    const timeouts = { readMs: 15_000, writeMs: 15_000 };
    const channel = new TemporalChannel({ address, dialAddress, timeouts, ...(tls ? { tls } : {}) });
    try {
      await channel.service.getSystemInfo({});
    } finally {
      channel.close();
    }
  };
  await call('temporal-frontend.temporal.svc:7233', plain);
  const ca = { serverRootCACertificate: Buffer.from(certs.ca) };
  await call('temporal.twc.test:7233', secure, ca);
  assert.deepEqual(authorities, ['temporal-frontend.temporal.svc:7233', 'temporal.twc.test:7233']);
  await assert.rejects(call('elsewhere.twc.test:7233', secure, ca), (error: TemporalCallError) => {
    assert.equal(error.code, GrpcStatus.UNAVAILABLE);
    assert.match(error.details, /elsewhere\.twc\.test/, "the certificate is not the address's");
    return true;
  });
});

test('a keepalive due on a connection already destroyed, whose close is not yet told, sends no ping and throws nothing', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { channel } = await channelTo(t, (stream) => {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': GrpcStatus.OK }));
    stream.end(Buffer.from([0, 0, 0, 0, 0]));
  });
  await channel.service.getSystemInfo({});
  // What the keepalive's own timeout, or the socket failing, does; the session's close event comes later.
  (channel as unknown as { session: { destroy(): void } }).session.destroy();
  assert.doesNotThrow(() => t.mock.timers.tick(30_000));
});
