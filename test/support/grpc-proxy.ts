// A TLS front for the plaintext Temporal dev server, the way a load balancer or an auth gateway
// sits before a real frontend: it terminates TLS (optionally requiring a client certificate of
// one CA), optionally requires `authorization: Bearer <key>` or has each call's bearer token
// checked, and forwards every gRPC call unchanged (headers, messages, trailers) to the real
// server. The key can change at runtime.
import {
  constants,
  connect,
  createSecureServer,
  type ClientHttp2Session,
  type Http2SecureServer,
  type Http2Session,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type ServerHttp2Stream,
} from 'node:http2';
import type { TestContext } from 'node:test';
import type { TLSSocket } from 'node:tls';
import { type KeyPair, makeCertificates, type TestCertificates } from './certificates.ts';
import { sharedEnvironment } from './environment.ts';

export interface GrpcProxyOptions {
  /** host:port of the plaintext server. */
  upstream: string;
  server: KeyPair;
  /** Require a client certificate signed by this CA. */
  clientCA?: string;
  /** Require this API key. */
  apiKey?: string;
  /** Checks each call's bearer token: resolves with why it is refused, or undefined to let it through. */
  verifyBearer?: (token: string | undefined) => Promise<string | undefined>;
}

const UNAUTHENTICATED = '16';
const UNAVAILABLE = '14';

export class GrpcProxy {
  /** The API key required from now on; undefined for none. */
  apiKey: string | undefined;
  port = 0;
  /** TLS connections accepted so far: a client that reconnects shows here. */
  connections = 0;
  /** The common names of the client certificates presented so far. */
  readonly clientNames = new Set<string>();
  private readonly options: GrpcProxyOptions;
  private readonly server: Http2SecureServer;
  private readonly sessions = new Set<Http2Session>();
  private upstream: ClientHttp2Session | undefined;

  constructor(options: GrpcProxyOptions) {
    this.options = options;
    this.apiKey = options.apiKey;
    this.server = createSecureServer({
      cert: options.server.cert,
      key: options.server.key,
      ...(options.clientCA ? { ca: options.clientCA, requestCert: true, rejectUnauthorized: true } : {}),
    });
    this.server.on('session', (session) => {
      this.connections++;
      const name = (session.socket as TLSSocket).getPeerCertificate().subject?.CN;
      if (name) this.clientNames.add(String(name));
      this.sessions.add(session);
      session.on('close', () => this.sessions.delete(session));
      session.on('error', () => session.destroy());
    });
    this.server.on('stream', (stream, headers) => this.forward(stream, headers));
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = this.server.address();
    if (typeof address === 'object' && address) this.port = address.port;
  }

  async close(): Promise<void> {
    for (const session of this.sessions) session.destroy();
    this.upstream?.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private forward(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
    stream.on('error', () => stream.destroy());
    const refuse = (message: string): void => {
      if (stream.destroyed) return;
      stream.respond(
        {
          ':status': 200,
          'content-type': 'application/grpc',
          'grpc-status': UNAUTHENTICATED,
          'grpc-message': encodeURIComponent(message),
        },
        { endStream: true },
      );
    };
    if (this.apiKey !== undefined && headers.authorization !== `Bearer ${this.apiKey}`) {
      refuse('the proxy refused the API key');
      return;
    }
    const { verifyBearer } = this.options;
    if (!verifyBearer) {
      this.pass(stream, headers);
      return;
    }
    const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
    verifyBearer(bearer).then(
      (refusal) => (refusal === undefined ? this.pass(stream, headers) : refuse(refusal)),
      (error: unknown) => refuse(`the proxy could not check the token: ${String(error)}`),
    );
  }

  private pass(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
    const request: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(headers))
      if (name !== ':authority' && name !== ':scheme') request[name] = value;
    const upstream = this.session().request(request);
    let trailers: OutgoingHttpHeaders = {};
    stream.pipe(upstream);
    upstream.on('response', (response) => {
      if (stream.destroyed) return;
      if (response['grpc-status'] !== undefined) {
        stream.respond(response, { endStream: true }); // trailers-only answer
        return;
      }
      stream.respond(response, { waitForTrailers: true });
      upstream.pipe(stream);
    });
    upstream.on('trailers', (received: IncomingHttpHeaders) => (trailers = received));
    stream.on('wantTrailers', () => stream.sendTrailers(trailers));
    upstream.on('error', (error: Error) => {
      if (stream.destroyed) return;
      if (stream.headersSent) stream.close(constants.NGHTTP2_INTERNAL_ERROR);
      else
        stream.respond(
          {
            ':status': 200,
            'content-type': 'application/grpc',
            'grpc-status': UNAVAILABLE,
            'grpc-message': encodeURIComponent(error.message),
          },
          { endStream: true },
        );
    });
    // The client gave up: so does the call upstream.
    stream.on('close', () => {
      if (!upstream.closed) upstream.close(constants.NGHTTP2_CANCEL);
    });
  }

  private session(): ClientHttp2Session {
    if (this.upstream && !this.upstream.closed && !this.upstream.destroyed) return this.upstream;
    const session = connect(`http://${this.options.upstream}`);
    session.on('error', () => session.destroy());
    this.upstream = session;
    return session;
  }
}

/**
 * A front to the shared dev server that requires a client certificate of a fresh CA, its server
 * certificate for `serverName`; closed when the test ends. Resolves with the front and the certificates.
 */
export async function mutualTlsFront(
  t: TestContext,
  serverName: string,
): Promise<{ proxy: GrpcProxy; certs: TestCertificates }> {
  const certs = await makeCertificates(t, serverName);
  const proxy = new GrpcProxy({
    upstream: sharedEnvironment().temporalAddress,
    server: certs.server,
    clientCA: certs.ca,
  });
  await proxy.listen();
  t.after(() => proxy.close());
  return { proxy, certs };
}
