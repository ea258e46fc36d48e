/**
 * A streaming decoder for a watch body: JSON values one after another, as the API server writes
 * them (Go's json.Encoder: one `WatchEvent` per line). Chunks may split anywhere, multi-byte
 * characters included: lines are cut at the `\n` byte (never part of a UTF-8 sequence) and decoded
 * whole. The fast path is one `JSON.parse` per line; a value spread over several lines (a
 * pretty-printed Status) or several values on one line are found by a small scanner, as Go's
 * json.Decoder accepts them too.
 */
import { KdynError } from '../core/errors.js';

/** Longest JSON value accepted (a hostile server cannot make the client buffer without bound). */
export const MAX_VALUE_BYTES = 64 * 1024 * 1024;

export class WatchDecodeError extends KdynError {}

export class JsonStreamDecoder {
  private parts: Buffer[] = [];
  private partBytes = 0;
  /** Text of a value that spans lines (slow path), and the scanner's state over it. */
  private pending = '';
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly maxValueBytes = MAX_VALUE_BYTES) {}

  /** Feeds one chunk; returns the values it completed, in order. */
  push(chunk: Buffer): unknown[] {
    const out: unknown[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl < 0) break;
      let line: string;
      if (this.partBytes > 0) {
        this.parts.push(chunk.subarray(start, nl));
        line = Buffer.concat(this.parts).toString('utf8');
        this.parts = [];
        this.partBytes = 0;
      } else line = chunk.toString('utf8', start, nl);
      this.line(line, out);
      start = nl + 1;
    }
    if (start < chunk.length) {
      this.parts.push(chunk.subarray(start));
      this.partBytes += chunk.length - start;
      if (this.partBytes + this.pending.length > this.maxValueBytes) {
        throw new WatchDecodeError(`watch stream: an event longer than ${this.maxValueBytes} bytes`);
      }
    }
    return out;
  }

  /** The body ended: returns a last value without a newline; throws on a value cut short. */
  end(): unknown[] {
    const out: unknown[] = [];
    if (this.partBytes > 0) {
      const rest = Buffer.concat(this.parts).toString('utf8');
      this.parts = [];
      this.partBytes = 0;
      this.line(rest, out);
    }
    if (this.pending.trim() !== '') throw new WatchDecodeError('watch stream: the body ended inside a JSON value');
    return out;
  }

  private line(line: string, out: unknown[]): void {
    if (this.pending === '') {
      if (isBlank(line)) return;
      try {
        out.push(JSON.parse(line));
        return;
      } catch {
        // a value across lines, several values on the line, or garbage: the scanner tells which
      }
    }
    this.scan(line + '\n', out);
  }

  /** The slow path: tracks depth and strings to find where each value ends. */
  private scan(text: string, out: unknown[]): void {
    let from = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 92 /* \ */) this.escaped = true;
        else if (c === 34 /* " */) this.inString = false;
        continue;
      }
      if (c === 34) this.inString = true;
      else if (c === 123 /* { */ || c === 91 /* [ */) this.depth++;
      else if (c === 125 /* } */ || c === 93 /* ] */) {
        this.depth--;
        if (this.depth < 0) throw this.invalid(text.slice(from, i + 1));
        if (this.depth === 0) {
          const value = this.pending + text.slice(from, i + 1);
          this.pending = '';
          from = i + 1;
          try {
            out.push(JSON.parse(value));
          } catch {
            throw this.invalid(value);
          }
        }
      } else if (this.depth === 0 && c !== 32 && c !== 9 && c !== 10 && c !== 13) {
        // Only objects (and arrays) are values of a watch stream.
        throw this.invalid(text.slice(i));
      }
    }
    const rest = text.slice(from);
    if (this.depth > 0) {
      this.pending += rest;
      if (this.pending.length > this.maxValueBytes) throw new WatchDecodeError(`watch stream: an event longer than ${this.maxValueBytes} bytes`);
    }
  }

  private invalid(text: string): WatchDecodeError {
    this.pending = '';
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    const t = text.trim();
    return new WatchDecodeError(`watch stream: invalid JSON: ${JSON.stringify(t.length > 80 ? `${t.slice(0, 80)}...` : t)}`);
  }
}

function isBlank(s: string): boolean {
  return /^\s*$/.test(s);
}
