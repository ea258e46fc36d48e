/**
 * The process around one CLI run: IO straight on file descriptors 1 and 2 (./stdio.ts), stdin and
 * node:tty only when a command asks, SIGINT/SIGTERM deferred to the next turn of the event loop, and
 * the exit guard (./exit-guard.ts). src/cli/bin.ts calls `runAsProcess` with kdyn's main.
 */
import { createRequire } from 'node:module';
import type { IO } from '../core/io.js';
import { exitWhenSettled } from './exit-guard.js';
import { fdOutput } from './stdio.js';

/**
 * Runs `run` with this process's argv (after the script) and IO, and exits with its code once it
 * settles; `onError` reports an error that escaped `run` and returns the exit code.
 */
export function runAsProcess(run: (argv: string[], io: IO) => Promise<number>, onError: (e: unknown, io: IO) => number): void {
  const io = processIO();
  deferTerminationSignals();
  exitWhenSettled(run(process.argv.slice(2), io), io, (e) => onError(e, io));
}

// `kdyn get ... | head`: the reader went away; that is not kdyn's failure.
const epipe = (): never => process.exit(0);
const isatty = (fd: number): boolean => (createRequire(import.meta.url)('node:tty') as typeof import('node:tty')).isatty(fd);

/**
 * process.stdout/stderr/stdin are built lazily by Node and cost milliseconds each (./stdio.ts):
 * output goes straight to fds 1 and 2, and stdin is opened only when a command reads it (`-f -`).
 */
export function processIO(): IO {
  const io: IO = {
    stdout: fdOutput(1, () => process.stdout, epipe),
    stderr: fdOutput(2, () => process.stderr, epipe),
    get stdin() {
      return process.stdin;
    },
    // node:tty costs ~3 ms to load (it pulls in net); only exec credential plugins ask.
    get stdinIsTTY() {
      return isatty(0);
    },
    get stdoutIsTTY() {
      return isatty(1);
    },
    // The live view (`kdyn watch` on a terminal) only.
    openScreen: async (restore) => (await import('./terminal.js')).openTerminal(io.stdout, restore),
    env: process.env,
    cwd: process.cwd(),
    exitsAfterRun: true,
    onSignal(listener) {
      const onInt = () => listener('SIGINT');
      const onTerm = () => listener('SIGTERM');
      process.on('SIGINT', onInt).on('SIGTERM', onTerm);
      return () => void process.off('SIGINT', onInt).off('SIGTERM', onTerm);
    },
  };
  return io;
}

/**
 * SIGINT/SIGTERM end kdyn at the next turn of the event loop, never inside a synchronous write (a
 * discovery cache staging directory or file half written, left behind by the default action): the
 * signal is then re-raised with its default action, so the parent sees kdyn killed by it (`$?` 130
 * or 143; a bash loop stops on Ctrl-C). Commands that handle signals themselves (apply, watch) add
 * listeners of their own, and this one stands aside.
 */
export function deferTerminationSignals(): void {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    const deferred = (): void => {
      if (process.listenerCount(sig) > 1) return;
      process.off(sig, deferred);
      process.kill(process.pid, sig);
    };
    process.on(sig, deferred);
  }
}
