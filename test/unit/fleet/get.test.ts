// The one fetch path of `get` (src/fleet/get.ts visitGet) over local API servers: one context is a
// fleet of one. Each context's pages reach the visitor tagged with the context and the resource,
// a context's errors stay its own, every-request-failed is `failed`, and the outcomes settle in the
// selection's order. No printing involved: the visitor records what it is given.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { compose } from '../../../src/connect.js';
import { StatusError } from '../../../src/core/errors.js';
import type { Table } from '../../../src/core/table.js';
import type { Unstructured } from '../../../src/core/unstructured.js';
import { visitGet, type ContextFetched, type ContextPlan, type FetchGetOptions, type Member } from '../../../src/fleet/get.js';
import type { ContextResult } from '../../../src/fleet/fanout.js';
import { startFleetEnv, type FleetEnv } from '../../support/fleet-env.js';

let env: FleetEnv;
before(async () => {
  env = await startFleetEnv({ contexts: ['east', 'west'], down: ['gone'], server: { seed: 'demo' }, namespaces: { east: 'demo', west: 'team-a' } });
});
after(() => env.stop());

const open = (context: string): Member => compose({ flags: { context }, env: { HOME: env.dir, KUBECONFIG: env.kubeconfig }, cwd: env.dir, cacheDir: `${env.dir}/cache` });

interface Seen {
  starts: Array<[string, ContextPlan]>;
  pages: Array<[string, Unstructured[] | Table, string]>;
  done: string[];
  settled: Array<ContextResult<ContextFetched>>;
}

async function fetch(contexts: string[], o: Partial<FetchGetOptions> & { args: string[] }): Promise<Seen> {
  const seen: Seen = { starts: [], pages: [], done: [], settled: [] };
  await visitGet(contexts, open, { allNamespaces: false, chunkSize: 500, ignoreNotFound: false, ...o }, {
    start: (context, plan) => void seen.starts.push([context, plan]),
    page: (context, page, resource) => void seen.pages.push([context, page, resource.mapping.gvr.resource]),
    done: (context) => void seen.done.push(context),
    settled: (r) => void seen.settled.push(r),
  });
  return seen;
}

const names = (page: Unstructured[] | Table) => (Array.isArray(page) ? page.map((o) => o.metadata?.name) : (page.rows ?? []).map((r) => r.cells?.[0]));

test('one context: its own namespace, objects page by page, one plan, settled ok', async () => {
  const seen = await fetch(['east'], { args: ['configmaps'] });
  assert.equal(seen.starts.length, 1);
  const [context, plan] = seen.starts[0]!;
  assert.equal(context, 'east');
  assert.deepEqual({ single: plan.singleItemImplied, ns: plan.namespace, withNamespace: plan.withNamespace, args: plan.resources.map((r) => r.arg) }, { single: false, ns: 'demo', withNamespace: false, args: ['configmaps'] });
  assert.deepEqual(seen.pages.map(([c, p, r]) => [c, r, names(p).includes('app-config')]), [['east', 'configmaps', true]]);
  assert.deepEqual(seen.done, ['east']);
  assert.deepEqual(seen.settled.map((r) => r.ok && r.value), [{ failed: false, errors: [] }]);
});

test('several contexts: pages tagged with their context, each in its own namespace; a context that is down settles with its error, in order', async () => {
  const seen = await fetch(['gone', 'east', 'west'], { args: ['configmaps'] });
  assert.deepEqual(seen.settled.map((r) => [r.context, r.ok]), [['gone', false], ['east', true], ['west', true]]);
  assert.match(String((seen.settled[0] as { error: Error }).error.message), /refused/);
  assert.deepEqual(seen.starts.map(([c, p]) => [c, p.namespace]).sort(), [['east', 'demo'], ['west', 'team-a']]);
  const byContext = (c: string) => seen.pages.filter(([pc]) => pc === c).flatMap(([, p]) => names(p));
  assert.ok(byContext('east').includes('app-config') && !byContext('east').includes('team-settings'));
  assert.ok(byContext('west').includes('team-settings') && !byContext('west').includes('app-config'));
});

test('several namespaces: one request per namespace, one resource for the printer, withNamespace; a named object missing is the context\'s error', async () => {
  const seen = await fetch(['east'], { args: ['configmaps', 'app-config'], namespaces: ['demo', 'team-a'] });
  const [, plan] = seen.starts[0]!;
  assert.deepEqual([plan.withNamespace, plan.namespace, plan.singleItemImplied], [true, undefined, false]);
  assert.deepEqual(seen.pages.map(([, p]) => names(p)), [['app-config']]);
  const r = seen.settled[0]!;
  assert.ok(r.ok && !r.value.failed && r.value.errors.length === 1);
  const e = r.value.errors[0];
  assert.ok(e instanceof StatusError && e.code === 404 && e.status.details?.name === 'app-config');
  const quiet = await fetch(['east'], { args: ['configmaps', 'app-config'], namespaces: ['demo', 'team-a'], ignoreNotFound: true });
  assert.deepEqual(quiet.settled.map((s) => s.ok && s.value.errors.length), [0]);
});

test('tables: the server\'s Tables; -A asks each row for its metadata (the NAMESPACE column)', async () => {
  const seen = await fetch(['west'], { args: ['configmaps'], allNamespaces: true, table: { includeObject: 'None', unchunked: false } });
  const tables = seen.pages.map(([, p]) => p as Table);
  assert.ok(tables.length > 0 && tables.every((t) => t.kind === 'Table'));
  const namespaces = tables.flatMap((t) => (t.rows ?? []).map((r) => (r.object as Unstructured | null | undefined)?.metadata?.namespace));
  assert.ok(namespaces.includes('demo') && namespaces.includes('team-a'), String(namespaces));
  const plain = await fetch(['west'], { args: ['configmaps'], table: { includeObject: 'None', unchunked: false } });
  assert.ok((plain.pages[0]![1] as Table).rows!.every((r) => (r.object as Unstructured | null | undefined)?.metadata === undefined));
});

test('every request of a context failing makes it failed, with kubectl\'s wording of the failed list', async () => {
  const seen = await fetch(['east', 'west'], { args: ['configmaps'], fieldSelector: 'bad' });
  assert.deepEqual(seen.pages, []);
  for (const r of seen.settled) {
    assert.ok(r.ok && r.value.failed && r.value.errors.length === 1);
    assert.match(String((r.value.errors[0] as Error).message), /Unable to find "\/v1, Resource=configmaps" that match label selector "", field selector "bad": invalid selector/);
  }
  // One request answered is enough: the context is not failed, its error stays.
  const some = await fetch(['east'], { args: ['configmaps,secrets', 'app-config'] });
  assert.ok(some.settled[0]!.ok && !some.settled[0]!.value.failed && some.settled[0]!.value.errors.length === 1);
});

test('one object named: singleItemImplied with one namespace only', async () => {
  const one = await fetch(['east'], { args: ['configmap/app-config'] });
  assert.equal(one.starts[0]![1].singleItemImplied, true);
  const two = await fetch(['east'], { args: ['configmap/app-config'], namespaces: ['demo', 'team-a'] });
  assert.equal(two.starts[0]![1].singleItemImplied, false);
});
