/**
 * What a watch writes besides its events: the stderr notices (an outage and its end, a 410 relist,
 * a type no longer served). The watcher's reports are taken structurally (../watch/types.ts's
 * RetryInfo and ResumeInfo fit): printers import no library layer but core.
 */
import type { IO } from '../core/io.js';
import { StatusError, oneLine } from '../core/errors.js';

export type { ResumeInfo, RetryInfo } from './types.js';
import type { ResumeInfo, RetryInfo } from './types.js';

/** The server's words for a 410 (`too old resource version: 5 (12)`). */
export function expiredText(e: Error): string {
  return e instanceof StatusError ? (e.status.message ?? e.message) : e.message;
}

/**
 * What a watch says on stderr about failed attempts. While the server cannot be reached at all
 * (refused or reset connections; the watcher retries about every second), one line when that
 * begins and one when the watch is answered again, whatever the outage's length (`-v=1`: every
 * attempt too). A 401, 403 or 404 while the watch comes back (a restarting server's answer, retried
 * for `retryForMs`): one line when it begins, and the same line when the watch is answered again.
 * Other failures (429, 5xx, broken streams): a line per attempt from the second in a row (`-v=1`:
 * from the first). kubectl's `get -w` prints none of these: it exits at the first disconnection.
 */
export function outageNotices(label: string, io: IO, verbose: boolean): { onRetry: (r: RetryInfo) => void; onResume: (r: ResumeInfo) => void } {
  let unreachable = false;
  let transient = false;
  const retryLine = (r: RetryInfo) => io.stderr.write(`Warning: watch of ${label}: ${errorLine(r.error)}; retrying in ${(r.delayMs / 1000).toFixed(1)}s\n`);
  return {
    onRetry: (r) => {
      if (r.retryForMs !== undefined) {
        if (transient && !verbose) return;
        transient = true;
        io.stderr.write(`Warning: watch of ${label}: ${errorLine(r.error)}; retrying for up to ${Math.round(r.retryForMs / 1000)}s, as a restarting server answers so for a moment (--retry-for)\n`);
      } else if (r.unreachable && !unreachable) {
        unreachable = true;
        io.stderr.write(`Warning: watch of ${label}: ${errorLine(r.error)}; retrying every second until the server is back\n`);
      } else if (verbose || (!r.unreachable && r.failures > 1)) retryLine(r);
    },
    onResume: (r) => {
      if (!unreachable && !transient) return;
      unreachable = transient = false;
      io.stderr.write(`watch of ${label}: the server is back after ${(r.failingMs / 1000).toFixed(1)}s; watching again\n`);
    },
  };
}

export function errorLine(e: unknown): string {
  return e instanceof Error ? e.message.split('\n')[0]! : String(e);
}

/**
 * A 410 before any list (a watch from --resource-version): the relist prints every object as
 * ADDED, which a script asking for the changes since RV could not tell from creations.
 */
export function relistNotice(type: string, resourceVersion: string | undefined, error: Error, requested: string | undefined): string {
  const which = resourceVersion === requested ? `--resource-version ${resourceVersion}` : `resourceVersion ${resourceVersion}`;
  return `Warning: watch of ${type}: ${which} has expired (${expiredText(error)}); relisting: what follows is every current object, printed as ADDED\n`;
}

/** A type that went away (its CRD deleted): its stream ends. */
export function goneNotice(type: string, e: StatusError): string {
  return `Warning: watch of ${type} ended: the resource type is no longer served (${oneLine(e.status.message ?? e.message)})\n`;
}
