// A webhook receiver on 127.0.0.1 (node:http) for the notification tests: it records each request
// and answers each with the next status it is given (the last one repeats).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>`. */
  base: string;
  received: Received[];
}

/** Closed when the test ends. A 3xx answer carries `location` when one is given. */
export async function notificationReceiver(
  t: TestContext,
  answers: number[] = [200],
  location?: string,
): Promise<Receiver> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body });
      const status = answers.length > 1 ? answers.shift()! : answers[0]!;
      response.writeHead(status, location && status >= 300 && status < 400 ? { location } : {}).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    // The sender keeps its connection alive: closed here, or close() waits for its timeout.
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, received };
}
