// The one watch path over contexts (src/fleet/watch.ts, issue 36): one context is a fleet of one;
// events come tagged with their context, --max-events counts over every context, a context that
// cannot start is reported alone, and stop() says whether it stopped the run. Local API servers on
// real sockets, one kubeconfig.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { compose } from '../../../src/connect.js';
import { watchContexts } from '../../../src/fleet/watch.js';
import { watchTargets } from '../../../src/watch/targets.js';
import { startFleetEnv, type FleetEnv } from '../../support/fleet-env.js';

let env: FleetEnv;
before(async () => {
  env = await startFleetEnv({ contexts: ['east', 'west'], down: ['gone'], server: { seed: 'demo' } });
});
after(() => env.stop());

const open = (context: string) => compose({ flags: { context }, env: { HOME: env.dir, KUBECONFIG: env.kubeconfig }, cwd: env.dir, cacheDir: `${env.dir}/cache-${context}` });

test('a fleet of one: the events tagged with the context, --max-events ends the run (done)', async () => {
  const seen: string[] = [];
  const ends: Array<[string, string | undefined]> = [];
  const w = watchContexts(['east'], open, {
    args: ['configmaps'],
    allNamespaces: true,
    watch: {},
    maxEvents: 2,
    onEvents: (context, events) => seen.push(...events.map((e) => `${context} ${e.type}`)),
    onError: (context, e) => assert.fail(`${context}: ${String(e)}`),
    onEnd: (context, r) => ends.push([context, r.reason]),
  });
  const result = await w.result;
  assert.deepEqual(seen, ['east ADDED', 'east ADDED']);
  assert.deepEqual(result, { reason: 'done', failures: 0 });
  assert.deepEqual(ends, [['east', 'done']]);
  assert.equal(w.stop('SIGINT'), false, 'a run that ended is not stopped again');
});

test('several contexts: a context that cannot start is reported alone; stop() stops the others once', async () => {
  const started: string[] = [];
  const errors: string[] = [];
  const contexts = new Set<string>();
  let w: ReturnType<typeof watchContexts> | undefined;
  const stopped: boolean[] = [];
  w = watchContexts(['gone', 'east', 'west'], open, {
    args: ['configmaps'],
    namespaces: ['demo'],
    allNamespaces: false,
    watch: {},
    onStart: (context, sources, plan) => {
      started.push(`${context}:${sources.map((s) => s.type).join(',')}:${plan.requests.length}`);
    },
    onEvents: (context) => {
      contexts.add(context);
      // Both live contexts have delivered their lists: stop the run, twice.
      if (contexts.size === 2) stopped.push(w!.stop('SIGTERM'), w!.stop('SIGINT'));
    },
    onError: (context, e) => errors.push(`${context}: ${/refused/.test(String(e)) ? 'refused' : String(e)}`),
  });
  const result = await w.result;
  assert.deepEqual(started.sort(), ['east:configmaps:1', 'west:configmaps:1']);
  assert.deepEqual(errors, ['gone: refused']);
  assert.deepEqual(stopped.slice(0, 2), [true, false]);
  assert.deepEqual(result, { reason: 'SIGTERM', failures: 1 });
});

test('watchTargets: each resource, name and namespace; cluster-scoped types once', async () => {
  const layers = open('east');
  try {
    const client = await layers.dynamic();
    const cm = { gvr: { group: '', version: 'v1', resource: 'configmaps' }, gvk: { group: '', version: 'v1', kind: 'ConfigMap' }, namespaced: true };
    const ns = { gvr: { group: '', version: 'v1', resource: 'namespaces' }, gvk: { group: '', version: 'v1', kind: 'Namespace' }, namespaced: false };
    const targets = watchTargets([{ mapping: cm, names: ['a', 'b'] }, { mapping: ns, names: [] }], client, ['x', 'y']);
    assert.deepEqual(targets.map((t) => `${t.type}/${t.name ?? '*'}`), ['configmaps/a', 'configmaps/b', 'configmaps/a', 'configmaps/b', 'namespaces/*']);
    assert.deepEqual(targets.map((t) => t.gk.kind), ['ConfigMap', 'ConfigMap', 'ConfigMap', 'ConfigMap', 'Namespace']);
  } finally {
    layers.close();
  }
});
