/** The CLI's process entry (bundled to dist/cli/bin.js, imported by bin/kdyn). */
import type { IO } from '../core/io.js';
import { main, reportError } from './main.js';

const io: IO = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
};
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  // `kdyn get ... | head`: the reader went away; that is not kdyn's failure.
  if (err.code === 'EPIPE') process.exit(0);
});
main(process.argv.slice(2), io).then(
  (code) => process.exit(code),
  (e) => process.exit(reportError(e, 9, io, '')),
);
