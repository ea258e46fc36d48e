/**
 * What a watch writes besides its events: the stdout batching and the stderr notices (a 410 relist,
 * an outage and its end).
 */
import type { IO } from '../core/io.js';
import { StatusError } from '../core/errors.js';
import type { ResumeInfo, RetryInfo } from '../watch/types.js';

/** The server's words for a 410 (`too old resource version: 5 (12)`). */
export function expiredText(e: Error): string {
  return e instanceof StatusError ? (e.status.message ?? e.message) : e.message;
}

/**
 * What a watch says on stderr about failed attempts. While the server cannot be reached at all
 * (refused or reset connections; the watcher retries about every second), one line when that
 * begins and one when the watch is answered again, whatever the outage's length (`-v=1`: every
 * attempt too). Other failures (429, 5xx, broken streams): a line per attempt from the second in a
 * row (`-v=1`: from the first). kubectl's `get -w` prints none of these: it exits at the first
 * disconnection.
 */
export function outageNotices(label: string, io: IO, verbose: boolean): { onRetry: (r: RetryInfo) => void; onResume: (r: ResumeInfo) => void } {
  let unreachable = false;
  const retryLine = (r: RetryInfo) => io.stderr.write(`Warning: watch of ${label}: ${errorLine(r.error)}; retrying in ${(r.delayMs / 1000).toFixed(1)}s\n`);
  return {
    onRetry: (r) => {
      if (r.unreachable && !unreachable) {
        unreachable = true;
        io.stderr.write(`Warning: watch of ${label}: ${errorLine(r.error)}; retrying every second until the server is back\n`);
      } else if (verbose || (!r.unreachable && r.failures > 1)) retryLine(r);
    },
    onResume: (r) => {
      if (!unreachable) return;
      unreachable = false;
      io.stderr.write(`watch of ${label}: the server is back after ${(r.failingMs / 1000).toFixed(1)}s; watching again\n`);
    },
  };
}

export function errorLine(e: unknown): string {
  return e instanceof Error ? e.message.split('\n')[0]! : String(e);
}

/**
 * Output in batches: events that arrive together (one network chunk) are written with one write;
 * a write happens at the latest on the next turn of the event loop, or at 64 KiB.
 */
export class OutputBuffer {
  private pending = '';
  private scheduled = false;

  constructor(private readonly io: IO) {}

  write(text: string): void {
    if (!text) return;
    this.pending += text;
    if (this.pending.length >= 65536) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
  }

  flush(): void {
    if (!this.pending) return;
    const text = this.pending;
    this.pending = '';
    this.io.stdout.write(text);
  }
}
