/**
 * `kdyn diff` against the local API server, next to `kubectl diff --server-side --field-manager=kdyn`
 * on the same server and input: the same bytes on stdout and stderr (temp dir names, file times and
 * the server-set uid/creationTimestamp of new objects aside) and the same exit codes, for changed,
 * unchanged and new objects, Secret masking, KUBECTL_EXTERNAL_DIFF (kept and dropped words, a
 * failing program, a missing one), conflicts and bad input; then a CRD with its instances in one input
 * (kubectl fails; kdyn shows them created, checked against the CRD's schema), objects in a namespace
 * the input creates, and a fleet with a failed context. kubectl's side skips with a message where kubectl is missing.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';
import { startFleetEnv, type FleetEnv } from '../support/fleet-env.js';
import { hasKubectl, runCommand, runKdyn, type Run } from '../support/cli.js';
import { normalizeDiff } from '../support/diff-output.js';
import { configMap as cm, manifestFile } from './apply-helpers.js';

let env: ServerEnv;
let tmp: string;
before(async () => {
  env = await startServerEnv({ seed: 'demo' }, 'kdyn-diff-');
  tmp = join(env.dir, 'tmp');
  await runCommand('mkdir', ['-p', tmp], { env: { PATH: process.env.PATH } });
});
after(() => env.stop());

const file = (name: string, docs: unknown[] | string) => manifestFile(env.dir, name, docs);
const baseEnv = (extra: Record<string, string> = {}) => ({ PATH: process.env.PATH, HOME: env.dir, KUBECONFIG: env.kubeconfig, TMPDIR: tmp, ...extra });
const kdyn = (args: string[], extra?: Record<string, string>) => runKdyn(args, { env: baseEnv(extra), cwd: env.dir });
const kubectl = (args: string[], extra?: Record<string, string>) => runCommand('kubectl', args, { env: baseEnv(extra), cwd: env.dir });

/** The added and removed lines of a diff, without managedFields' times (which follow the clock). */
const changedLinesButTimes = (s: string) => normalizeDiff(s).split('\n').filter((l) => /^[-+](?!--|\+\+)/.test(l) && !/^[-+] +time: X$/.test(l)).join('\n');

/** kdyn diff and kubectl diff --server-side --field-manager=kdyn, same input; returns kdyn's run. */
async function same(t: { skip(msg: string): void }, args: string[], extra?: Record<string, string>, view: (s: string) => string = normalizeDiff): Promise<Run> {
  const mine = await kdyn(['diff', ...args], extra);
  if (!hasKubectl()) {
    t.skip('kubectl not on PATH: kdyn alone');
    return mine;
  }
  const theirs = await kubectl(['diff', '--server-side', '--field-manager=kdyn', ...args], extra);
  assert.equal(view(mine.out), view(theirs.out));
  assert.equal(view(mine.err), view(theirs.err));
  assert.equal(mine.code, theirs.code, `${mine.err}\n---\n${theirs.err}`);
  return mine;
}

test('changed, unchanged and new objects: the same unified diff as kubectl, exit 1; nothing left in TMPDIR', async (t) => {
  const applied = await kdyn(['apply', '-f', file('base.yaml', [cm('d-same', { a: '1' }), cm('d-changed', { a: '1', b: 'x' })]), '-n', 'demo']);
  assert.equal(applied.code, 0, applied.err);
  const p = file('changed.yaml', [cm('d-same', { a: '1' }), cm('d-changed', { a: '2', c: 'new' }), cm('d-new', { k: 'v' })]);
  const r = await same(t, ['-f', p, '-n', 'demo']);
  assert.equal(r.code, 1, r.err);
  const out = normalizeDiff(r.out);
  assert.match(out, /^diff -u -N \/\S+\/LIVE-N\/v1\.ConfigMap\.demo\.d-changed \/\S+\/MERGED-N\/v1\.ConfigMap\.demo\.d-changed$/m);
  assert.match(out, /^-  a: "1"\n-  b: x\n\+  a: "2"\n\+  c: new$/m);
  assert.match(out, /^@@ -0,0 \+1,9 @@\n\+apiVersion: v1\n\+data:\n\+  k: v$/m, 'the new object, created');
  assert.doesNotMatch(out, /d-same|managedFields/);
  // managedFields carry the time of each write: whether the dry run's second differs from the apply's
  // (a changed time line, a longer hunk) depends on when each tool runs, so compare the changed lines
  // other than those times.
  const managed = await same(t, ['-f', p, '-n', 'demo', '--show-managed-fields'], undefined, changedLinesButTimes);
  assert.match(managed.out, /^[ +] {2}managedFields:$/m);
  assert.deepEqual(readdirSync(tmp), [], 'the LIVE and MERGED dirs are removed');
  // Only unchanged objects: no output, exit 0; by default kdyn sends its dry run as kubectl does; with
  // --skip-unchanged it proves it from the live object's managedFields (kdyn's apply owns exactly these
  // fields, with these values): no dry-run request.
  const unchanged = file('unchanged.yaml', [cm('d-same', { a: '1' })]);
  env.server.clearLog();
  const none = await same(t, ['-f', unchanged, '-n', 'demo']);
  assert.deepEqual([none.code, none.out, none.err], [0, '', '']);
  const patches = () => env.server.requestLog.filter((e) => e.method === 'PATCH' && e.path.endsWith('/d-same')).map((e) => e.query);
  assert.equal(patches().length, hasKubectl() ? 2 : 1, 'kubectl and kdyn each send their dry run');
  env.server.clearLog();
  const skipped = await kdyn(['diff', '-f', unchanged, '-n', 'demo', '--skip-unchanged']);
  assert.deepEqual([skipped.code, skipped.out], [0, '']);
  assert.deepEqual(patches(), [], '--skip-unchanged: no dry run for an object that provably applies as it is');
});

test('Secret data is masked as kubectl masks it: *** and *** (before)/(after) where a value changes; a new Secret against null', async (t) => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const secret = (name: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'demo' }, type: 'Opaque', data });
  const applied = await kdyn(['apply', '-f', file('secret-base.yaml', [secret('d-secret', { keep: b64('same'), change: b64('old'), drop: b64('gone') })])]);
  assert.equal(applied.code, 0, applied.err);
  const r = await same(t, ['-f', file('secret.yaml', [secret('d-secret', { keep: b64('same'), change: b64('new'), add: b64('added') }), secret('d-secret-new', { k: b64('v') })])]);
  assert.equal(r.code, 1, r.err);
  const out = normalizeDiff(r.out);
  assert.match(out, /^-  change: '\*\*\* \(before\)'\n-  drop: '\*\*\*'\n\+  add: '\*\*\*'\n\+  change: '\*\*\* \(after\)'\n   keep: '\*\*\*'$/m);
  assert.match(out, /^@@ -1 \+1,\d+ @@\n-null\n/m, 'kubectl\'s masker prints an absent Secret as null');
  for (const v of ['same', 'new', 'old', 'gone', 'added', 'v']) assert.ok(!out.includes(b64(v)), `${v} leaked`);
});

test('KUBECTL_EXTERNAL_DIFF: the program and its kept words (after the two dirs), its exit status; a failing or missing program is an error (>1)', async (t) => {
  await kdyn(['apply', '-f', file('ext-base.yaml', [cm('d-ext', { a: '1' })]), '-n', 'demo']);
  const p = file('ext.yaml', [cm('d-ext', { a: '2' })]);
  // -s: the program is also given the unchanged objects' files (kdyn leaves them out for its own diff -u -N only).
  const brief = await same(t, ['-f', file('ext-same.yaml', [cm('d-ext', { a: '2' }), cm('d-same', { a: '1' })]), '-n', 'demo'], { KUBECTL_EXTERNAL_DIFF: 'diff -r --brief -s bad/word  -N' });
  assert.equal(brief.code, 1);
  assert.match(normalizeDiff(brief.out), /^Files \S+\/LIVE-N\/v1\.ConfigMap\.demo\.d-ext and \S+\/MERGED-N\/v1\.ConfigMap\.demo\.d-ext differ\nFiles \S+\/LIVE-N\/v1\.ConfigMap\.demo\.d-same and \S+\/MERGED-N\/v1\.ConfigMap\.demo\.d-same are identical\n$/);
  const script = join(env.dir, 'fails.sh');
  writeFileSync(script, '#!/bin/sh\necho "args: $#"\necho oops >&2\nexit 3\n');
  chmodSync(script, 0o755);
  const failing = await same(t, ['-f', p, '-n', 'demo'], { KUBECTL_EXTERNAL_DIFF: `${script} -x` });
  assert.deepEqual([failing.code, failing.out, failing.err], [2, 'args: 3\n', `oops\nerror: failed to run "${script}": exit status 3\n`]);
  const missing = await same(t, ['-f', p, '-n', 'demo'], { KUBECTL_EXTERNAL_DIFF: 'no-such-diff-program' });
  assert.deepEqual([missing.code, missing.out, missing.err], [2, '', 'error: failed to run "no-such-diff-program": executable file not found in $PATH\n']);
});

test('errors exit 2 as kubectl: a conflict (with its retries and warning), a missing file, no -f, an extra argument', async (t) => {
  await kdyn(['apply', '-f', file('owned.yaml', [cm('d-owned', { k: 'theirs' })]), '-n', 'demo', '--field-manager', 'other']);
  const p = file('conflict.yaml', [cm('d-owned', { k: 'mine' })]);
  const r = await same(t, ['-f', p, '-n', 'demo']);
  assert.equal(r.code, 2);
  assert.equal(normalizeDiff(r.err), 'W Object (/v1, Kind=ConfigMap: d-owned) keeps changing, diffing without lock\nError from server (Conflict): Apply failed with 1 conflict: conflict with "other": .data.k\n');
  const forced = await same(t, ['-f', p, '-n', 'demo', '--force-conflicts']);
  assert.equal(forced.code, 1, forced.err);
  const missing = await same(t, ['-f', 'nope.yaml']);
  assert.deepEqual([missing.code, missing.err], [2, 'error: the path "nope.yaml" does not exist\n']);
  for (const args of [['diff'], ['diff', '-f', p, 'extra']]) {
    const u = await kdyn(args);
    assert.equal(u.code, 2, u.err);
    assert.match(u.err, /^error: .*\(see 'kdyn( diff)? --help'\)\n$/);
  }
});

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.diff.kdyn.dev' },
  spec: {
    group: 'diff.kdyn.dev',
    names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
    scope: 'Namespaced',
    versions: [{
      name: 'v1', served: true, storage: true,
      schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', required: ['size'], properties: { size: { type: 'integer' }, color: { type: 'string', enum: ['red', 'blue'] }, shape: { type: 'string', default: 'round' } } } } } },
    }],
  },
};
const widget = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'diff.kdyn.dev/v1', kind: 'Widget', metadata: { name, namespace: 'demo' }, spec });

test('a CRD and its instances in one input: kubectl refuses; kdyn shows both created, the instance as its schema makes it (defaults)', async () => {
  const p = file('crd.yaml', [crd, widget('w1', { size: 3, color: 'red' })]);
  const r = await kdyn(['diff', '-f', p]);
  assert.equal(r.code, 1, r.err);
  assert.equal(r.err, '');
  const out = normalizeDiff(r.out);
  assert.match(out, /^diff -u -N \S+\/LIVE-N\/apiextensions\.k8s\.io\.v1\.CustomResourceDefinition\.\.widgets\.diff\.kdyn\.dev /m);
  assert.ok(out.includes('+++ ') && out.endsWith([
    '@@ -0,0 +1,9 @@',
    '+apiVersion: diff.kdyn.dev/v1',
    '+kind: Widget',
    '+metadata:',
    '+  name: w1',
    '+  namespace: demo',
    '+spec:',
    '+  color: red',
    '+  shape: round',
    '+  size: 3',
    '',
  ].join('\n')), out);
  assert.equal(env.server.store.get('apiextensions.k8s.io', 'customresourcedefinitions', '', 'widgets.diff.kdyn.dev'), undefined, 'nothing created');
  if (hasKubectl()) {
    const theirs = await kubectl(['diff', '--server-side', '-f', p]);
    assert.equal(theirs.code, 2);
    assert.match(theirs.err, /no matches for kind "Widget" in version "diff\.kdyn\.dev\/v1"/);
  }
});

test('an instance the input\'s CRD schema refuses: exit 2, one line naming the object, its origin and every field', async () => {
  const p = file('crd-bad.yaml', [crd, widget('w-bad', { color: 'green', size: 'big' }), widget('w-ok', { size: 1 })]);
  const r = await kdyn(['diff', '-f', p]);
  assert.equal(r.code, 2);
  assert.equal(r.out, '');
  assert.equal(r.err, `error: Widget.diff.kdyn.dev "w-bad" from "${p}" document 2 is invalid against the schema of diff.kdyn.dev/v1 in CustomResourceDefinition "widgets.diff.kdyn.dev" of the input: [spec.color: Unsupported value: "green": supported values: "red", "blue", spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"]\n`);
  const missing = await kdyn(['diff', '-f', file('crd-missing.yaml', [crd, widget('w-none', {})])]);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /"w-none" .*: spec\.size: Required value\n$/);
});

test('objects in a namespace the same input creates: kubectl fails (namespace not found); kdyn shows them created, as the input has them', async () => {
  const p = file('new-ns.yaml', [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'd-brand-new' } }, cm('d-in-new', { a: 'b' }, 'd-brand-new')]);
  const r = await kdyn(['diff', '-f', p]);
  assert.equal(r.code, 1, r.err);
  assert.ok(normalizeDiff(r.out).includes([
    'diff -u -N ' + join(tmp, 'LIVE-N/v1.ConfigMap.d-brand-new.d-in-new') + ' ' + join(tmp, 'MERGED-N/v1.ConfigMap.d-brand-new.d-in-new'),
    '--- ' + join(tmp, 'LIVE-N/v1.ConfigMap.d-brand-new.d-in-new') + '\tTIME',
    '+++ ' + join(tmp, 'MERGED-N/v1.ConfigMap.d-brand-new.d-in-new') + '\tTIME',
    '@@ -0,0 +1,7 @@',
    '+apiVersion: v1',
    '+data:',
    '+  a: b',
    '+kind: ConfigMap',
    '+metadata:',
    '+  name: d-in-new',
    '+  namespace: d-brand-new',
  ].join('\n')), r.out);
  assert.match(r.out, /MERGED-\d+\/v1\.Namespace\.\.d-brand-new\n/);
  if (hasKubectl()) {
    const theirs = await kubectl(['diff', '--server-side', '-f', p]);
    assert.equal(theirs.code, 2);
    assert.match(theirs.err, /namespaces "d-brand-new" not found/);
  }
  // Without the Namespace in the input, the server's answer stands.
  const alone = await kdyn(['diff', '-f', file('no-ns.yaml', [cm('d-in-new', { a: 'b' }, 'd-brand-new')])]);
  assert.equal(alone.code, 2);
  assert.match(alone.err, /namespaces "d-brand-new" not found/);
});

let fleet: FleetEnv;
test('a fleet: one section per context, a failed context one error line and exit 2; differences alone exit 1', async (t) => {
  fleet = await startFleetEnv({ contexts: ['east', 'west'], down: ['gone'], prefix: 'kdyn-diff-fleet-' });
  t.after(() => fleet.stop());
  const run = (args: string[]) => runKdyn(args, { env: { PATH: process.env.PATH, HOME: fleet.dir, KUBECONFIG: fleet.kubeconfig, TMPDIR: tmp }, cwd: fleet.dir });
  const p = manifestFile(fleet.dir, 'fleet.yaml', [cm('d-fleet', { a: '1' }, 'demo')]);
  assert.equal((await run(['apply', '-f', p, '--context', 'east'])).code, 0);
  const q = manifestFile(fleet.dir, 'fleet2.yaml', [cm('d-fleet', { a: '2' }, 'demo')]);
  const east = await run(['diff', '-f', q, '--context', 'east']);
  assert.equal(east.code, 1, east.err);
  const r = await run(['diff', '-f', q, '--context', 'east,gone,west']);
  assert.equal(r.code, 2);
  const sections = normalizeDiff(r.out).split(/^(?=# context )/m);
  assert.deepEqual(sections.map((s) => s.split('\n')[0]), ['# context "east"', '# context "west"']);
  assert.equal(sections[0], `# context "east"\n${normalizeDiff(east.out)}`, 'a section is what the context alone prints');
  assert.match(sections[1]!, /^@@ -0,0 \+1,9 @@$/m, 'created in west');
  assert.match(r.err, /^error: context "gone": The connection to the server 127\.0\.0\.1:\d+ was refused - did you specify the right host or port\?\n$/);
  const good = await run(['diff', '-f', q, '--context', 'east,west']);
  assert.equal(good.code, 1, good.err);
  assert.equal(normalizeDiff(good.out), normalizeDiff(r.out), 'the same sections without the failed context');
  const unchanged = await run(['diff', '-f', p, '--context', 'east,west']);
  assert.equal(unchanged.code, 1, 'west still lacks it');
  const eastOnly = await run(['diff', '-f', p, '--all-contexts', '--context-concurrency', '1']);
  assert.equal(eastOnly.code, 2, 'gone is part of --all-contexts');
});
