/**
 * Fleet reads (issue 24), the built CLI against several local API servers and one kubeconfig with a
 * context each: `-n a,b`, `--context a,b`, globs, `--all-contexts`, every output format, a cluster
 * that is down, a cluster that forbids the request, a CRD created or deleted in one cluster after its
 * discovery cache was written, `--request-timeout` bounding a slow cluster, and one plain
 * `--context` staying byte for byte today's output (and kubectl's).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { load, loadAll } from 'js-yaml';
import { FakeClock } from '../../src/core/clock.js';
import { startFleetEnv, type FleetEnv } from '../support/fleet-env.js';
import { hasKubectl, runCommand, runKdyn, type Run, type RunOptions } from '../support/cli.js';
import { simpleCrd } from '../support/apiserver/crds.js';
import type { Unstructured } from '../../src/core/unstructured.js';
import { clientFor } from './watch-helpers.js';

let env: FleetEnv;
/** The servers' clock: a fault's delay ends when it is advanced. */
const serverClock = new FakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));
const kdyn = (args: string[], o: Pick<RunOptions, 'onStdout'> = {}): Promise<Run> => runKdyn(args, { env: { PATH: process.env.PATH, HOME: env.dir, KUBECONFIG: env.kubeconfig }, cwd: env.dir, ...o });
const FORBIDDEN = JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'configmaps is forbidden: User "viewer" cannot list resource "configmaps" in API group "" in the namespace "demo"', reason: 'Forbidden', details: { kind: 'configmaps' }, code: 403 });

before(async () => {
  env = await startFleetEnv({
    contexts: ['prod-east', 'prod-west', 'staging', 'locked'],
    down: ['prod-down'],
    server: { clock: serverClock },
    namespaces: { staging: 'team-a' },
  });
  env.servers.get('locked')!.faults.add({ path: /\/configmaps/, status: 403, body: FORBIDDEN });
});
after(() => env.stop());

const lines = (s: string) => s.split('\n').filter((l) => l !== '');
/**
 * `-o name` or `-o jsonl` output with its lines in the order of `contexts` (each context's own lines
 * in their order): those formats print each context's lines when it is done, whatever the others do.
 */
const inContextOrder = (out: string, contexts: string[]): string => {
  const contextOf = (l: string) => (l.startsWith('{') ? (JSON.parse(l) as { context: string }).context : l.split('/').slice(0, -2).join('/'));
  const all = lines(out);
  return all.map((l, i) => ({ l, i, at: contexts.indexOf(contextOf(l)) })).sort((a, b) => a.at - b.at || a.i - b.i).map((x) => `${x.l}\n`).join('');
};

describe('several namespaces', () => {
  test('-n a,b: one table with a NAMESPACE column, as with -A', async () => {
    const r = await kdyn(['get', 'configmaps', '-n', 'demo,kube-system', '--context', 'prod-east']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^NAMESPACE +NAME +DATA +AGE\ndemo +app-config +2 /);
    assert.doesNotMatch(r.out, /CONTEXT/);
  });
  test('-n a,b -o name: the single-context lines', async () => {
    const r = await kdyn(['get', 'configmaps', '-n', 'demo,team-a', '-o', 'name', '--context', 'prod-east']);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, 'configmap/app-config\nconfigmap/team-settings\n');
  });
  test('-n a,b with -A is a usage error', async () => {
    const r = await kdyn(['get', 'configmaps', '-n', 'demo,team-a', '-A']);
    assert.equal(r.code, 2);
    assert.match(r.err, /^error: -n with several namespaces and -A/);
  });
  test('-n a,,b is a usage error naming the flag', async () => {
    const r = await kdyn(['get', 'configmaps', '-n', 'demo,,team-a']);
    assert.equal(r.code, 2);
    assert.match(r.err, /empty namespace in the list/);
  });
});

describe('several contexts', () => {
  test('--context a,b: CONTEXT first, every context in the order given', async () => {
    const r = await kdyn(['get', 'configmaps', '-n', 'demo', '--context', 'staging,prod-east']);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(lines(r.out).map((l) => l.split(/ +/).slice(0, 2).join(' ')), ['CONTEXT NAME', 'staging app-config', 'prod-east app-config']);
  });
  test('a glob: its matches sorted; a context namespace applies per context', async () => {
    const r = await kdyn(['get', 'configmaps', '--context', 'prod-[ew]*,staging', '-o', 'name']);
    assert.equal(r.code, 0, r.err);
    // prod-east and prod-west use "default" (no configmaps there), staging its own "team-a"
    assert.equal(r.out, 'staging/configmap/team-settings\n');
    const named = await kdyn(['get', 'namespaces', 'demo', '--context', 'prod-*t', '-o', 'name']);
    assert.equal(inContextOrder(named.out, ['prod-east', 'prod-west']), 'prod-east/namespace/demo\nprod-west/namespace/demo\n');
  });
  test('a glob that matches nothing, a context that does not exist: an error naming it, nothing sent', async () => {
    const none = await kdyn(['get', 'ns', '--context', 'dev-*']);
    assert.equal(none.code, 1);
    assert.match(none.err, /^error: --context pattern "dev-\*" matches no context in kubeconfig /);
    const missing = await kdyn(['get', 'ns', '--context', 'prod-east,nope']);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /^error: context "nope" does not exist in kubeconfig /);
    assert.equal(missing.out, '');
  });
  test('--all-contexts: every context; the one that is down and the one that forbids are one line each, exit 1', async () => {
    const r = await kdyn(['get', 'configmaps', '-n', 'demo', '--all-contexts']);
    assert.equal(r.code, 1);
    assert.deepEqual(lines(r.out).map((l) => l.split(/ +/)[0]), ['CONTEXT', 'prod-east', 'prod-west', 'staging']);
    const err = lines(r.err);
    assert.equal(err.length, 2, r.err);
    assert.match(err[0]!, /^error: context "locked": Error from server \(Forbidden\): configmaps is forbidden: /);
    assert.match(err[1]!, /^error: context "prod-down": The connection to the server 127\.0\.0\.1:\d+ was refused/);
  });
  test('--context and --all-contexts together: a usage error', async () => {
    const r = await kdyn(['get', 'ns', '--context', 'a', '--all-contexts']);
    assert.equal(r.code, 2);
  });
});

describe('every output format over several contexts', () => {
  const ctx = ['--context', 'prod-east,staging', '-n', 'demo'];
  test('-o wide: CONTEXT first', async () => {
    const r = await kdyn(['get', 'rockets', ...ctx, '-o', 'wide']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^CONTEXT +NAME +STAGE +ENGINES +PAD +AGE\nprod-east +electron /);
  });
  test('-A: CONTEXT, then NAMESPACE', async () => {
    const r = await kdyn(['get', 'rockets', '--context', 'prod-east,staging', '-A']);
    assert.match(r.out, /^CONTEXT +NAMESPACE +NAME +STAGE/);
  });
  test('several types: kind/name, one table per type', async () => {
    const r = await kdyn(['get', 'rockets,configmaps', ...ctx]);
    assert.match(r.out, /^CONTEXT +NAME .*\nprod-east +rocket\.demo\.kdyn\.dev\/electron[^]*\n\nCONTEXT +NAME +DATA +AGE\nprod-east +configmap\/app-config/);
  });
  test('-o name: CONTEXT/kind/name', async () => {
    const r = await kdyn(['get', 'configmaps', ...ctx, '-o', 'name']);
    assert.equal(inContextOrder(r.out, ['prod-east', 'staging']), 'prod-east/configmap/app-config\nstaging/configmap/app-config\n');
  });
  test('-o jsonl: {"context","object"} per object, objects unchanged', async () => {
    const r = await kdyn(['get', 'configmaps', ...ctx, '-o', 'jsonl']);
    const recs = lines(inContextOrder(r.out, ['prod-east', 'staging'])).map((l) => JSON.parse(l) as { context: string; object: { metadata: { name: string; managedFields?: unknown } } });
    assert.deepEqual(recs.map((x) => [x.context, x.object.metadata.name]), [['prod-east', 'app-config'], ['staging', 'app-config']]);
    assert.deepEqual(Object.keys(recs[0]!), ['context', 'object']);
    assert.equal(recs[0]!.object.metadata.managedFields, undefined);
  });
  test('-o json: a List per context with its context (a stream of documents)', async () => {
    const r = await kdyn(['get', 'configmaps', ...ctx, '-o', 'json']);
    const docs = r.out.split(/(?<=^})\n(?={)/m).map((d) => JSON.parse(d) as { kind: string; context: string; items: unknown[] });
    assert.deepEqual(docs.map((d) => [d.kind, d.context, d.items.length]), [['List', 'prod-east', 1], ['List', 'staging', 1]]);
  });
  test('-o yaml: a List per context, documents separated by ---', async () => {
    const r = await kdyn(['get', 'configmaps', ...ctx, '-o', 'yaml']);
    const docs = loadAll(r.out) as Array<{ context: string; items: Array<{ metadata: { name: string } }> }>;
    assert.deepEqual(docs.map((d) => [d.context, d.items[0]!.metadata.name]), [['prod-east', 'app-config'], ['staging', 'app-config']]);
  });
  test('-o jsonpath: applied to each context\'s List, {.context} available', async () => {
    const r = await kdyn(['get', 'configmaps', ...ctx, '-o', 'jsonpath={.context}={.items[*].metadata.name}{"\\n"}']);
    assert.equal(r.out, 'prod-east=app-config\nstaging=app-config\n');
  });
  test('-o go-template: the same List per context', async () => {
    const r = await kdyn(['get', 'configmaps', ...ctx, '-o', 'go-template={{.context}}{{range .items}} {{.metadata.name}}{{end}}{{"\\n"}}']);
    assert.equal(r.out, 'prod-east app-config\nstaging app-config\n');
  });
  test('-o custom-columns: one table, CONTEXT then the user\'s columns, every context in order', async () => {
    const r = await kdyn(['get', 'configmaps', ...ctx, '-o', 'custom-columns=N:.metadata.name,KEYS:.data.*']);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, 'CONTEXT     N            KEYS\nprod-east   app-config   a,b,info\nstaging     app-config   a,b,info\n');
  });
  test('-o custom-columns-file, --no-headers and --sort-by (within each context)', async () => {
    const file = `${env.dir}/columns.txt`;
    writeFileSync(file, 'NAME   NAMESPACE\n.metadata.name   .metadata.namespace\n');
    const r = await kdyn(['get', 'configmaps', '--context', 'staging,prod-east', '-A', '-o', `custom-columns-file=${file}`, '--sort-by', '{.metadata.name}', '--no-headers']);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, 'staging     app-config      demo\nstaging     team-settings   team-a\nprod-east   app-config      demo\nprod-east   team-settings   team-a\n');
  });
  test('-o custom-columns with one context and several namespaces: the single-context -A output (the user\'s columns only)', async () => {
    const spec = 'custom-columns=N:.metadata.name,NS:.metadata.namespace';
    const [r, all] = await Promise.all([kdyn(['get', 'configmaps', '-n', 'demo,team-a', '--context', 'staging', '-o', spec]), kdyn(['get', 'configmaps', '-A', '--context', 'staging', '-o', spec])]);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, 'N               NS\napp-config      demo\nteam-settings   team-a\n');
    assert.equal(r.out, all.out);
  });
  test('-o custom-columns: a cluster down and a path failing in one context: one line each, the rows before kept, exit 1', async () => {
    // `.spec.engines[0]` fails on a rocket (engines is a number), after the configmaps' rows, as a single-context get does.
    const spec = 'custom-columns=N:.metadata.name,E:.spec.engines[0]';
    const single = await kdyn(['get', 'configmaps,rockets', '-n', 'demo', '--context', 'prod-east', '-o', spec]);
    assert.equal(single.out, 'N            E\napp-config   <none>\n');
    assert.equal(single.err, 'error: int64 is not array or slice\n');
    const r = await kdyn(['get', 'configmaps,rockets', '-n', 'demo', '--context', 'prod-down,prod-east', '-o', spec]);
    assert.equal(r.code, 1);
    assert.equal(r.out, 'CONTEXT     N            E\nprod-east   app-config   <none>\n');
    assert.deepEqual(lines(r.err).map((l) => l.replace(/: The connection .*/, ': refused')), ['error: context "prod-down": refused', 'error: context "prod-east": int64 is not array or slice']);
  });
  test('a named object missing in one context: its NotFound line names the context, the others print', async () => {
    const notFound = JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'configmaps "app-config" not found', reason: 'NotFound', details: { name: 'app-config', kind: 'configmaps' }, code: 404 });
    env.servers.get('prod-east')!.faults.add({ path: /\/configmaps\/app-config$/, status: 404, body: notFound, times: 1 });
    const r = await kdyn(['get', 'configmap', 'app-config', ...ctx, '-o', 'name']);
    assert.equal(r.out, 'staging/configmap/app-config\n');
    assert.equal(r.err, 'error: context "prod-east": Error from server (NotFound): configmaps "app-config" not found\n');
    assert.equal(r.code, 1);
  });
});

describe('a slow cluster', () => {
  test('--request-timeout bounds each cluster: the slow one fails alone', async () => {
    const f = env.servers.get('prod-west')!.faults.add({ path: /\/configmaps/, delayMs: 60_000 });
    // prod-west's clock is the fake one: its delay never ends; the client's timeout (real time) does.
    // prod-east must answer within it: 5 s leaves room for a loaded machine.
    try {
      const r = await kdyn(['get', 'configmaps', '-n', 'demo', '--context', 'prod-east,prod-west', '--request-timeout', '5s', '-o', 'name']);
      assert.equal(r.code, 1);
      assert.equal(r.out, 'prod-east/configmap/app-config\n');
      assert.match(r.err, /^error: context "prod-west": .*(timeout|Timeout|timed out)/);
      assert.equal(lines(r.err).length, 1);
    } finally {
      f.times = f.hits; // no more
    }
  });
});

describe('a hanging context', () => {
  test('-o name and -o jsonl: each context\'s lines as soon as it is done, not held back by an earlier one', async () => {
    const server = env.servers.get('prod-west')!;
    for (const format of ['name', 'jsonl']) {
      // prod-west, first, answers only when the servers' clock moves on: once prod-east's line is out.
      const f = server.faults.add({ path: /\/configmaps/, delayMs: 60_000 });
      let released = false;
      try {
        const r = await kdyn(['get', 'configmaps', '-n', 'demo', '--context', 'prod-west,prod-east', '-o', format], {
          onStdout: (out) => {
            if (released || !out.includes('prod-east')) return;
            released = true;
            serverClock.advance(60_000);
          },
        });
        assert.equal(r.code, 0, r.err);
        const contexts = lines(r.out).map((l) => (format === 'name' ? l.split('/')[0] : (JSON.parse(l) as { context: string }).context));
        assert.deepEqual(contexts, ['prod-east', 'prod-west'], 'prod-east while prod-west hung, then prod-west');
      } finally {
        f.times = f.hits;
      }
    }
  });
});

describe('api-resources over several contexts', () => {
  test('a CONTEXT column; -o name prefixed; -o json rows carry their context', async () => {
    const t = await kdyn(['api-resources', '--context', 'prod-east,staging', '--api-group', 'apps']);
    assert.equal(t.code, 0, t.err);
    assert.match(t.out, /^CONTEXT +NAME +SHORTNAMES +APIVERSION +NAMESPACED +KIND\nprod-east +controllerrevisions /);
    assert.equal(lines(t.out).length, 11);
    const n = await kdyn(['api-resources', '--context', 'prod-east,staging', '--api-group', 'apps', '-o', 'name']);
    assert.equal(lines(n.out)[0], 'prod-east/controllerrevisions.apps');
    const j = await kdyn(['api-resources', '--context', 'staging,prod-east', '--api-group', 'apps', '-o', 'json']);
    const rows = JSON.parse(j.out) as Array<{ context: string; name: string }>;
    assert.deepEqual([rows[0]!.context, rows[5]!.context], ['staging', 'prod-east']);
    const y = await kdyn(['api-resources', '--context', 'staging', '--all-contexts']);
    assert.equal(y.code, 2);
  });
  test('each context revalidates, as one context does: a CRD created in one since the warm run is listed for it', async () => {
    assert.equal((await kdyn(['api-resources', '--context', 'prod-east,staging'])).code, 0); // warm
    const crds = clientFor(env.servers.get('staging')!).resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }, { namespaced: false });
    await crds.create(simpleCrd({ group: 'fleetfresh.kdyn.io', plural: 'gadgets', kind: 'Gadget' }) as Unstructured);
    try {
      const r = await kdyn(['api-resources', '--context', 'prod-east,staging', '--api-group', 'fleetfresh.kdyn.io', '-o', 'name']);
      assert.equal(r.code, 0, r.err);
      assert.deepEqual(lines(r.out), ['staging/gadgets.fleetfresh.kdyn.io']);
    } finally {
      await crds.delete('gadgets.fleetfresh.kdyn.io');
    }
  });
  test('a cluster down: one line, the others printed, exit 1', async () => {
    const r = await kdyn(['api-resources', '--context', 'prod-down,prod-east', '--api-group', 'apps', '-o', 'name']);
    assert.equal(r.code, 1);
    assert.equal(lines(r.out).length, 5);
    assert.match(r.err, /^error: context "prod-down": /);
  });
});

describe('discovery per context, as a single-context get', () => {
  const crds = (context: string) => clientFor(env.servers.get(context)!).resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }, { namespaced: false });
  const create = async (context: string, group: string, plural: string, kind: string) => {
    await crds(context).create(simpleCrd({ group, plural, kind }) as Unstructured);
    await clientFor(env.servers.get(context)!).resource({ group, version: 'v1', resource: plural }, { namespaced: true }).namespace('demo').create({ apiVersion: `${group}/v1`, kind, metadata: { name: `${context}-${kind.toLowerCase()}` } });
  };
  const both = ['--context', 'prod-east,prod-west', '-n', 'demo'];

  test('a CRD created in one cluster after its cache was written: found there (one refetch), the other says it has no such type, exit 1', async () => {
    const warm = await kdyn(['get', 'configmaps', ...both, '-o', 'name']);
    assert.equal(warm.code, 0, warm.err);
    await create('prod-east', 'fresh.example.com', 'gadgets', 'Gadget');
    for (const s of env.servers.values()) s.clearLog();
    const r = await kdyn(['get', 'gadgets', ...both]);
    assert.equal(r.code, 1);
    assert.match(r.out, /^CONTEXT +NAME +AGE\nprod-east +prod-east-gadget +/);
    assert.equal(lines(r.out).length, 2);
    assert.equal(r.err, 'error: context "prod-west": the server doesn\'t have a resource type "gadgets"\n');
    // Each context asked its own discovery again, once.
    for (const c of ['prod-east', 'prod-west']) assert.equal(env.servers.get(c)!.requestLog.filter((e) => e.path === '/apis').length, 1, c);
  });

  test('a CRD deleted in one cluster while its cache maps the name: that context maps it again and lists the new group', async () => {
    for (const c of ['prod-east', 'prod-west']) await create(c, 'a.example.com', 'gizmos', 'Gizmo');
    const first = await kdyn(['get', 'gizmos', ...both, '-o', 'name']);
    assert.equal(inContextOrder(first.out, ['prod-east', 'prod-west']), 'prod-east/gizmo.a.example.com/prod-east-gizmo\nprod-west/gizmo.a.example.com/prod-west-gizmo\n', first.err);
    // In prod-east another group takes the name over; prod-east's cache (fresh for 10 minutes) still says a.example.com.
    await create('prod-east', 'b.example.com', 'gizmos', 'Gizmo');
    await crds('prod-east').delete('gizmos.a.example.com');
    const r = await kdyn(['get', 'gizmos', ...both, '-o', 'name']);
    assert.equal(r.code, 0, r.err);
    assert.equal(inContextOrder(r.out, ['prod-east', 'prod-west']), 'prod-east/gizmo.b.example.com/prod-east-gizmo\nprod-west/gizmo.a.example.com/prod-west-gizmo\n');
    // Gone everywhere in prod-west: the unknown-name error there, named.
    await crds('prod-west').delete('gizmos.a.example.com');
    const gone = await kdyn(['get', 'gizmos', ...both, '-o', 'name']);
    assert.equal(gone.code, 1);
    assert.equal(gone.out, 'prod-east/gizmo.b.example.com/prod-east-gizmo\n');
    assert.equal(gone.err, 'error: context "prod-west": the server doesn\'t have a resource type "gizmos"\n');
  });

  test('a namespaced CRD replaced by a cluster-scoped one under its name, with -n a,b: that context lists it once, not once per namespace', async () => {
    for (const c of ['prod-east', 'prod-west']) await create(c, 'n.example.com', 'widgets', 'Widget');
    const ns = ['--context', 'prod-east,prod-west', '-n', 'demo,default', '-o', 'name'];
    const first = await kdyn(['get', 'widgets', ...ns]);
    assert.equal(inContextOrder(first.out, ['prod-east', 'prod-west']), 'prod-east/widget.n.example.com/prod-east-widget\nprod-west/widget.n.example.com/prod-west-widget\n', first.err);
    // In prod-east a cluster-scoped CRD takes the name over; its cache (fresh for 10 minutes) still maps the namespaced one.
    await crds('prod-east').create(simpleCrd({ group: 'm.example.com', plural: 'widgets', kind: 'Widget', scope: 'Cluster' }) as Unstructured);
    await clientFor(env.servers.get('prod-east')!).resource({ group: 'm.example.com', version: 'v1', resource: 'widgets' }, { namespaced: false }).create({ apiVersion: 'm.example.com/v1', kind: 'Widget', metadata: { name: 'cluster-widget' } });
    await crds('prod-east').delete('widgets.n.example.com');
    const r = await kdyn(['get', 'widgets', ...ns]);
    assert.equal(r.code, 0, r.err);
    assert.equal(inContextOrder(r.out, ['prod-east', 'prod-west']), 'prod-east/widget.m.example.com/cluster-widget\nprod-west/widget.n.example.com/prod-west-widget\n');
  });
});

describe('one context: today\'s output', () => {
  test('--context NAME prints what the current context prints (no CONTEXT column)', async () => {
    const a = await kdyn(['get', 'rockets', '-n', 'demo', '--context', 'prod-east']);
    const b = await kdyn(['get', 'rockets', '-n', 'demo']);
    assert.equal(a.out, b.out);
    assert.match(a.out, /^NAME +STAGE/);
  });
  test('byte for byte with kubectl --context NAME', async (t) => {
    if (!hasKubectl()) return t.skip('kubectl not on PATH');
    const args = ['get', 'rockets', '-n', 'demo', '--context', 'prod-west'];
    const [k, c] = await Promise.all([kdyn(args), runCommand('kubectl', args, { env: { PATH: process.env.PATH, HOME: `${env.dir}/kubectl-home`, KUBECONFIG: env.kubeconfig }, cwd: env.dir })]);
    assert.equal(c.code, 0, c.err);
    assert.equal(k.out, c.out);
  });
  test('-o json with one plain context is one List without a context field', async () => {
    const r = await kdyn(['get', 'configmaps', '-n', 'demo', '--context', 'prod-east', '-o', 'json']);
    const doc = load(r.out) as Record<string, unknown>;
    assert.equal(doc.context, undefined);
    assert.equal(doc.kind, 'List');
  });
});
