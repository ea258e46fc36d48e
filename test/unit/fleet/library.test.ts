// forEachContext (src/connect-contexts.ts), as a library user calls it: several local API servers and
// one kubeconfig; each context gets its own connection (its own server and token), results and
// errors come back by context in the selection's order.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { forEachContext } from '../../../src/connect-contexts.js';
import { resolveContexts } from '../../../src/fleet/contexts.js';
import { startFleetEnv, type FleetEnv } from '../../support/fleet-env.js';

let env: FleetEnv;
before(async () => {
  env = await startFleetEnv({ contexts: ['east', 'west'], down: ['gone'], server: { seed: 'demo' } });
});
after(() => env.stop());

test('forEachContext: a connection per context, results and errors by context', async () => {
  const fenv = { HOME: env.dir, KUBECONFIG: env.kubeconfig };
  const results = await forEachContext({ contexts: 'gone,*st', env: fenv, cwd: env.dir, cacheDir: `${env.dir}/cache` }, async (k, context) => {
    const list = await k.client.resource({ group: '', version: 'v1', resource: 'namespaces' }).listAll();
    return `${context}:${k.config.server}:${list.items.length}`;
  });
  assert.deepEqual(results.map((r) => r.context), ['gone', 'east', 'west']);
  assert.ok(!results[0]!.ok && /refused/.test(String((results[0]!.error as Error).message)));
  assert.ok(results[1]!.ok && results[1]!.value === `east:${env.servers.get('east')!.url}:7`);
  assert.ok(results[2]!.ok && results[2]!.value === `west:${env.servers.get('west')!.url}:7`);
});

test('resolveContexts: the current context by default, lists, --all-contexts', async () => {
  const o = { env: { HOME: env.dir, KUBECONFIG: env.kubeconfig }, cwd: env.dir };
  assert.deepEqual(await resolveContexts(o), ['east']);
  assert.deepEqual(await resolveContexts({ ...o, contexts: ['west', 'east'] }), ['west', 'east']);
  assert.deepEqual(await resolveContexts({ ...o, allContexts: true }), ['east', 'gone', 'west']);
});

test('forEachContext reads the kubeconfig once: every context sees the files as they were when selected', async () => {
  const { copyFileSync, readFileSync, writeFileSync } = await import('node:fs');
  const kubeconfig = `${env.dir}/kubeconfig-once`;
  copyFileSync(env.kubeconfig, kubeconfig);
  const fenv = { HOME: env.dir, KUBECONFIG: kubeconfig };
  // One context at a time: east's function empties the file before west connects.
  const results = await forEachContext({ contexts: 'east,west', concurrency: 1, env: fenv, cwd: env.dir, cacheDir: `${env.dir}/cache` }, async (k, context) => {
    if (context === 'east') writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\n');
    return k.config.server;
  });
  assert.equal(readFileSync(kubeconfig, 'utf8'), 'apiVersion: v1\nkind: Config\n');
  assert.deepEqual(results.map((r) => (r.ok ? r.value : String(r.error))), [env.servers.get('east')!.url, env.servers.get('west')!.url]);
});
