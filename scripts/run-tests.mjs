// Runs every build/test/**/*.test.js with node's built-in test runner.
// Usage: node scripts/run-tests.mjs [substring-filter...]
import { readdirSync, statSync, existsSync } from 'node:fs';
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
const r = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], { stdio: 'inherit', cwd: root });
process.exit(r.status ?? 1);
