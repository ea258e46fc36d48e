/**
 * The CLI's process entry (bundled to dist/cli/bin.js, required by dist/cli/start.js after the code
 * cache is in place: see docs/design/startup.md): kdyn's main run as this process.
 */
import { runAsProcess } from '../startup/process.js';
import { main } from './main.js';
import { reportError } from './report-error.js';

// kubectl runs a plugin by its file name (`kubectl kdyn ...` execs `kubectl-kdyn` from PATH), and
// Node keeps the name the script was started by in argv[1] (an npm bin symlink is not resolved):
// as a plugin, usage lines and messages say `kubectl kdyn`.
const prog = /(^|[\\/])kubectl-kdyn(\.[a-z]+)?$/i.test(process.argv[1] ?? '') ? 'kubectl kdyn' : 'kdyn';
// An error that escaped main's own boundary is a bug: its stack follows the message (verbosity 9).
runAsProcess((argv, io) => main(argv, io, prog), (e, io) => reportError(e, 9, io, ''));
