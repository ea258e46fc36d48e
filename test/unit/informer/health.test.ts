/**
 * The informer's health through a restart whose server first answers 403 (issue 35): while the
 * last error is the server's answer, the health does not say `unreachable`, and the watch comes back
 * when the answers do. Against the local API server over TLS; the informer's clock is a FakeClock.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/core/clock.js';
import { connect, type Connection } from '../../../src/connect.js';
import { informer } from '../../../src/informer/informer.js';
import { startServerEnv, type ServerEnv } from '../../support/server-env.js';
import { healthUntil } from '../../support/informer-events.js';

let env: ServerEnv;
let k: Connection;
before(async () => {
  env = await startServerEnv({ seed: 'empty' }, 'kdyn-informer-health-');
  k = await connect({ kubeconfig: env.kubeconfig, env: { HOME: env.dir } });
});
after(async () => {
  k?.close();
  await env?.stop();
});

test('an outage, then 403 while the restarted server syncs its RBAC cache: not "unreachable", and the watch comes back', async () => {
  const ns = 'health-1';
  await k.client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: ns } });
  const cms = k.client.resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace(ns);
  await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'before' } });
  const clock = new FakeClock();
  const inf = informer(cms, { clock, random: () => 0 });
  const ac = new AbortController();
  inf.start(ac.signal);
  try {
    await inf.waitForSync();
    await env.server.stopListening();
    await healthUntil(inf, (h) => h.state === 'backoff' && h.unreachable);

    const message = `configmaps is forbidden: User "viewer" cannot watch resource "configmaps" in API group "" in the namespace "${ns}"`;
    const forbidden = env.server.faults.add({
      path: new RegExp(`^/api/v1/namespaces/${ns}/configmaps\\?`),
      status: 403,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', code: 403 }),
    });
    await env.server.listenAgain();
    clock.advance(2000);
    const h = await healthUntil(inf, (x) => /forbidden/.test(x.lastError ?? ''));
    assert.equal(h.state, 'backoff');
    assert.equal(h.unreachable, false, 'the server answered: it is reachable');
    assert.ok(forbidden.hits >= 1);

    env.server.faults.clear();
    const added = new Promise<void>((resolve) => inf.addEventHandler({ onAdd: (o) => o.metadata?.name === 'after' && resolve() }));
    await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' } });
    clock.advance(2000);
    await added;
    assert.deepEqual(inf.keys().sort(), [`${ns}/after`, `${ns}/before`]);
    assert.equal(inf.health().state, 'watching');
    assert.equal(inf.health().unreachable, false);
  } finally {
    ac.abort();
  }
});
