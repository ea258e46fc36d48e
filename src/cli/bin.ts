/** The CLI's process entry (bundled to dist/cli/bin.js, required by bin/kdyn). */
import { createRequire } from 'node:module';
import type { IO } from '../core/io.js';
import { main } from './main.js';
import { exitWhenSettled } from './exit-guard.js';
import { fdOutput } from './stdio.js';

// `kdyn get ... | head`: the reader went away; that is not kdyn's failure.
const epipe = (): never => process.exit(0);
const isatty = (fd: number): boolean => (createRequire(import.meta.url)('node:tty') as typeof import('node:tty')).isatty(fd);
// process.stdout/stderr/stdin are built lazily by Node and cost milliseconds each (./stdio.ts):
// output goes straight to fds 1 and 2, and stdin is opened only when a command reads it (`-f -`).
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
  openScreen: async () => (await import('./terminal.js')).openTerminal(io.stdout),
  env: process.env,
  cwd: process.cwd(),
  onSignal(listener) {
    const onInt = () => listener('SIGINT');
    const onTerm = () => listener('SIGTERM');
    process.on('SIGINT', onInt).on('SIGTERM', onTerm);
    return () => void process.off('SIGINT', onInt).off('SIGTERM', onTerm);
  },
};
// SIGINT/SIGTERM end kdyn at the next turn of the event loop, never inside a synchronous write (a
// discovery cache staging directory or file half written, left behind by the default action): the
// signal is then re-raised with its default action, so the parent sees kdyn killed by it (`$?` 130
// or 143; a bash loop stops on Ctrl-C). Commands that handle signals themselves (apply, watch) add
// listeners of their own, and this one stands aside.
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  const deferred = (): void => {
    if (process.listenerCount(sig) > 1) return;
    process.off(sig, deferred);
    process.kill(process.pid, sig);
  };
  process.on(sig, deferred);
}
// kubectl runs a plugin by its file name (`kubectl kdyn ...` execs `kubectl-kdyn` from PATH), and
// Node keeps the name the script was started by in argv[1] (an npm bin symlink is not resolved):
// as a plugin, usage lines and messages say `kubectl kdyn`.
const prog = /(^|[\\/])kubectl-kdyn(\.[a-z]+)?$/i.test(process.argv[1] ?? '') ? 'kubectl kdyn' : 'kdyn';
exitWhenSettled(main(process.argv.slice(2), io, prog), io);
