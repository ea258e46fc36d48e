/**
 * Fleet watch and apply (issue 24), the built CLI against several local API servers: a watch over
 * three clusters goes on while one of them is down and picks it up again when it is back; a
 * forbidden or unreachable cluster is one stderr line and the others are watched; apply sends the
 * same manifests to every context, one summary line each, exit 1 when one context failed; a client
 * dry run prints each context's requests, mapped with its own discovery; apply --wait and watch --for
 * wait per context.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFleetEnv, type FleetEnv } from '../support/fleet-env.js';
import { runKdyn, type Run } from '../support/cli.js';
import { clientFor, startKdyn } from './watch-helpers.js';
import { simpleCrd } from '../support/apiserver/crds.js';
import type { Unstructured } from '../../src/core/unstructured.js';

let env: FleetEnv;
const toolEnv = () => ({ PATH: process.env.PATH, HOME: env.dir, KUBECONFIG: env.kubeconfig });
const kdyn = (args: string[]): Promise<Run> => runKdyn(args, { env: toolEnv(), cwd: env.dir });
const FORBIDDEN = (verb: string) => JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: `configmaps is forbidden: User "viewer" cannot ${verb} resource "configmaps" in API group "" in the namespace "demo"`, reason: 'Forbidden', details: { kind: 'configmaps' }, code: 403 });

before(async () => {
  env = await startFleetEnv({ contexts: ['east', 'west', 'north', 'locked'], down: ['gone'] });
});
after(() => env.stop());

const records = (out: string) => out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { context: string; type: string; object: { metadata: { name: string } } });
const has = (out: string, context: string, name: string) => records(out).some((r) => r.context === context && r.object.metadata.name === name);
const hasObject = (context: string, name: string) =>
  env.servers.get(context)!.store.list('', 'configmaps', { namespace: 'demo' }).items.some((o) => (o as { metadata: { name: string } }).metadata.name === name);
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'demo' }, data: { k: 'v' } });

describe('fleet watch', () => {
  test('one cluster restarting: the others are watched throughout, and it is watched again once back', async () => {
    const w = startKdyn(['watch', 'configmaps', '-n', 'demo', '--context', 'east,west,north', '-o', 'jsonl'], toolEnv(), env.dir);
    try {
      await w.until((out) => ['east', 'west', 'north'].every((c) => has(out, c, 'app-config')), 20_000, 'the three initial lists');
      const west = env.servers.get('west')!;
      await west.stopListening();
      await clientFor(env.servers.get('east')!).resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace('demo').create(configMap('during-outage'));
      await w.until((out) => has(out, 'east', 'during-outage'), 20_000, 'east\'s event while west is down');
      const deadline = Date.now() + 20_000;
      while (!/watch of west\/configmaps: .*retrying every second/.test(w.err())) {
        assert.ok(Date.now() < deadline, `timed out waiting for the outage warning; stderr:\n${w.err()}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      await west.listenAgain();
      await clientFor(west).resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace('demo').create(configMap('after-outage'));
      await w.until((out) => has(out, 'west', 'after-outage'), 30_000, 'west\'s event once it is back');
      w.child.kill('SIGINT');
      const end = await w.exited;
      assert.equal(end.code, 130);
      assert.match(w.err(), /Warning: watch of west\/configmaps: .*retrying every second until the server is back/);
      assert.match(w.err(), /watch of west\/configmaps: the server is back after/);
      assert.doesNotMatch(w.err(), /east\/|north\//);
      // Every line says where it came from; nothing from a context is printed twice.
      const recs = records(w.out());
      assert.equal(recs.filter((r) => r.context === 'east' && r.object.metadata.name === 'during-outage').length, 1);
    } finally {
      w.child.kill('SIGKILL');
    }
  });

  test('a forbidden cluster and one that cannot be reached: one line each, the others watched, exit 1', async () => {
    const locked = env.servers.get('locked')!;
    const fault = locked.faults.add({ path: /\/configmaps/, status: 403, body: FORBIDDEN('list') });
    try {
      // east's list must be in before the timeout: 5 s leaves room for a loaded machine.
      const r = await kdyn(['watch', 'configmaps', '-n', 'demo', '--context', 'east,locked,gone', '--timeout', '5s', '-o', 'name']);
      assert.equal(r.code, 1);
      assert.match(r.out, /^east\/configmap\/app-config\n/);
      assert.match(r.err, /error: context "locked": Error from server \(Forbidden\): configmaps is forbidden/);
      assert.match(r.err, /error: context "gone": .*refused/);
    } finally {
      fault.times = fault.hits;
    }
  });

  test('table: EVENT, then CONTEXT; --max-events counts over every context', async () => {
    const r = await kdyn(['watch', 'namespaces', 'demo', '--context', 'east,north', '--max-events', '2']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^EVENT +CONTEXT +NAME +STATUS +AGE\nADDED +(east|north) +demo /);
    assert.equal(r.out.split('\n').filter((l) => l.startsWith('ADDED')).length, 2);
  });
});

describe('fleet watch --for', () => {
  const gate = (phase: string) => ({ ...configMap('gate'), data: { phase } });
  const cms = (context: string) => clientFor(env.servers.get(context)!).resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace('demo');
  const forReady = ['watch', 'configmap', 'gate', '-n', 'demo', '--context', 'east,west', '--for', 'jsonpath={.data.phase}=Ready'];

  test('a context that times out: its last state and one error line naming it; the other\'s condition met; exit 1', async () => {
    await cms('east').create(gate('Ready'));
    // east's list must be in before the timeout: 5 s leaves room for a loaded machine.
    const r = await kdyn([...forReady, '--timeout', '5s']);
    assert.equal(r.code, 1);
    assert.equal(r.out, 'east/configmap/gate condition met\nwest/configmaps/gate: not found\n');
    assert.equal(r.err, 'error: context "west": timed out waiting for the condition on configmaps/gate\n');
  });

  test('each context ends once its own condition holds; exit 0 when every context met it', async () => {
    const w = startKdyn([...forReady, '--timeout', '60s'], toolEnv(), env.dir);
    try {
      // east is met at once and says so while west is still waiting.
      await w.until((out) => out.includes('east/configmap/gate condition met'), 20_000, 'east\'s condition met');
      assert.equal(w.child.exitCode, null);
      await cms('west').create(gate('Pending'));
      const pending = await cms('west').get('gate');
      await cms('west').update({ ...pending, data: { phase: 'Ready' } });
      const end = await w.exited;
      assert.equal(end.code, 0, w.err());
      assert.equal(w.out(), 'east/configmap/gate condition met\nwest/configmap/gate condition met\n');
      assert.equal(w.err(), '');
    } finally {
      w.child.kill('SIGKILL');
    }
  });

  test('--max-events ends every context as it ends a single-context --for: the lines of what is met, exit 0', async () => {
    await cms('east').delete('gate').catch(() => undefined);
    await cms('west').delete('gate').catch(() => undefined);
    await cms('east').create(gate('Ready'));
    // east's gate is the only event (west has none): the first event ends the run.
    const r = await kdyn([...forReady, '--timeout', '60s', '--max-events', '1']);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, 'east/configmap/gate condition met\n');
    assert.equal(r.err, '');
  });

  test('one context, several namespaces: one wait over them all, as a single-context watch (no context in the lines)', async () => {
    const r = await kdyn(['watch', 'configmap', 'gate', '-n', 'demo,team-a', '--context', 'east', '--for', 'create', '--timeout', '0']);
    assert.equal(r.code, 1);
    assert.equal(r.out, 'configmap/gate condition met\nconfigmaps/gate: not found\n');
    assert.equal(r.err, 'error: condition not met for configmaps/gate\n');
  });
});

describe('fleet apply', () => {
  test('the same manifests to each context; one failing context: its line and summary, the others applied, exit 1', async () => {
    const file = join(env.dir, 'app.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fleet-app\n  namespace: demo\ndata:\n  a: "1"\n');
    const fault = env.servers.get('locked')!.faults.add({ method: 'PATCH', path: /\/configmaps\/fleet-app/, status: 403, body: FORBIDDEN('patch') });
    try {
      const dry = await kdyn(['apply', '-f', file, '--context', 'east,west,locked', '--dry-run=server']);
      assert.equal(dry.code, 1);
      assert.equal(dry.out, 'east/configmap/fleet-app serverside-applied (server dry run)\nwest/configmap/fleet-app serverside-applied (server dry run)\n');
      assert.ok(!hasObject('east', 'fleet-app'), 'a dry run persists nothing');

      const r = await kdyn(['apply', '-f', file, '--context', 'east,west,locked']);
      assert.equal(r.code, 1);
      assert.equal(r.out, 'east/configmap/fleet-app serverside-applied\nwest/configmap/fleet-app serverside-applied\n');
      const err = r.err.split('\n').filter((l) => l !== '');
      assert.deepEqual(err.map((l) => l.replace(/: .*/, '')), ['context "east"', 'context "west"', 'error', 'context "locked"']);
      assert.match(err[0]!, /^context "east": 1 object: 1 succeeded, 0 failed$/);
      assert.match(err[2]!, /^error: context "locked": Error from server \(Forbidden\): error when applying configmap\/fleet-app from ".*app\.yaml" document 1: /);
      assert.match(err[3]!, /^context "locked": 1 object: 0 succeeded, 1 failed$/);
      assert.ok(hasObject('east', 'fleet-app') && hasObject('west', 'fleet-app') && !hasObject('locked', 'fleet-app'));
    } finally {
      fault.times = fault.hits;
    }
  });

  test('a context that is down: one line; -o json: a List per context with its context', async () => {
    const file = join(env.dir, 'app2.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fleet-app2\n  namespace: demo\n');
    const r = await kdyn(['apply', '-f', file, '--context', 'gone,north', '-o', 'json']);
    assert.equal(r.code, 1);
    const doc = JSON.parse(r.out) as { kind: string; context: string; items: Array<{ metadata: { name: string } }> };
    assert.deepEqual([doc.kind, doc.context, doc.items[0]!.metadata.name], ['List', 'north', 'fleet-app2']);
    assert.match(r.err, /^error: context "gone": .*refused/);
    assert.match(r.err, /\ncontext "north": 1 object: 1 succeeded, 0 failed\n$/);
  });

  test('--wait: per context; a context whose objects do not become ready is one line per object and fails, exit 1', async () => {
    const file = join(env.dir, 'deploy.yaml');
    writeFileSync(file, 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: waited\n  namespace: demo\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: waited}\n  template:\n    metadata:\n      labels: {app: waited}\n    spec:\n      containers: [{name: c, image: nginx}]\n');
    // A stand-in for east's deployment controller: it completes the rollout; west has none.
    const east = env.servers.get('east')!;
    const stop = east.store.subscribe((e) => {
      const o = e.object as { metadata: { name: string; generation?: number }; status?: { observedGeneration?: number } };
      if (e.type === 'DELETED' || o.metadata.name !== 'waited' || o.status?.observedGeneration === o.metadata.generation) return;
      queueMicrotask(() => {
        const cur = structuredClone(east.store.get('apps', 'deployments', 'demo', 'waited'));
        if (!cur) return;
        cur.status = { observedGeneration: cur.metadata.generation ?? 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 };
        east.store.update('apps', 'deployments', cur);
      });
    });
    try {
      // east's rollout must be seen before the timeout: 5 s leaves room for a loaded machine.
      const r = await kdyn(['apply', '-f', file, '--context', 'east,west', '--wait', '--timeout', '5s']);
      assert.equal(r.code, 1);
      assert.equal(r.out, 'east/deployment.apps/waited serverside-applied\nwest/deployment.apps/waited serverside-applied\n');
      const err = r.err.split('\n').filter((l) => l !== '');
      assert.equal(err.length, 3, r.err);
      assert.equal(err[0], 'context "east": 1 object: 1 succeeded, 0 failed; 1 ready');
      assert.match(err[1]!, /^error: context "west": timed out waiting for deployment\.apps\/waited: Waiting for deployment/);
      assert.equal(err[2], 'context "west": 1 object: 1 succeeded, 0 failed; 0 ready');
    } finally {
      stop();
    }
  });

  test('--dry-run=client: per context what a single-context client dry run prints, its context named; nothing sent', async () => {
    const file = join(env.dir, 'client.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: client-app\n  namespace: demo\n---\napiVersion: only.example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n  namespace: demo\n');
    // The Gadget type exists in north only: each context maps the manifests with its own discovery.
    await clientFor(env.servers.get('north')!).resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }, { namespaced: false }).create(simpleCrd({ group: 'only.example.com', plural: 'gadgets', kind: 'Gadget' }) as Unstructured);
    for (const srv of env.servers.values()) srv.clearLog();
    const single = await kdyn(['apply', '-f', file, '--context', 'north', '--dry-run=client']);
    assert.equal(single.code, 0, single.err);
    assert.equal(single.err, '2 objects: 2 would be sent, 0 failed (client dry run)\n');
    const r = await kdyn(['apply', '-f', file, '--context', 'north,east', '--dry-run=client']);
    assert.equal(r.code, 1);
    // east cannot map the Gadget: as a single-context client dry run there, the context prints nothing and fails.
    assert.equal(r.out.replaceAll('# context "north": ', '# '), single.out);
    assert.deepEqual(r.err.split('\n').filter((l) => l !== ''), [
      'context "north": 2 objects: 2 would be sent, 0 failed (client dry run)',
      'error: context "east": resource mapping not found for name: "g" namespace: "demo" from "' + file + '" document 2: no matches for kind "Gadget" in version "only.example.com/v1"; ensure CRDs are installed first',
    ]);
    const cm = join(env.dir, 'client-cm.yaml');
    writeFileSync(cm, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: client-app\n');
    const text = await kdyn(['apply', '-f', cm, '--context', 'north,east', '--dry-run=client']);
    assert.equal(text.code, 0, text.err);
    // Each context fills in its own namespace (north's and east's: default); one YAML stream.
    assert.equal(text.out, ['north', 'east'].map((c) => `# context "${c}": PATCH /api/v1/namespaces/default/configmaps/client-app?fieldManager=kdyn&fieldValidation=Strict&force=false\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: client-app\n  namespace: default\n`).join('---\n'));
    assert.equal(text.err, 'context "north": 1 object: 1 would be sent, 0 failed (client dry run)\ncontext "east": 1 object: 1 would be sent, 0 failed (client dry run)\n');
    const names = await kdyn(['apply', '-f', cm, '--context', 'north,east', '--dry-run=client', '-o', 'name']);
    assert.equal(names.out, 'north/configmap/client-app\neast/configmap/client-app\n');
    for (const srv of env.servers.values()) assert.deepEqual(srv.requestLog.filter((e) => e.method !== 'GET'), [], 'a client dry run sends nothing');
    assert.ok(!hasObject('north', 'client-app'));
  });
});
