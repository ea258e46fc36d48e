/**
 * The informer (issue 27) through what a real kube-apiserver does to its watch: a graceful restart
 * (SIGTERM), an abrupt outage (SIGKILL), an etcd compaction (410, relist) and watch connections cut
 * every few events. The informer runs in this process and reaches the server through a TCP gate
 * (bench/port-gate.ts) that counts its connections and can cut them. After each: the store equals
 * the server's state, the handlers' events replayed in order give that state with no repeated or
 * contradicting event (each change once, or a relist's coalesced equivalent), and during the outage
 * the informer's connection attempts stay bounded (no request storm).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type Connection } from '../../src/connect.js';
import type { ResourceClient } from '../../src/dynamic/client.js';
import type { Unstructured } from '../../src/core/unstructured.js';
import { informer, type Informer } from '../../src/informer/informer.js';
import { keyOf } from '../../src/informer/indexer.js';
import type { InformerHealth } from '../../src/informer/types.js';
import { freePorts, startRealApiServer } from '../support/real-apiserver.js';
import { recordEvents, type EventRecord } from '../support/informer-events.js';
import { PortGate } from '../../bench/port-gate.js';
import { SKIP_REAL, startRealEnv, type RealEnv } from './real-helpers.js';

/** podtemplates skip the API server's watch cache: their watches go to etcd, which answers 410 after a compaction. */
const UNCACHED = 'podtemplates';
/**
 * The outage, and the bound on the informer's connections during it. Through the gate its
 * connections are accepted and closed at once (as by a load balancer before a dead server); nothing
 * answers, so the watcher retries about once a second (src/watch/backoff.ts, `unreachable`: a 1 s
 * step, +25% jitter), and the transport retries each attempt 3 times first (0.125-0.25, 0.25-0.5,
 * 0.5-1 s): 4 connections per at least 1.875 s, at most 128 a minute (measured: ~105). A storm (a
 * reconnect loop without backoff) makes thousands.
 */
const MAX_CONNECTIONS_PER_MINUTE = 130;
const MAX_ATTEMPTS_PER_MINUTE = 33;
const OUTAGE_MS = 30_000;

describe('informer on a real kube-apiserver: restarts, outages, compaction, cut streams', { skip: SKIP_REAL }, () => {
  let env: RealEnv;
  let gate: PortGate;
  let k: Connection;
  before(async () => {
    env = await startRealEnv({ extraFlags: [`--watch-cache-sizes=${UNCACHED}#0`] });
    const [port] = await freePorts(1);
    gate = new PortGate(port!, env.cluster.port);
    await gate.open();
    const kubeconfig = join(env.dir, 'kubeconfig-gated');
    writeFileSync(kubeconfig, readFileSync(env.cluster.kubeconfigs.token, 'utf8').replace(`server: ${env.cluster.url}`, `server: https://127.0.0.1:${port}`));
    k = await connect({ kubeconfig, env: { HOME: join(env.dir, 'home-informer') } });
  });
  after(async () => {
    k?.close();
    await gate?.close();
    await env?.stop();
  });

  interface Running {
    inf: Informer;
    rec: EventRecord<Unstructured>;
    handle: ResourceClient;
    ns: string;
  }

  /** An informer on `resource` in a fresh namespace holding `names`, synced; stopped at the end of the test. */
  async function started(t: { after(fn: () => void): void }, prefix: string, resource: string, names: string[]): Promise<Running> {
    const ns = await env.namespace(prefix);
    for (const name of names) await env.create(`/api/v1/namespaces/${ns}/${resource}`, body(resource, name, '1'));
    const handle = k.client.resource({ group: '', version: 'v1', resource }, { namespaced: true }).namespace(ns);
    const inf = informer(handle);
    const rec = recordEvents<Unstructured>();
    inf.addEventHandler(rec.handlers);
    const ac = new AbortController();
    t.after(() => ac.abort());
    inf.start(ac.signal);
    assert.equal(await inf.waitForSync(), true);
    assert.equal(inf.size, names.length);
    return { inf, rec, handle, ns };
  }

  function body(resource: string, name: string, v: string): object {
    return resource === 'configmaps' ? { metadata: { name }, data: { v } } : { metadata: { name }, template: { spec: { containers: [{ name: 'c', image: `busybox:${v}` }] } } };
  }

  /** Writes through the admin's own client (not kdyn, not the gate). */
  async function write(method: string, path: string, b?: object): Promise<void> {
    const res = await env.cluster.request(method, path, b, method === 'PATCH' ? 'application/merge-patch+json' : 'application/json');
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.body}`);
  }

  /** The server's state as `key -> resourceVersion`. */
  async function serverState(resource: string, ns: string): Promise<Map<string, string>> {
    const res = await env.cluster.request('GET', `/api/v1/namespaces/${ns}/${resource}`);
    assert.equal(res.status, 200, res.body);
    return new Map((JSON.parse(res.body) as { items: Unstructured[] }).items.map((o) => [keyOf(o), o.metadata!.resourceVersion!]));
  }

  /** Waits until the handlers' replayed state equals the server's, then checks the store and the events. */
  async function inStep(r: Running, resource: string, what: string): Promise<void> {
    const want = await serverState(resource, r.ns);
    const same = () => r.rec.state.size === want.size && [...want].every(([key, v]) => r.rec.state.get(key) === v);
    await r.rec.until(same, `${what}: the server's state`, 90_000);
    assert.deepEqual(r.rec.anomalies, [], 'no repeated, lost or out-of-order event');
    assert.deepEqual(new Map(r.inf.list().map((o) => [keyOf(o), o.metadata!.resourceVersion!])), want, 'the store equals the server');
  }

  function healthUntil(inf: Informer, pred: (h: InformerHealth) => boolean): Promise<InformerHealth> {
    return new Promise((resolve) => {
      if (pred(inf.health())) return resolve(inf.health());
      const off = inf.onHealth((h) => {
        if (pred(h)) {
          off();
          resolve(h);
        }
      });
    });
  }

  test('graceful restart (SIGTERM): changes before, during the drain and after reach the handlers once each', async (t) => {
    const r = await started(t, 'inf-graceful', 'configmaps', ['a', 'b']);
    await env.cluster.restart({ graceful: true });
    await write('PATCH', `/api/v1/namespaces/${r.ns}/configmaps/a`, { data: { v: 'during-drain' } });
    await write('POST', `/api/v1/namespaces/${r.ns}/configmaps`, body('configmaps', 'c', '1'));
    await inStep(r, 'configmaps', 'during the drain');
    await env.cluster.drained();
    await write('DELETE', `/api/v1/namespaces/${r.ns}/configmaps/b`);
    await write('POST', `/api/v1/namespaces/${r.ns}/configmaps`, body('configmaps', 'd', '1'));
    await inStep(r, 'configmaps', 'after the old server exited');
    t.diagnostic(`events: ${r.rec.lines.join(' | ')}; health: ${JSON.stringify(r.inf.health())}`);
    assert.deepEqual(r.rec.lines.slice(2).map((l) => l.replace(/ \d+->\d+$/, '')), [`update ${r.ns}/a`, `add ${r.ns}/c`, `delete ${r.ns}/b`, `add ${r.ns}/d`]);
  });

  test('abrupt outage (SIGKILL, 30 s): bounded reconnection attempts, then the changes made after', async (t) => {
    const r = await started(t, 'inf-abrupt', 'configmaps', ['a', 'b']);
    const before = gate.accepted;
    const down = Date.now();
    await env.cluster.kill({ graceful: false });
    await healthUntil(r.inf, (h) => h.state === 'backoff');
    await new Promise((res) => setTimeout(res, OUTAGE_MS));
    const attempts = gate.accepted - before;
    const minutes = (Date.now() - down) / 60_000;
    await env.cluster.start();
    await write('PATCH', `/api/v1/namespaces/${r.ns}/configmaps/a`, { data: { v: 'after' } });
    await write('DELETE', `/api/v1/namespaces/${r.ns}/configmaps/b`);
    await write('POST', `/api/v1/namespaces/${r.ns}/configmaps`, body('configmaps', 'c', '1'));
    await inStep(r, 'configmaps', 'after the outage');
    const h = r.inf.health();
    t.diagnostic(`${attempts} connections in ${(minutes * 60).toFixed(1)} s of outage (${(attempts / minutes).toFixed(0)}/min); health: ${JSON.stringify(h)}; events: ${r.rec.lines.join(' | ')}`);
    assert.ok(attempts >= 2, `the informer kept trying (${attempts} attempts)`);
    assert.ok(attempts / minutes <= MAX_CONNECTIONS_PER_MINUTE, `${attempts} connections in ${minutes.toFixed(2)} min: more than ${MAX_CONNECTIONS_PER_MINUTE}/min`);
    assert.ok(h.failures / minutes <= MAX_ATTEMPTS_PER_MINUTE, `${h.failures} failed attempts in ${minutes.toFixed(2)} min: more than ${MAX_ATTEMPTS_PER_MINUTE}/min`);
    assert.ok(h.failures >= 1 && h.state === 'watching');
  });

  test('compaction: changes made through another API server while this one was down, history compacted: 410, a relist, only the differences', async (t) => {
    const r = await started(t, 'inf-compact', UNCACHED, ['keep', 'change', 'remove']);
    const peer = await startRealApiServer({ etcd: env.cluster.etcd, etcdPrefix: env.cluster.etcdPrefix });
    t.after(() => peer.stop());
    await env.cluster.kill({ graceful: false });
    const base = `/api/v1/namespaces/${r.ns}/${UNCACHED}`;
    assert.equal((await peer.request('PATCH', `${base}/change`, body(UNCACHED, 'change', '2'), 'application/merge-patch+json')).status, 200);
    assert.equal((await peer.request('DELETE', `${base}/remove`)).status, 200);
    assert.equal((await peer.request('POST', base, body(UNCACHED, 'new', '1'))).status, 201);
    await env.cluster.etcd.compact();
    await env.cluster.start();
    await inStep(r, UNCACHED, 'after the relist');
    const h = r.inf.health();
    t.diagnostic(`events: ${r.rec.lines.join(' | ')}; health: ${JSON.stringify(h)}`);
    assert.ok(h.relists >= 1, `relisted (${h.relists})`);
    assert.deepEqual(r.rec.lines.slice(3).map((l) => l.replace(/ \d+(->\d+)?$/, '')).sort(), [`add ${r.ns}/new`, `delete? ${r.ns}/remove`, `update ${r.ns}/change`]);
  });

  test('watch connections cut every 3 changes: 30 changes, each seen once, no relist', async (t) => {
    const r = await started(t, 'inf-cut', 'configmaps', []);
    const base = `/api/v1/namespaces/${r.ns}/configmaps`;
    const expected: string[] = [];
    for (let i = 0; i < 10; i++) {
      await write('POST', base, body('configmaps', `o${i}`, '1'));
      await write('PATCH', `${base}/o${i}`, { data: { v: '2' } });
      if (i % 2) await write('DELETE', `${base}/o${i}`);
      else await write('PATCH', `${base}/o${i}`, { data: { v: '3' } });
      expected.push(`add ${r.ns}/o${i}`, `update ${r.ns}/o${i}`, i % 2 ? `delete ${r.ns}/o${i}` : `update ${r.ns}/o${i}`);
      gate.dropConnections();
    }
    await r.rec.until((l) => l.length >= expected.length, `${expected.length} events`, 90_000);
    await inStep(r, 'configmaps', 'after the cuts');
    const h = r.inf.health();
    t.diagnostic(`health: ${JSON.stringify(h)}`);
    assert.deepEqual(r.rec.lines.map((l) => l.replace(/ \d+->\d+$/, '')), expected);
    assert.equal(h.relists, 0, 'resumed from the last resourceVersion each time');
  });
});
