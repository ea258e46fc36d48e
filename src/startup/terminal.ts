/**
 * The process's terminal as a Screen (src/core/screen.ts) for the live view: output through the
 * CLI's stdout writer, the size and its changes from the tty (SIGWINCH), keys from stdin in raw
 * mode (when stdin is a terminal too; else no keys, and Ctrl-C stays a SIGINT). If the process
 * exits without `close()` (an uncaught error), an 'exit' hook still writes `restore` (the live view's:
 * leave the alternate screen, show the cursor) and leaves raw mode, so the shell is never left unusable.
 */
import { writeSync } from 'node:fs';
import { isatty, type ReadStream, type WriteStream } from 'node:tty';
import type { Output } from '../core/io.js';
import type { Screen } from '../core/screen.js';

/** `restore`: what to write if the process exits with the screen still open (the view's way back). */
export function openTerminal(out: Output, restore: string): Screen {
  const tty = process.stdout as WriteStream;
  const stdin = isatty(0) ? (process.stdin as ReadStream) : undefined;
  const cleanups: Array<() => void> = [];
  let closed = false;
  if (stdin) {
    stdin.setRawMode(true);
    stdin.setEncoding('utf8');
    stdin.resume();
  }
  const onExit = () => {
    if (closed) return;
    try {
      writeSync(1, restore);
    } catch {
      // the terminal is gone
    }
    stdin?.setRawMode(false);
  };
  process.on('exit', onExit);
  return {
    write: (text) => void out.write(text),
    get columns() {
      return tty.columns || 80;
    },
    get rows() {
      return tty.rows || 24;
    },
    onResize(listener) {
      tty.on('resize', listener);
      const off = () => void tty.off('resize', listener);
      cleanups.push(off);
      return off;
    },
    onKey(listener) {
      if (!stdin) return () => undefined;
      stdin.on('data', listener);
      const off = () => void stdin.off('data', listener);
      cleanups.push(off);
      return off;
    },
    close() {
      if (closed) return;
      closed = true;
      for (const c of cleanups.splice(0)) c();
      process.off('exit', onExit);
      if (stdin) {
        stdin.setRawMode(false);
        stdin.pause();
      }
    },
  };
}
