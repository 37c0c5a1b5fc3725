// A loopback TCP proxy that a test can cut and restore, or slow down: a real network failure or
// a slow network between a client and the real server, with nothing faked on either side.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { Transform } from 'node:stream';

export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;
  /** Every byte, either way, arrives this much later (0: at once). */
  delayMs = 0;
  private readonly target: { host: string; port: number };

  constructor(target: { host: string; port: number }) {
    this.target = target;
  }

  /** Listens (again) on the same port as before, or a free one the first time. */
  async listen(): Promise<void> {
    const server = createServer((client) => {
      const upstream = createConnection(this.target);
      const pair = [client, upstream];
      for (const socket of pair) {
        this.sockets.add(socket);
        // One side broken, the other goes too: a refused or reset upstream is not a hung client.
        // (A side that ends cleanly ends the other through the pipe, after what is still delayed.)
        socket.on('close', (hadError) => {
          this.sockets.delete(socket);
          if (hadError) for (const other of pair) other.destroy();
        });
        socket.on('error', () => socket.destroy());
      }
      client.pipe(this.delayed()).pipe(upstream).pipe(this.delayed()).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (typeof address === 'object' && address) this.port = address.port;
    this.server = server;
  }

  /** Drops every connection and refuses new ones until listen() is called again. */
  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  /**
   * Passes each chunk on `delayMs` after it came, in order, without holding back the next one: a
   * link with latency, not one with less bandwidth.
   */
  private delayed(): Transform {
    let pending = Promise.resolve();
    const stream: Transform = new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        const due = Date.now() + this.delayMs;
        pending = pending.then(async () => {
          const wait = due - Date.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          stream.push(chunk);
        });
        done();
      },
      flush: (done) => void pending.then(() => done()),
    });
    return stream;
  }
}
