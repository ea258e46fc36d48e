// Runs every build/test/**/*.test.js with node's built-in test runner, and fails if the tests left
// anything in their temp dir.
// Usage: node scripts/run-tests.mjs [substring-filter...]
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const filters = process.argv.slice(2);
const files = [];
(function walk(dir) {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.js') && (filters.length === 0 || filters.some((f) => p.includes(f)))) files.push(p);
  }
})(join(root, 'build/test'));
if (files.length === 0) {
  console.error('run-tests: no test files found under build/test (did the build run?)');
  process.exit(1);
}
// The tests get a TMPDIR of their own (world-writable and sticky like /tmp, for the tests that run
// kdyn as another user): whatever is left in it afterwards is a temp dir some test or harness did
// not remove, which fails the run.
const testTmp = mkdtempSync(join(tmpdir(), 'kdyn-test-run-'));
chmodSync(testTmp, 0o1777);
const r = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], { stdio: 'inherit', cwd: root, env: { ...process.env, TMPDIR: testTmp } });
const left = readdirSync(testTmp);
rmSync(testTmp, { recursive: true, force: true });
if (left.length > 0) {
  console.error(`run-tests: the tests left ${left.length} entries in their temp dir (each test removes what it creates): ${left.sort().join(', ')}`);
  process.exit(r.status || 1);
}
process.exit(r.status ?? 1);
