/**
 * One HTTP/1.1 exchange on an open socket: the request written in one piece, the response parsed
 * (status line, headers, then a body framed by Content-Length, chunked coding or the end of the
 * connection; the syntax is ./http1.ts) into a `WireResponse`, a Readable of the body with
 * backpressure on the socket.
 *
 * kdyn uses this instead of node:http: the API server speaks plain HTTP/1.1, and node:http and
 * node:https cost ~1 ms to load plus ~2-3 ms for the first ClientRequest on every run (kdyn is
 * started thousands of times in CI loops). Errors carry the codes node:http would use (ECONNRESET
 * "socket hang up", HPE_* for malformed responses) so ./errors.ts words them the same way.
 */
import { Readable } from 'node:stream';
import type { Socket } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';

import { bodyBytes, framingOf, HeadReader, serialize, type Framing, type WireRequest } from './http1.js';

export type { WireRequest } from './http1.js';

export interface WireResponse extends Readable {
  readonly statusCode: number;
  /** Lower-cased names; repeated headers joined with ", " (Set-Cookie kept as an array), as node:http. */
  readonly headers: IncomingHttpHeaders;
  /** True once the whole body arrived as framed. */
  readonly complete: boolean;
}

/**
 * Writes the request and resolves with the response once its head arrived. `onDone(reusable)` is
 * called exactly once: when the body is complete (reusable = the socket may carry another request)
 * or the exchange failed (false). The caller owns the socket again after onDone(true).
 */
export function exchange(socket: Socket, req: WireRequest, onDone: (reusable: boolean) => void): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    const heads = new HeadReader();
    let res: Response | undefined;
    let framing: Framing | undefined;
    let finished = false;
    let keepAlive = true;

    const finish = (reusable: boolean) => {
      if (finished) return;
      finished = true;
      socket.removeListener('data', onData);
      socket.removeListener('end', onEnd);
      socket.removeListener('close', onClose);
      socket.removeListener('error', onError);
      onDone(reusable);
    };
    const fail = (e: Error) => {
      if (finished) return;
      finish(false);
      socket.destroy();
      if (res) res.destroy(e);
      else reject(e);
    };
    const complete = (leftover: Buffer) => {
      // Bytes past the framed end mean the connection's state is unknown: never reuse it.
      const reusable = keepAlive && leftover.length === 0;
      res!.finishBody();
      finish(reusable);
      if (!reusable) socket.destroy();
    };
    const body = (chunk: Buffer) => {
      const leftover = bodyBytes(framing!, chunk, (data) => res!.deliver(data));
      if (leftover) complete(leftover);
    };

    const onData = (chunk: Buffer) => {
      try {
        if (res) return body(chunk);
        const got = heads.push(chunk);
        if (!got) return;
        keepAlive = got.head.keepAlive;
        framing = framingOf(req.method, got.head.status, got.head.headers);
        res = new Response(got.head.status, got.head.headers, socket, () => {
          finish(false);
          socket.destroy();
        });
        resolve(res);
        if (framing.kind === 'none') return complete(got.rest);
        if (got.rest.length) body(got.rest);
      } catch (e) {
        fail(e as Error);
      }
    };
    const onEnd = () => {
      if (res && framing?.kind === 'close') {
        res.finishBody();
        finish(false);
        socket.destroy();
        return;
      }
      fail(res ? truncated() : hangUp());
    };
    const onClose = () => fail(res ? truncated() : hangUp());
    const onError = (e: Error) => fail(e);

    socket.on('data', onData);
    socket.resume();
    socket.on('end', onEnd);
    socket.on('close', onClose);
    socket.on('error', onError);
    try {
      socket.write(serialize(req));
    } catch (e) {
      fail(e as Error);
    }
  });
}

class Response extends Readable implements WireResponse {
  complete = false;
  constructor(
    readonly statusCode: number,
    readonly headers: IncomingHttpHeaders,
    private readonly socket: Socket,
    private readonly abandon: () => void,
  ) {
    super();
    // An error may end the body before its reader attached: it is kept (stream.errored) for the
    // reader, never thrown as an unhandled 'error' event.
    this.on('error', () => undefined);
  }
  deliver(data: Buffer): void {
    if (!this.push(data)) this.socket.pause();
  }
  override _read(): void {
    if (!this.complete && this.socket.isPaused()) this.socket.resume();
  }
  finishBody(): void {
    this.complete = true;
    this.push(null);
  }
  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    // Abandoning the body mid-way (an early `break`, an abort) closes the connection.
    if (!this.complete) this.abandon();
    cb(err);
  }
}

function hangUp(): Error {
  return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
}

/** A body that ended before its framing said it would (also used by ./http.ts). */
export function truncated(): Error {
  return Object.assign(new Error('unexpected EOF'), { code: 'ERR_TRUNCATED_RESPONSE' });
}
