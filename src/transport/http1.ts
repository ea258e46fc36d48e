/**
 * HTTP/1.1's message syntax as kdyn reads and writes it (RFC 9112), with node:http's error codes
 * (HPE_* for malformed responses) so ./errors.ts words them the same way: a response head read from
 * the bytes as they come, the body's framing (Content-Length, chunked coding or the end of the
 * connection) and the request serialized in one piece. ./wire.ts runs one exchange on a socket with them.
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface WireRequest {
  method: string;
  /** Origin form (`/api/v1/pods?limit=500`) or, to an http proxy, absolute form. */
  target: string;
  /** name -> value(s); names as given, values checked for CR/LF/NUL. */
  headers: Record<string, string | number | string[] | undefined>;
  body?: string | Uint8Array;
}

/** Largest response head accepted (node:http's default is 16 KiB; Go's 1 MiB; API servers send little). */
const MAX_HEAD = 64 * 1024;
/** Interim (1xx) responses accepted before the final one: Go's net/http transport allows 5. */
export const MAX_INTERIM_RESPONSES = 5;
const HTTP_PREFIX = Buffer.from('HTTP/');

/** A response head as it arrived: the status, the headers as node:http joins them, and whether the connection may be reused. */
export interface Head {
  status: number;
  headers: IncomingHttpHeaders;
  keepAlive: boolean;
}

/**
 * Reads a response head from the bytes as they come, skipping interim (1xx) heads (a bounded number,
 * as Go's transport: a server sending them forever would otherwise be read forever).
 */
export class HeadReader {
  private head: Buffer = Buffer.alloc(0);
  private interim = 0;

  /** Feeds bytes; returns the final head and the bytes after it once it is complete, else undefined. Throws on bytes that are not HTTP. */
  push(chunk: Buffer): { head: Head; rest: Buffer } | undefined {
    for (let data = chunk; ; ) {
      const head = (this.head = this.head.length ? Buffer.concat([this.head, data]) : data);
      // Not HTTP at all (an SSH banner, a TLS alert on a plain port): fail at once, as llhttp does.
      if (head.compare(HTTP_PREFIX, 0, Math.min(head.length, 5), 0, Math.min(head.length, 5)) !== 0) {
        throw parseError('HPE_INVALID_CONSTANT', 'Expected HTTP/');
      }
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > MAX_HEAD) throw parseError('HPE_HEADER_OVERFLOW', 'Header overflow');
        return undefined;
      }
      const parsed = parseHead(head.subarray(0, end).toString('latin1'));
      const rest = head.subarray(end + 4);
      if (parsed.status >= 200) return { head: parsed, rest };
      // 100 Continue and other interim responses: skip, read the next head.
      if (++this.interim > MAX_INTERIM_RESPONSES) throw parseError('ERR_TOO_MANY_1XX', 'too many 1xx informational responses');
      this.head = Buffer.alloc(0);
      if (!rest.length) return undefined;
      data = rest;
    }
  }
}

/**
 * Hands the body bytes of `chunk` to `deliver` as `framing` says; returns the bytes past the framed
 * end once the body is complete, else undefined (a body framed by the connection's end never is).
 */
export function bodyBytes(framing: Framing, chunk: Buffer, deliver: (data: Buffer) => void): Buffer | undefined {
  if (framing.kind === 'length') {
    const take = Math.min(framing.remaining, chunk.length);
    if (take > 0) deliver(chunk.subarray(0, take));
    framing.remaining -= take;
    return framing.remaining === 0 ? chunk.subarray(take) : undefined;
  }
  if (framing.kind === 'chunked') return framing.decoder.push(chunk, deliver);
  if (framing.kind === 'close') deliver(chunk);
  return undefined;
}

export type Framing = { kind: 'none' } | { kind: 'close' } | { kind: 'length'; remaining: number } | { kind: 'chunked'; decoder: ChunkedDecoder };

export function framingOf(method: string, status: number, headers: IncomingHttpHeaders): Framing {
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
export class ChunkedDecoder {
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

export function serialize(req: WireRequest): Buffer {
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

export function parseError(code: string, message: string): Error {
  return Object.assign(new Error(`Parse Error: ${message}`), { code });
}

function invalid(code: string, message: string): Error {
  return Object.assign(new TypeError(message), { code });
}
