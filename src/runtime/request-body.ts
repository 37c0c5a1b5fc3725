// A request's body read whole, up to a limit: the endpoints every Pod can reach (the webhook's
// port) must not hold whatever a caller sends. A body past the limit is refused as soon as it is
// known to be (its Content-Length, or the bytes that came), and nothing more of it is kept.
import type { IncomingMessage } from 'node:http';

export class BodyTooLargeError extends Error {
  readonly limitBytes: number;
  constructor(limitBytes: number) {
    super(`the request body is larger than ${limitBytes} bytes`);
    this.name = 'BodyTooLargeError';
    this.limitBytes = limitBytes;
  }
}

export function readBody(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const refuse = () => {
      request.removeAllListeners('data');
      // The rest is read and dropped, so that the refusal reaches a caller still sending.
      request.resume();
      reject(new BodyTooLargeError(limitBytes));
    };
    if (Number(request.headers['content-length'] ?? 0) > limitBytes) return refuse();
    const chunks: Buffer[] = [];
    let length = 0;
    request.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > limitBytes) return refuse();
      chunks.push(chunk);
    });
    request.once('end', () => resolve(Buffer.concat(chunks)));
    request.once('error', reject);
  });
}
