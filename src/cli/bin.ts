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
  env: process.env,
  cwd: process.cwd(),
};
exitWhenSettled(main(process.argv.slice(2), io), io);
