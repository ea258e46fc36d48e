/**
 * `kdyn watch --for` reports as `kubectl wait` v1.32 does, which scripts grep: the same stderr byte for
 * byte, the same `condition met` lines on stdout, the same exit code, run side by side on one local
 * API server. kdyn's stdout adds the last state of each object that did not meet the condition
 * (asserted here too). Also: several --for (a kdyn extension kubectl cannot compare with).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';
import { hasKubectl, runCommand, runKdyn, type Run } from '../support/cli.js';
import type { ResourceClient } from '../../src/dynamic/client.js';
import { clientFor, envFor, startKdyn, startProcess } from './watch-helpers.js';

let env: ServerEnv;
let cms: ResourceClient;

before(async () => {
  env = await startServerEnv({ seed: 'demo' }, 'kdyn-e2e-watch-for-kubectl-');
  const client = clientFor(env.server);
  await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: 'wk' } });
  cms = client.resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace('wk');
  for (const name of ['da', 'db']) await cms.create({ metadata: { name, labels: { app: 'x' } } });
});
after(async () => {
  await env.stop();
});

const kdynEnv = () => envFor(env.dir, env.kubeconfig);
const kubectlEnv = () => envFor(env.dir, env.kubeconfig, 'home-kubectl');
const metLines = (out: string) => out.split('\n').filter((l) => l.endsWith(' condition met')).join('\n');

/** `kubectl wait ARGS` and `kdyn watch ARGS`, at the same time. */
async function both(args: string[]): Promise<{ kubectl: Run; kdyn: Run }> {
  const [kubectl, kdyn] = await Promise.all([
    runCommand('kubectl', ['wait', ...args], { env: kubectlEnv(), cwd: env.dir }),
    runKdyn(['watch', ...args], { env: kdynEnv(), cwd: env.dir }),
  ]);
  // kubectl's client-go sometimes logs a klog line (`E1125 13:54:08.188811 ... context deadline exceeded`) as its watch ends.
  return { kubectl: { ...kubectl, err: kubectl.err.replace(/^[EIW]\d{4} .*\n/gm, '') }, kdyn };
}

// [args, kdyn's whole stdout (the condition met lines plus its last-state lines)]. The timeouts leave
// room for a slow start on a loaded machine: the lists must be in before they expire.
const CASES: Array<[string[], string]> = [
  // Only the object that did not meet the condition is named; the other is `condition met`.
  [['cm', 'da', 'db', '-n', 'wk', '--for', 'jsonpath={.metadata.name}=da', '--timeout', '8s'], 'configmap/da condition met\nconfigmap/db: {.metadata.name}=db\n'],
  // A selector's timeout: one line per object, without `error: ` (kubectl's aggregate of errors).
  [['cm', '-l', 'app=x', '-n', 'wk', '--for', 'jsonpath={.data.a}=1', '--timeout', '8s'], 'configmap/da: {.data.a} not found\nconfigmap/db: {.data.a} not found\n'],
  // An object already gone under --for delete prints nothing.
  [['cm', 'gone', 'da', '-n', 'wk', '--for', 'delete', '--timeout', '8s'], /^configmap\/da: still exists \(resourceVersion \d+\)\n$/.source],
  [['cm', 'gone', '-n', 'wk', '--for', 'delete'], ''],
  // A custom resource: `rocket.demo.kdyn.dev/electron condition met`, but `on rockets/electron`.
  [['rockets.demo.kdyn.dev', 'electron', '-n', 'demo', '--for', 'create'], 'rocket.demo.kdyn.dev/electron condition met\n'],
  [['rockets', 'electron', '-n', 'demo', '--for', 'condition=Ready', '--timeout', '8s'], 'rocket.demo.kdyn.dev/electron: no condition Ready\n'],
  // --timeout 0 checks once.
  [['cm', 'da', 'db', '-n', 'wk', '--for', 'jsonpath={.data.a}=1', '--timeout', '0'], 'configmap/da: {.data.a} not found\nconfigmap/db: {.data.a} not found\n'],
  [['cm', 'da', '-n', 'wk', '--for', 'jsonpath={.metadata.name}=da', '--timeout', '0'], 'configmap/da condition met\n'],
];

test('kdyn watch --for reports as kubectl wait: stderr, condition met lines and exit code', async (t) => {
  if (!hasKubectl()) return t.skip('kubectl not found on PATH: the comparison with kubectl wait is skipped');
  const runs = await Promise.all(CASES.map(([args]) => both(args)));
  CASES.forEach(([args, stdout], i) => {
    const { kubectl, kdyn } = runs[i]!;
    const what = args.join(' ');
    assert.equal(kdyn.err, kubectl.err, `stderr: ${what}`);
    assert.equal(kdyn.code, kubectl.code, `exit code: ${what}`);
    assert.equal(metLines(kdyn.out), metLines(kubectl.out), `condition met lines: ${what}`);
    if (stdout.startsWith('^')) assert.match(kdyn.out, new RegExp(stdout), what);
    else assert.equal(kdyn.out, stdout, what);
  });
  // What the cases pin down, in kubectl's words.
  assert.equal(runs[0]!.kubectl.err, 'error: timed out waiting for the condition on configmaps/db\n');
  assert.equal(runs[1]!.kubectl.err, 'timed out waiting for the condition on configmaps/da\ntimed out waiting for the condition on configmaps/db\n');
  assert.equal(runs[5]!.kubectl.err, 'error: timed out waiting for the condition on rockets/electron\n');
  assert.equal(runs[6]!.kubectl.err, 'condition not met for configmaps/da\ncondition not met for configmaps/db\n');
});

test('--for delete on a selector: `kind/name condition met` per object deleted, as kubectl wait', async (t) => {
  if (!hasKubectl()) return t.skip('kubectl not found on PATH: the comparison with kubectl wait is skipped');
  for (const name of ['d1', 'd2']) await cms.create({ metadata: { name, labels: { del: 'y' } } });
  const args = ['cm', '-l', 'del=y', '-n', 'wk', '--for', 'delete', '--timeout', '20s'];
  env.server.clearLog();
  const kubectl = startProcess('kubectl', ['wait', ...args], kubectlEnv(), env.dir);
  const kdyn = startKdyn(['watch', ...args], kdynEnv(), env.dir);
  const watching = () => env.server.requestLog.filter((r) => r.path === '/api/v1/namespaces/wk/configmaps' && /(^|&)watch=/.test(r.query)).length >= 2;
  for (const deadline = Date.now() + 15_000; !watching(); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() > deadline) throw new Error(`not both watching; kdyn: ${kdyn.err()} kubectl: ${kubectl.err()}`);
  }
  await cms.delete('d1');
  await cms.delete('d2');
  const [k, c] = await Promise.all([kdyn.exited, kubectl.exited]);
  assert.equal(c.code, 0, kubectl.err());
  assert.equal(k.code, 0, kdyn.err());
  assert.equal(kubectl.out(), 'configmap/d1 condition met\nconfigmap/d2 condition met\n');
  assert.equal(kdyn.out(), kubectl.out());
  assert.equal(kdyn.err(), '');
});

test('several --for: all must hold; the timeout names what is still unmet', async () => {
  await cms.create({ metadata: { name: 'two' }, data: { a: '1' } });
  const args = ['watch', 'cm', 'two', '-n', 'wk', '--for', 'jsonpath={.data.a}=1', '--for', 'jsonpath={.data.b}=2'];
  const unmet = await runKdyn([...args, '--timeout', '0'], { env: kdynEnv(), cwd: env.dir });
  assert.equal(unmet.code, 1);
  assert.equal(unmet.out, 'configmap/two: {.data.b} not found\n', 'only the condition that does not hold');
  assert.equal(unmet.err, 'error: condition not met for configmaps/two\n');

  env.server.clearLog();
  const k = startKdyn([...args, '--timeout', '20s'], kdynEnv(), env.dir);
  for (const deadline = Date.now() + 15_000; !env.server.requestLog.some((r) => /(^|&)watch=/.test(r.query)); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() > deadline) throw new Error(`no watch; stderr: ${k.err()}`);
  }
  await cms.patch('two', { data: { a: '9', b: '2' } }, 'merge');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(k.child.exitCode, null, 'b holds, a no longer does: still waiting');
  await cms.patch('two', { data: { a: '1' } }, 'merge');
  const { code } = await k.exited;
  assert.equal(code, 0, k.err());
  assert.equal(k.out(), 'configmap/two condition met\n');

  const both = await runKdyn(['watch', 'cm', 'two', '-n', 'wk', '--for', 'delete', '--for', 'create'], { env: { ...kdynEnv(), KUBECONFIG: '/nonexistent' }, cwd: env.dir });
  assert.equal(both.code, 2);
  assert.match(both.err, /--for delete cannot be combined with another --for/);
});
