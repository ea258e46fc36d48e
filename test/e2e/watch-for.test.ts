/**
 * `kdyn watch --for` end to end (exit 0 as soon as satisfied, 1 at --timeout with the last state,
 * waiting for objects that do not exist yet), the usage errors, and `kdyn get -w` output compared
 * byte for byte with `kubectl get -w` on the same server (tables, --output-watch-events, json, name).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock.js';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';
import { hasKubectl, runKdyn } from '../support/cli.js';
import type { ResourceClient } from '../../src/dynamic/client.js';
import { clientFor, envFor, startKdyn, startProcess } from './watch-helpers.js';

let env: ServerEnv;
let cms: ResourceClient;
let pods: ResourceClient;

before(async () => {
  // A fixed server clock: AGE cells are the same for kdyn and kubectl.
  env = await startServerEnv({ seed: 'demo', clock: new FakeClock(Date.UTC(2026, 10, 22, 12, 0, 0)) }, 'kdyn-e2e-watch-for-');
  const client = clientFor(env.server);
  await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: 'wf' } });
  cms = client.resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace('wf');
  pods = client.resource({ group: '', version: 'v1', resource: 'pods' }, { namespaced: true }).namespace('wf');
});
after(async () => {
  await env.stop();
});

const kdynEnv = () => envFor(env.dir, env.kubeconfig);

async function started(k: ReturnType<typeof startKdyn>, path: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!env.server.requestLog.some((r) => r.path === path && /(^|&)watch=/.test(r.query))) {
    if (Date.now() > deadline) throw new Error(`no watch on ${path}; stderr: ${k.err()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('--for jsonpath waits for an object that does not exist yet, then for the value; exit 0', async () => {
  env.server.clearLog();
  const k = startKdyn(['watch', 'configmap', 'later', '-n', 'wf', '--for', 'jsonpath={.data.phase}=Ready', '--timeout', '20s'], kdynEnv(), env.dir);
  await started(k, '/api/v1/namespaces/wf/configmaps');
  await cms.create({ metadata: { name: 'later' }, data: { phase: 'Pending' } });
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(k.child.exitCode, null, 'still waiting while phase is Pending');
  await cms.patch('later', { data: { phase: 'Ready' } }, 'merge');
  const { code } = await k.exited;
  assert.equal(code, 0, k.err());
  assert.equal(k.out(), 'configmap/later condition met\n');
});

test('--for condition=Ready=False, then condition=Ready (status conditions of a pod)', async () => {
  await pods.create({ metadata: { name: 'p1' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  await pods.patch('p1', { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady' }] } }, 'merge', { subresource: 'status' });
  const notReady = await runKdyn(['watch', 'pod', 'p1', '-n', 'wf', '--for', 'condition=Ready=False', '--timeout', '20s'], { env: kdynEnv(), cwd: env.dir });
  assert.equal(notReady.code, 0, notReady.err);
  assert.equal(notReady.out, 'pod/p1 condition met\n');

  env.server.clearLog();
  const k = startKdyn(['watch', 'pods', '-n', 'wf', '--for', 'condition=ready', '--timeout', '20s', '-o', 'name'], kdynEnv(), env.dir);
  await started(k, '/api/v1/namespaces/wf/pods');
  await pods.patch('p1', { status: { conditions: [{ type: 'Ready', status: 'True' }] } }, 'merge', { subresource: 'status' });
  const { code } = await k.exited;
  assert.equal(code, 0, k.err());
  assert.equal(k.out(), 'pod/p1\npod/p1\npod/p1 condition met\n', 'with -o the events are printed too');
});

test('--for delete exits 0 once the object is gone', async () => {
  await cms.create({ metadata: { name: 'doomed' } });
  env.server.clearLog();
  const k = startKdyn(['watch', 'cm', 'doomed', '-n', 'wf', '--for', 'delete', '--timeout', '20s'], kdynEnv(), env.dir);
  await started(k, '/api/v1/namespaces/wf/configmaps');
  await cms.delete('doomed');
  const { code } = await k.exited;
  assert.equal(code, 0, k.err());
  assert.equal(k.out(), 'configmap/doomed condition met\n', 'kind/name, as kubectl wait');
});

test('--timeout with --for: exit 1, the last state on stdout, the timeout on stderr', async () => {
  await cms.create({ metadata: { name: 'stuck' }, data: { phase: 'Pending' } });
  // The list must be in before the timeout for the last state: 5 s leaves room for a loaded machine.
  const r = await runKdyn(['watch', 'configmap', 'stuck', 'nothere', '-n', 'wf', '--for', 'jsonpath={.data.phase}=Ready', '--timeout', '5s'], { env: kdynEnv(), cwd: env.dir });
  assert.equal(r.code, 1);
  assert.equal(r.out, 'configmap/stuck: {.data.phase}=Pending\nconfigmaps/nothere: not found\n');
  // Two errors: one line each without `error: `, as kubectl prints an aggregate.
  assert.equal(r.err, 'timed out waiting for the condition on configmaps/stuck\ntimed out waiting for the condition on configmaps/nothere\n');
});

test('--for with --timeout 0 checks once: a list that fails is the answer (exit 1, its error), not retried forever', async () => {
  env.server.faults.failNext({ status: 503, path: '/api/v1/namespaces/wf/configmaps' });
  try {
    const r = await runKdyn(['watch', 'configmap', 'stuck', '-n', 'wf', '--for', 'create', '--timeout', '0'], { env: kdynEnv(), cwd: env.dir });
    assert.equal(r.code, 1);
    assert.equal(r.err, 'Error from server (ServiceUnavailable): The server is currently unable to handle the request\n');
    assert.equal(r.out, '');
  } finally {
    env.server.faults.clear();
  }
});

test('--max-events and --timeout without --for end with 0; usage errors exit 2 before any request', async () => {
  const r = await runKdyn(['watch', 'configmaps', '-A', '-o', 'name', '--max-events', '2'], { env: kdynEnv(), cwd: env.dir });
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out.split('\n').filter(Boolean).length, 2);
  const t = await runKdyn(['watch', 'namespaces', '--watch-only', '--timeout', '300ms'], { env: kdynEnv(), cwd: env.dir });
  assert.equal(t.code, 0, t.err);
  assert.equal(t.out, '');
  for (const [args, msg] of [
    [['watch', 'cm', '--for', 'ready'], /--for: unrecognized condition "ready"/],
    [['watch', 'cm', '-o', 'custom-columns=N:.metadata.name'], /unable to match a printer suitable for the output format "custom-columns=N:\.metadata\.name" with a watch/],
    [['watch', 'cm', '-o', 'jsonpath={.x'], /error parsing jsonpath \{\.x, unclosed action/],
    [['watch', 'cm', '--timeout', 'soon'], /invalid argument "soon" for "--timeout" flag/],
    [['watch', 'cm', '--max-events', '0'], /--max-events must be a positive integer/],
    [['get', 'cm', '--output-watch-events'], /--output-watch-events requires --watch or --watch-only/],
  ] as const) {
    const u = await runKdyn([...args], { env: { ...kdynEnv(), KUBECONFIG: '/nonexistent' }, cwd: env.dir });
    assert.equal(u.code, 2, `${args.join(' ')}: ${u.err}`);
    assert.match(u.err, msg);
  }
});

test('kubectl get -w and kdyn get -w print the same bytes (table, --output-watch-events, -A, json, name, yaml, jsonpath, go-template)', async (t) => {
  if (!hasKubectl()) return t.skip('kubectl not found on PATH: the comparison with kubectl get -w is skipped');
  const client = clientFor(env.server);
  await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: 'cmp' } });
  const c = client.resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace('cmp');
  await c.create({ metadata: { name: 'a' }, data: { x: '1' } });
  await c.create({ metadata: { name: 'a-much-longer-name' }, data: { x: '1', y: '2' } });
  const variants = [['-n', 'cmp'], ['-n', 'cmp', '--output-watch-events'], ['-A', '--output-watch-events'], ['-n', 'cmp', '-o', 'json'], ['-n', 'cmp', '-o', 'json', '--output-watch-events'], ['-n', 'cmp', '-o', 'name'], ['-n', 'cmp', '-o', 'yaml'],
    ['-n', 'cmp', '-o', 'jsonpath={.metadata.name}:{.data.x}:{.metadata.managedFields[0].manager}{"\\n"}'],
    ['-n', 'cmp', '--output-watch-events', '-o', 'jsonpath={.type} {.object.metadata.name}{"\\n"}'],
    ['-n', 'cmp', '-o', 'go-template={{.metadata.name}} {{.metadata.resourceVersion}}{{"\\n"}}'],
    ['-n', 'cmp', '-o', 'go-template', '--template', '{{.metadata.name}}{{"\\n"}}']];
  const runs = variants.map((v) => ({
    v,
    kdyn: startKdyn(['get', 'configmaps', '-w', ...v], kdynEnv(), env.dir),
    kubectl: startProcess('kubectl', ['get', 'configmaps', '-w', ...v], envFor(env.dir, env.kubeconfig, 'home-kubectl'), env.dir),
  }));
  const lines = (s: string) => s.split('\n').length;
  try {
    await compareRuns();
  } finally {
    for (const r of runs) for (const p of [r.kdyn, r.kubectl]) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  }
  async function compareRuns(): Promise<void> {
    for (const r of runs) {
      await r.kdyn.until((o) => o.includes('a-much-longer-name'), 15_000, `kdyn ${r.v.join(' ')}`);
      await r.kubectl.until((o) => o.includes('a-much-longer-name'), 15_000, `kubectl ${r.v.join(' ')}`);
    }
    await c.patch('a', { data: { x: '2' } }, 'merge');
    await c.create({ metadata: { name: 'b' } });
    await c.delete('a-much-longer-name');
    for (const r of runs) {
      await r.kubectl.until((o) => lines(o) > 1 && /a-much-longer-name[\s\S]*a-much-longer-name/.test(o), 15_000, `kubectl ${r.v.join(' ')} events`);
      await r.kdyn.until((o) => o.length >= r.kubectl.out().length, 15_000, `kdyn ${r.v.join(' ')} events`);
      r.kdyn.child.kill('SIGTERM');
      r.kubectl.child.kill('SIGTERM');
      await Promise.all([r.kdyn.exited, r.kubectl.exited]);
      assert.equal(r.kdyn.out(), r.kubectl.out(), `get -w ${r.v.join(' ')}`);
    }
  }
});

test('kdyn watch -o jsonpath / go-template: the template sees each {type, object} event', async () => {
  const client = clientFor(env.server);
  await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: 'tmpl' } });
  const c = client.resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace('tmpl');
  await c.create({ metadata: { name: 'one' }, data: { k: 'v1' } });
  await c.create({ metadata: { name: 'two' } });
  const jp = await runKdyn(['watch', 'configmaps', '-n', 'tmpl', '--max-events', '2', '-o', 'jsonpath={.type} {.object.metadata.name} {.object.data.k}{"\\n"}'], { env: kdynEnv(), cwd: env.dir });
  assert.equal(jp.code, 0, jp.err);
  assert.equal(jp.out, 'ADDED one v1\nADDED two \n');
  const gt = await runKdyn(['watch', 'configmaps', '-n', 'tmpl', '--max-events', '2', '-o', 'go-template', '--template', '{{.type}}/{{.object.metadata.name}}:{{.object.data}}{{"\\n"}}'], { env: kdynEnv(), cwd: env.dir });
  assert.equal(gt.code, 0, gt.err);
  assert.equal(gt.out, 'ADDED/one:map[k:v1]\nADDED/two:<no value>\n');
});


test('SIGINT ends a watch with exit 130 after its output; a closed stdout ends it quietly with 0', async () => {
  env.server.clearLog();
  const k = startKdyn(['watch', 'namespaces', '-o', 'name'], kdynEnv(), env.dir);
  await k.until((o) => o.includes('namespace/wf\n'), 15_000, 'the namespaces');
  k.child.kill('SIGINT');
  const { code } = await k.exited;
  assert.equal(code, 130);
  assert.match(k.out(), /^namespace\/default\n/m);
  assert.equal(k.err(), '');

  const p = startKdyn(['watch', 'namespaces', '-o', 'name'], kdynEnv(), env.dir);
  await p.until((o) => o.length > 0, 15_000, 'the first line');
  p.child.stdout!.destroy(); // as `| head -1` exiting
  await cms.create({ metadata: { name: 'after-close' } });
  const client = clientFor(env.server);
  for (let i = 0; i < 3; i++) await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: `pipe-${i}` } });
  const r = await p.exited;
  assert.equal(r.code, 0, p.err());
  assert.equal(p.err(), '');
});

test('several types at once: one watch each, events merged; tables name rows kind/name', async () => {
  const client = clientFor(env.server);
  await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: 'multi' } });
  const c = client.resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace('multi');
  const s = client.resource({ group: '', version: 'v1', resource: 'secrets' }, { namespaced: true }).namespace('multi');
  await c.create({ metadata: { name: 'cm1' } });
  await s.create({ metadata: { name: 's1' }, type: 'Opaque' });
  env.server.clearLog();
  const k = startKdyn(['watch', 'configmaps,secrets', '-n', 'multi'], kdynEnv(), env.dir);
  await k.until((o) => o.includes('secret/s1') && o.includes('configmap/cm1'), 15_000, 'both initial lists');
  await s.create({ metadata: { name: 's2' }, type: 'Opaque' });
  await c.delete('cm1');
  await k.until((o) => o.includes('secret/s2') && /DELETED\s+configmap\/cm1/.test(o), 15_000, 'the changes of both types');
  k.child.kill('SIGTERM');
  assert.equal((await k.exited).code, 143);
  const watches = env.server.requestLog.filter((r) => /(^|&)watch=/.test(r.query)).map((r) => r.path).sort();
  assert.deepEqual(watches, ['/api/v1/namespaces/multi/configmaps', '/api/v1/namespaces/multi/secrets']);
  const lines = k.out().split('\n');
  assert.ok(lines.some((l) => /^EVENT\s+NAME\s+DATA\s+AGE$/.test(l)), k.out());
  assert.ok(lines.some((l) => /^EVENT\s+NAME\s+TYPE\s+DATA\s+AGE$/.test(l)), k.out());
  assert.ok(lines.some((l) => /^ADDED\s+secret\/s2\s+Opaque\s+0\s+/.test(l)), k.out());
});
