/**
 * The CLI's last line of defence: no command may end with exit 0 while its work is unfinished.
 * Node exits with 0 when its event loop runs out of work, also while a promise is still pending
 * (an operation whose callback can never come: a stream that failed before its reader listened).
 * `exitWhenSettled` exits with the command's code once its promise settles, and turns the event
 * loop running dry before that ('beforeExit') into a one-line error and exit 1. A rejected promise
 * (an error that escaped the command's own boundary) is reported by `onError`, which returns the code.
 * What it relies on: Node's documented 'beforeExit' event (emitted when the loop is empty, not on
 * process.exit() or a signal). If Node stopped emitting it, an unfinished command would exit 0 again:
 * test/e2e/robustness.test.ts ("no command ends with exit 0 while its work is unfinished") fails.
 */
import type { IO } from '../core/io.js';

export const UNFINISHED_MESSAGE = 'error: internal error: kdyn stopped before its work was finished (an operation it waited for can never complete)\n';

export function exitWhenSettled(
  work: Promise<number>,
  io: Pick<IO, 'stderr'>,
  onError: (e: unknown) => number,
  proc: Pick<NodeJS.Process, 'once' | 'exit'> = process,
): void {
  let settled = false;
  proc.once('beforeExit', () => {
    if (settled) return;
    io.stderr.write(UNFINISHED_MESSAGE);
    proc.exit(1);
  });
  work.then(
    (code) => {
      settled = true;
      proc.exit(code);
    },
    (e: unknown) => {
      settled = true;
      proc.exit(onError(e));
    },
  );
}
