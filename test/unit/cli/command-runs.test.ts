// Each command of the table (src/cli/spec.ts) runs through a module loaded apart (src/cli/command-runs.ts):
// every name of the table has one, and the table (what the parser, the help and completion read) reaches
// no command module, so reading it stays cheap and no command's import leads back to it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { COMMANDS } from '../../../src/cli/spec.js';
import { loadCommand } from '../../../src/cli/command-runs.js';
import { repoRoot } from '../../support/cli.js';

test('every command of the table has a run module', async () => {
  for (const c of COMMANDS) {
    const mod = await loadCommand(c.name);
    assert.equal(typeof mod.run, 'function', `${c.name}: its module has no run()`);
  }
  assert.throws(() => loadCommand('nosuch'), /no run module for the command "nosuch"/);
});

test('get with -w, --watch-only or --output-watch-events runs the watch in get\'s mode; plain get only lists', async () => {
  const list = await loadCommand('get', {});
  const watching = await Promise.all([{ watch: true }, { 'watch-only': true }, { 'output-watch-events': true }].map((f) => loadCommand('get', f)));
  const watchModule = await import('../../../src/cli/commands/get-watch.js');
  for (const m of watching) assert.equal(m.run, watchModule.run);
  assert.notEqual(list.run, watchModule.run);
  assert.equal(list.run, (await import('../../../src/cli/commands/get.js')).run);
});

test('the command table imports no command module (statically or through import())', () => {
  const src = join(repoRoot(), 'src');
  const seen = new Set<string>();
  const walk = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(join(src, file), 'utf8');
    for (const m of code.matchAll(/\b(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      walk(relative(src, resolve(dirname(join(src, file)), m[1]!)).replace(/\.js$/, '.ts'));
    }
  };
  walk('cli/spec.ts');
  assert.ok(seen.has('cli/specs/get.ts'), 'the walk follows the table into its specs');
  assert.deepEqual([...seen].filter((f) => f.startsWith('cli/commands/') || f === 'cli/command-runs.ts'), []);
});
