// What `npm pack` ships: only what runs (the CLI bundle, the library, its declarations, the bin
// scripts, README, LICENSE), and the dependencies a global install pulls (README "Package choices").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../support/cli.js';

const root = repoRoot();

test('npm pack contains the bundle, library, types, bin scripts, README and LICENSE only', (t) => {
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' });
  if (r.error) return t.skip(`npm not runnable: ${r.error.message}`);
  assert.equal(r.status, 0, r.stderr);
  const files = (JSON.parse(r.stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
  for (const f of files) {
    assert.match(f, /^(package\.json|README\.md|LICENSE|bin\/(kdyn|kubectl-kdyn|kubectl_complete-kdyn|package\.json)|dist\/cli\/.+\.js|dist\/cli\/package\.json|dist\/lib\/index\.js|dist\/types\/.+\.d\.ts)$/, f);
  }
  for (const f of ['LICENSE', 'README.md', 'bin/kdyn', 'bin/kubectl-kdyn', 'bin/kubectl_complete-kdyn', 'dist/cli/bin.js', 'dist/lib/index.js', 'dist/types/index.d.ts']) {
    assert.ok(files.includes(f), `${f} is packed`);
  }
});

test('a global install pulls only the library runtime dependencies', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, Record<string, unknown>>;
  assert.deepEqual(Object.keys(pkg.dependencies!).sort(), ['env-paths', 'js-yaml']);
  assert.deepEqual(pkg.peerDependenciesMeta!['@kubernetes/client-node'], { optional: true });
  assert.deepEqual(pkg.bin, { kdyn: 'bin/kdyn', 'kubectl-kdyn': 'bin/kubectl-kdyn', 'kubectl_complete-kdyn': 'bin/kubectl_complete-kdyn' });
  const dot = (pkg.exports as Record<string, Record<string, string>>)['.']!;
  assert.equal(Object.keys(dot)[0], 'types', 'types first in exports');
  assert.match(readFileSync(join(root, 'LICENSE'), 'utf8'), /Apache License\s+Version 2\.0/);
});
