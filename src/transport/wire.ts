/**
 * One HTTP/1.1 exchange on an open socket: the request written in one piece, the response parsed
 * (status line, headers, then a body framed by Content-Length, chunked coding or the end of the
 * connection) into a `WireResponse`, a Readable of the body with backpressure on the socket.
 *
 * kdyn uses this instead of node:http: the API server speaks plain HTTP/1.1, and node:http and
 * node:https cost ~1 ms to load plus ~2-3 ms for the first ClientRequest on every run (kdyn is
 * started thousands of times in CI loops). Errors carry the codes node:http would use (ECONNRESET
 * "socket hang up", HPE_* for malformed responses) so ./errors.ts words them the same way.
 */
import { Readable } from 'node:stream';
import type { Socket } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';

export interface WireRequest {
  method: string;
  /** Origin form (`/api/v1/pods?limit=500`) or, to an http proxy, absolute form. */
  target: string;
  /** name -> value(s); names as given, values checked for CR/LF/NUL. */
  headers: Record<string, string | number | string[] | undefined>;
  body?: string | Uint8Array;
}

export interface WireResponse extends Readable {
  readonly statusCode: number;
  /** Lower-cased names; repeated headers joined with ", " (Set-Cookie kept as an array), as node:http. */
  readonly headers: IncomingHttpHeaders;
  /** True once the whole body arrived as framed. */
  readonly complete: boolean;
}

/** Largest response head accepted (node:http's default is 16 KiB; Go's 1 MiB; API servers send little). */
const MAX_HEAD = 64 * 1024;
/** Interim (1xx) responses accepted before the final one: Go's net/http transport allows 5. */
export const MAX_INTERIM_RESPONSES = 5;
const HTTP_PREFIX = Buffer.from('HTTP/');

/**
 * Writes the request and resolves with the response once its head arrived. `onDone(reusable)` is
 * called exactly once: when the body is complete (reusable = the socket may carry another request)
 * or the exchange failed (false). The caller owns the socket again after onDone(true).
 */
export function exchange(socket: Socket, req: WireRequest, onDone: (reusable: boolean) => void): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    let head: Buffer | undefined = Buffer.alloc(0);
    let res: Response | undefined;
    let framing: Framing | undefined;
    let finished = false;
    let keepAlive = true;
    let interim = 0;

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

    const onData = (chunk: Buffer) => {
      try {
        if (!res) {
          head = head!.length ? Buffer.concat([head!, chunk]) : chunk;
          // Not HTTP at all (an SSH banner, a TLS alert on a plain port): fail at once, as llhttp does.
          if (head.compare(HTTP_PREFIX, 0, Math.min(head.length, 5), 0, Math.min(head.length, 5)) !== 0) {
            throw parseError('HPE_INVALID_CONSTANT', 'Expected HTTP/');
          }
          const end = head.indexOf('\r\n\r\n');
          if (end < 0) {
            if (head.length > MAX_HEAD) throw parseError('HPE_HEADER_OVERFLOW', 'Header overflow');
            return;
          }
          const parsed = parseHead(head.subarray(0, end).toString('latin1'));
          const rest = head.subarray(end + 4);
          if (parsed.status < 200) {
            // 100 Continue and other interim responses: skip, read the next head (a bounded number,
            // as Go's transport: a server sending them forever would otherwise be read forever).
            if (++interim > MAX_INTERIM_RESPONSES) throw parseError('ERR_TOO_MANY_1XX', 'too many 1xx informational responses');
            head = Buffer.alloc(0);
            if (rest.length) onData(rest);
            return;
          }
          head = undefined;
          keepAlive = parsed.keepAlive;
          framing = framingOf(req.method, parsed.status, parsed.headers);
          res = new Response(parsed.status, parsed.headers, socket, () => {
            finish(false);
            socket.destroy();
          });
          resolve(res);
          if (framing.kind === 'none') return complete(rest);
          if (rest.length) body(rest);
          return;
        }
        body(chunk);
      } catch (e) {
        fail(e as Error);
      }
    };

    const body = (chunk: Buffer) => {
      const f = framing!;
      if (f.kind === 'close') {
        res!.deliver(chunk);
        return;
      }
      if (f.kind === 'length') {
        const take = Math.min(f.remaining, chunk.length);
        if (take > 0) res!.deliver(chunk.subarray(0, take));
        f.remaining -= take;
        if (f.remaining === 0) complete(chunk.subarray(take));
        return;
      }
      if (f.kind === 'chunked') {
        const rest = f.decoder.push(chunk, (data) => res!.deliver(data));
        if (rest) complete(rest);
      }
    };

    const complete = (leftover: Buffer) => {
      // Bytes past the framed end mean the connection's state is unknown: never reuse it.
      const reusable = keepAlive && leftover.length === 0;
      res!.finishBody();
      finish(reusable);
      if (!reusable) socket.destroy();
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

type Framing = { kind: 'none' } | { kind: 'close' } | { kind: 'length'; remaining: number } | { kind: 'chunked'; decoder: ChunkedDecoder };

function framingOf(method: string, status: number, headers: IncomingHttpHeaders): Framing {
  if (method === 'HEAD' || status === 204 || status === 304) return { kind: 'none' };
  const te = headers['transfer-encoding'];
  if (te !== undefined) {
    if (/(^|,)\s*chunked\s*$/i.test(String(te))) return { kind: 'chunked', decoder: new ChunkedDecoder() };
    return { kind: 'close' };
  }
  const cl = headers['content-length'];
  if (cl !== undefined) {
    if (!/^\d{1,15}$/.test(cl)) throw parseError('HPE_INVALID_CONTENT_LENGTH', 'Invalid character in Content-Length');
    const n = Number(cl);
    return n === 0 ? { kind: 'none' } : { kind: 'length', remaining: n };
  }
  return { kind: 'close' };
}

interface Head {
  status: number;
  headers: IncomingHttpHeaders;
  keepAlive: boolean;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function parseHead(text: string): Head {
  const lines = text.split('\r\n');
  const m = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/.exec(lines[0]!);
  if (!m) throw parseError('HPE_INVALID_CONSTANT', 'Expected HTTP/');
  const headers: Record<string, string | string[]> = {};
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon) : '';
    if (!TOKEN.test(name)) throw parseError('HPE_INVALID_HEADER_TOKEN', 'Invalid header token');
    const key = name.toLowerCase();
    const value = line.slice(colon + 1).trim();
    const prev = headers[key];
    if (key === 'set-cookie') (headers[key] = (prev as string[] | undefined) ?? []).push(value);
    else if (prev === undefined) headers[key] = value;
    else if (key === 'content-length') {
      if (prev !== value) throw parseError('HPE_UNEXPECTED_CONTENT_LENGTH', 'Duplicate Content-Length');
    } else headers[key] = `${prev as string}, ${value}`;
  }
  const connection = String(headers.connection ?? '').toLowerCase();
  const keepAlive = m[1] === '1' ? !/(^|,)\s*close\s*(,|$)/.test(connection) : /(^|,)\s*keep-alive\s*(,|$)/.test(connection);
  return { status: Number(m[2]), headers: headers as IncomingHttpHeaders, keepAlive };
}

/** Chunked transfer coding (RFC 9112 section 7.1); trailers are read and dropped. */
class ChunkedDecoder {
  private state: 'size' | 'data' | 'data-crlf' | 'trailer' = 'size';
  private remaining = 0;
  private line: Buffer = Buffer.alloc(0);

  /** Feeds bytes; returns the bytes after the final chunk once the body is complete, else undefined. */
  push(chunk: Buffer, onData: (b: Buffer) => void): Buffer | undefined {
    let i = 0;
    while (i < chunk.length) {
      if (this.state === 'data') {
        const take = Math.min(this.remaining, chunk.length - i);
        onData(chunk.subarray(i, i + take));
        i += take;
        this.remaining -= take;
        if (this.remaining === 0) this.state = 'data-crlf';
        continue;
      }
      const nl = chunk.indexOf(10, i);
      const piece = chunk.subarray(i, nl < 0 ? chunk.length : nl + 1);
      this.line = this.line.length ? Buffer.concat([this.line, piece]) : piece;
      i += piece.length;
      if (nl < 0) {
        if (this.line.length > 4096) throw parseError('HPE_INVALID_CHUNK_SIZE', 'Chunk size line too long');
        continue;
      }
      if (this.line.length < 2 || this.line[this.line.length - 2] !== 13) throw parseError('HPE_LF_EXPECTED', 'Expected CRLF');
      const text = this.line.subarray(0, this.line.length - 2).toString('latin1');
      this.line = Buffer.alloc(0);
      if (this.state === 'data-crlf') {
        if (text !== '') throw parseError('HPE_STRICT', 'Expected CRLF after chunk');
        this.state = 'size';
      } else if (this.state === 'size') {
        const size = /^([0-9a-fA-F]{1,12})[ \t]*(;.*)?$/.exec(text);
        if (!size) throw parseError('HPE_INVALID_CHUNK_SIZE', 'Invalid character in chunk size');
        this.remaining = parseInt(size[1]!, 16);
        this.state = this.remaining === 0 ? 'trailer' : 'data';
      } else if (text === '') {
        return chunk.subarray(i);
      }
    }
    return undefined;
  }
}

function serialize(req: WireRequest): Buffer {
  let head = `${req.method} ${req.target} HTTP/1.1\r\n`;
  for (const [name, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    if (!TOKEN.test(name)) throw invalid('ERR_INVALID_HTTP_TOKEN', `Header name must be a valid HTTP token ["${name}"]`);
    for (const value of Array.isArray(v) ? v : [String(v)]) {
      // The value is never echoed: it may be a credential.
      if (/[^\t\x20-\x7e\x80-\xff]/.test(value)) throw invalid('ERR_INVALID_CHAR', `Invalid character in header content ["${name}"]`);
      head += `${name}: ${value}\r\n`;
    }
  }
  head += '\r\n';
  if (req.body === undefined) return Buffer.from(head, 'latin1');
  const body = typeof req.body === 'string' ? Buffer.from(req.body) : req.body;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

function parseError(code: string, message: string): Error {
  return Object.assign(new Error(`Parse Error: ${message}`), { code });
}

function invalid(code: string, message: string): Error {
  return Object.assign(new TypeError(message), { code });
}

function hangUp(): Error {
  return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
}

/** A body that ended before its framing said it would (also used by ./http.ts). */
export function truncated(): Error {
  return Object.assign(new Error('unexpected EOF'), { code: 'ERR_TRUNCATED_RESPONSE' });
}
