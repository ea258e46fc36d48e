/**
 * `kdyn diff --prune --applyset=...` against the local API server: the input labelled as the set's
 * members (so objects the set's apply wrote show no change), the set's members the input no longer
 * holds shown as deleted, exit 1; a set applied as it is: exit 0; usage errors for one flag alone.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';
import { runKdyn } from '../support/cli.js';
import { normalizeDiff } from '../support/diff-output.js';
import { configMap as cm, manifestFile } from './apply-helpers.js';

let env: ServerEnv;
before(async () => {
  env = await startServerEnv({ seed: 'demo' }, 'kdyn-diff-prune-');
});
after(() => env.stop());

const kdyn = (args: string[]) => runKdyn(args, { env: { PATH: process.env.PATH, HOME: env.dir, KUBECONFIG: env.kubeconfig }, cwd: env.dir });

test('the members the input no longer holds are shown deleted; the others unchanged; nothing is deleted', async () => {
  const both = manifestFile(env.dir, 'both.yaml', [cm('p-keep', { a: '1' }), cm('p-gone', { b: '2' })]);
  const applied = await kdyn(['apply', '-f', both, '-n', 'demo', '--prune', '--applyset=configmap/pset']);
  assert.equal(applied.code, 0, applied.err);
  const same = await kdyn(['diff', '-f', both, '-n', 'demo', '--prune', '--applyset=configmap/pset']);
  assert.deepEqual([same.code, same.out, same.err], [0, '', '']);
  const one = manifestFile(env.dir, 'one.yaml', [cm('p-keep', { a: '1' })]);
  const r = await kdyn(['diff', '-f', one, '-n', 'demo', '--prune', '--applyset=configmap/pset']);
  assert.equal(r.code, 1, r.err);
  const out = normalizeDiff(r.out);
  assert.match(out, /^diff -u -N \S+\/LIVE-N\/v1\.ConfigMap\.demo\.p-gone \S+\/MERGED-N\/v1\.ConfigMap\.demo\.p-gone\n--- .*\n\+\+\+ .*\n@@ -1,\d+ \+0,0 @@\n-apiVersion: v1\n-data:\n-  b: "2"\n/);
  assert.doesNotMatch(out, /p-keep|managedFields/);
  assert.ok(env.server.store.get('', 'configmaps', 'demo', 'p-gone'), 'nothing deleted');
  // Without --prune the set is not consulted: the kept object shows its part-of label going.
  const plain = await kdyn(['diff', '-f', one, '-n', 'demo']);
  assert.equal(plain.code, 1);
  assert.match(plain.out, /^-    applyset\.kubernetes\.io\/part-of: /m);
});

test('--prune without --applyset, and --applyset without --prune: usage errors (exit 2)', async () => {
  const p = manifestFile(env.dir, 'u.yaml', [cm('p-u')]);
  for (const [args, msg] of [[['--prune'], /--prune needs --applyset=/], [['--applyset=configmap/x'], /--applyset requires --prune/]] as const) {
    const r = await kdyn(['diff', '-f', p, '-n', 'demo', ...args]);
    assert.equal(r.code, 2);
    assert.match(r.err, msg);
  }
});
