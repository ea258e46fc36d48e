/**
 * `npm run demo` (scripts/demo.ts) does what the README says: it runs each kdyn command against the
 * local API server, every one of them succeeding. Its steps (scripts/demo-steps.ts) cover every
 * command of the CLI (src/cli/spec.ts, hidden ones aside).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../support/cli.js';
import { COMMANDS } from '../../src/cli/spec.js';
import { STEPS } from '../../scripts/demo-steps.js';

const root = repoRoot();
const commands = COMMANDS.filter((c) => !c.hidden).map((c) => c.name);

test('the demo has a step for every command', () => {
  const run = new Set(STEPS.map((s) => s.args[0]));
  assert.deepEqual(commands.filter((c) => !run.has(c)), [], 'commands the demo does not run');
  assert.match(readFileSync(join(root, 'README.md'), 'utf8'), /npm run demo +# builds, starts the local API server, runs each kdyn command against it/);
});

test('the demo runs, each step succeeding', () => {
  const r = spawnSync(process.execPath, [join(root, 'build/scripts/demo.js')], { cwd: root, encoding: 'utf8', timeout: 300_000, env: { PATH: process.env.PATH, TMPDIR: process.env.TMPDIR } });
  assert.equal(r.status, 0, `${r.stdout.slice(-2000)}${r.stderr}`);
  assert.match(r.stdout, new RegExp(`\\n# demo: ${STEPS.length} commands run, 0 failed\\n$`));
  const headings = [...r.stdout.matchAll(/^\$ kdyn (\S+)/gm)].map((m) => m[1]);
  for (const c of commands) assert.ok(headings.includes(c), `kdyn ${c} ran`);
});
