// Runs every build/test/**/*.test.js with node's built-in test runner, and fails if the tests left
// anything in their temp dir.
// Usage: node scripts/run-tests.mjs [--suite unit|e2e|reliability|...] [--skip SUBSTRING]... [substring-filter...]
//   --suite NAME   only build/test/NAME
//   --skip S       leave out the files whose path contains S (`npm run test:unit` leaves out the
//                  kubectl differential tests, which `npm test` runs)
//   filters        only the files whose path contains one of them
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// The suite runs on the Node releases package.json supports (`engines`: ">=X.Y.Z"), or not at all:
// on an older Node the tests of what it lacks would fail for that reason alone.
const floor = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines?.node ?? '');
const current = process.versions.node.split('.').map(Number);
if (floor && floor.slice(1).map(Number).reduce((cmp, part, i) => cmp || current[i] - part, 0) < 0) {
  console.error(`run-tests: Node ${process.version} is older than package.json's engines (${floor[0]}): run the tests on Node 22 or 24 (CONTRIBUTING.md)`);
  process.exit(2);
}
const args = process.argv.slice(2);
/** Removes every `--name VALUE` from args; returns the values. */
function takeOption(name) {
  const values = [];
  for (let at = args.indexOf(name); at >= 0; at = args.indexOf(name)) {
    const [, value] = args.splice(at, 2);
    if (!value) {
      console.error(`run-tests: ${name} needs a value`);
      process.exit(2);
    }
    values.push(value);
  }
  return values;
}
const suite = takeOption('--suite').at(-1);
const skips = takeOption('--skip');
const filters = args;
const wanted = (p) => p.endsWith('.test.js') && !skips.some((s) => p.includes(s)) && (filters.length === 0 || filters.some((f) => p.includes(f)));
const files = [];
(function walk(dir) {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (wanted(p)) files.push(p);
  }
})(join(root, 'build/test', suite ?? ''));
if (files.length === 0) {
  console.error(`run-tests: no test files found under build/test${suite ? `/${suite}` : ''}${filters.length ? ` matching ${filters.join(', ')}` : ''} (did the build run?)`);
  process.exit(1);
}
// The tests get a TMPDIR of their own (world-writable and sticky like /tmp, for the tests that run
// kdyn as another user): whatever is left in it afterwards is a temp dir some test or harness did
// not remove, which fails the run.
const testTmp = mkdtempSync(join(tmpdir(), 'kdyn-test-run-'));
chmodSync(testTmp, 0o1777);
// TAP on stdout as before; then the failures again, at the end, where CI's tail shows them.
const reporters = ['--test-reporter=tap', '--test-reporter-destination=stdout', `--test-reporter=${join(root, 'scripts/failures-reporter.mjs')}`, '--test-reporter-destination=stdout'];
const r = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...reporters, ...files], { stdio: 'inherit', cwd: root, env: { ...process.env, TMPDIR: testTmp } });
// node-compile-cache is not a test's: npm 11's lib/cli.js calls module.enableCompileCache(), whose
// default directory is $TMPDIR/node-compile-cache, when a test runs npm (e2e package-contents).
const TOOLCHAIN_CACHES = new Set(['node-compile-cache']);
const left = readdirSync(testTmp).filter((name) => !TOOLCHAIN_CACHES.has(name));
rmSync(testTmp, { recursive: true, force: true });
if (left.length > 0) {
  console.error(`run-tests: the tests left ${left.length} entries in their temp dir (each test removes what it creates): ${left.sort().join(', ')}`);
  process.exit(r.status || 1);
}
process.exit(r.status ?? 1);
