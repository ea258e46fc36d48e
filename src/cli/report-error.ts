/**
 * How an error reaches the user: one line on stderr (kubectl's `Error from server (Reason): ...` and
 * connection texts as they are, `error: ...` otherwise), a stack trace only at -v=9, and the exit code
 * (2 for usage errors, 1 for the rest). Used by the error boundary (./main.ts) and by commands that
 * report errors after their output (get).
 */
import { ConnectionError, KdynError, StatusError, UsageError } from '../core/errors.js';
import type { IO } from '../core/io.js';

export function reportError(e: unknown, verbosity: number, io: IO, command: string, prog = 'kdyn'): number {
  if (e instanceof UsageError) {
    io.stderr.write(`error: ${e.message} (see '${prog} ${command} --help')\n`);
  } else if (e instanceof StatusError || e instanceof ConnectionError) {
    io.stderr.write(`${e.message}\n`);
  } else if (e instanceof KdynError) {
    io.stderr.write(`error: ${e.message}\n`);
  } else {
    const msg = e instanceof Error ? e.message : String(e);
    io.stderr.write(`error: ${msg.split('\n')[0]}\n`);
  }
  if (verbosity >= 9 && e instanceof Error && e.stack) io.stderr.write(`${e.stack}\n`);
  return e instanceof KdynError ? e.exitCode : 1;
}
