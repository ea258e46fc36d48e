/**
 * Failed contexts of a fleet get on a real kube-apiserver v1.32 (issue 35), in every output format,
 * with warm caches, `--cache-ttl 0` and cold caches: a context that is down (a TCP relay to the
 * server, closed once the caches were warm), one with a bad token (401) and one whose user has no
 * rights (403 on the list; discovery is allowed) print nothing but their error line, so the output
 * is exactly the good context's and never depends on the caches' age.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { SKIP_REAL, startRealEnv, type RealEnv } from './real-helpers.js';
import { FLEET_FORMATS, assertOnlyGood, formatLabel } from '../support/fleet-failed.js';
import { assertSameTables } from '../support/table-ages.js';

interface Kubeconfig {
  clusters: Array<{ name: string; cluster: { server: string; 'certificate-authority-data': string } }>;
  users: Array<{ name: string; user: { token: string } }>;
}

const GOOD = 'a-good';
const FAILED = ['b-down', 'c-badtoken', 'd-forbidden'];

/** A plain TCP relay to `port` (TLS end to end), on a port of its own. */
async function relay(port: number): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined).on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    close: () => new Promise((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    }),
  };
}

describe('fleet get with failed contexts on a real kube-apiserver', { skip: SKIP_REAL }, () => {
  let env: RealEnv;
  let kubeconfig: string;
  const kdyn = (home: string, args: string[]) => env.kdyn(args, { home, env: { KUBECONFIG: kubeconfig } });
  const get = (contexts: string, extra: string[]) => ['get', 'configmaps', '-n', 'ns-fleet', '--context', contexts, ...extra];

  before(async () => {
    env = await startRealEnv();
    for (const name of ['ns-fleet', 'ns-apply']) await env.create('/api/v1/namespaces', { metadata: { name } });
    for (const n of ['x1', 'x2']) await env.create('/api/v1/namespaces/ns-fleet/configmaps', { metadata: { name: n }, data: { k: n } });
    const admin = load(readFileSync(env.cluster.kubeconfigs.token, 'utf8')) as Kubeconfig;
    const cluster = admin.clusters[0]!.cluster;
    const down = await relay(env.cluster.port);
    const ctx = (name: string, server: string, token: string) => ({ name, server, token });
    const entries = [
      ctx(GOOD, cluster.server, env.cluster.tokens.admin),
      ctx('b-down', `https://127.0.0.1:${down.port}`, env.cluster.tokens.admin),
      ctx('c-badtoken', cluster.server, env.cluster.tokens.admin),
      ctx('d-forbidden', cluster.server, env.cluster.tokens.noRights),
    ];
    kubeconfig = join(env.dir, 'fleet-kubeconfig');
    const write = () =>
      writeFileSync(kubeconfig, dump({
        apiVersion: 'v1', kind: 'Config', 'current-context': GOOD, preferences: {},
        clusters: entries.map((e) => ({ name: e.name, cluster: { server: e.server, 'certificate-authority-data': cluster['certificate-authority-data'] } })),
        users: entries.map((e) => ({ name: e.name, user: { token: e.token } })),
        contexts: entries.map((e) => ({ name: e.name, context: { cluster: e.name, user: e.name } })),
      }, { lineWidth: -1 }), { mode: 0o600 });
    write();
    mkdirSync(join(env.dir, 'home-cold'));
    // The caches warm while every context but the forbidden one works ...
    const warm = await kdyn('home-warm', get('*', ['-o', 'name']));
    assert.equal(warm.code, 1, warm.err);
    assert.match(warm.err, /^error: context "d-forbidden": Error from server \(Forbidden\)/);
    // ... then one goes down and one's token is replaced.
    await down.close();
    entries[2]!.token = 'not-a-valid-token';
    write();
  });
  after(() => env?.stop());

  test('fleet apply: a bad token and no rights are one line each for the context, then its summary; no document', async () => {
    writeFileSync(join(env.dir, 'five.yaml'), Array.from({ length: 5 }, (_, i) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: five-${i}, namespace: ns-apply}\n`).join('---\n'));
    const r = await kdyn('home-warm', ['apply', '-f', 'five.yaml', '--context', `${GOOD},c-badtoken,d-forbidden`, '-o', 'name']);
    assert.equal(r.code, 1, r.err);
    assert.equal(r.out, Array.from({ length: 5 }, (_, i) => `${GOOD}/configmap/five-${i}\n`).join(''));
    const errs = r.err.split('\n').filter(Boolean);
    assert.equal(errs.length, 5, r.err);
    assert.equal(errs[0], `context "${GOOD}": 5 objects: 5 succeeded, 0 failed`);
    assert.equal(errs[1], 'error: context "c-badtoken": You must be logged in to the server (Unauthorized) (the same for all 5 objects)');
    assert.equal(errs[2], 'context "c-badtoken": 5 objects: 0 succeeded, 5 failed');
    assert.match(errs[3]!, /^error: context "d-forbidden": Error from server \(Forbidden\): configmaps "five-0" is forbidden: User "kdyn-nobody" cannot patch resource "configmaps" .* \(the same for all 5 objects\)$/);
    assert.equal(errs[4], 'context "d-forbidden": 5 objects: 0 succeeded, 5 failed');
  });

  for (const cache of [
    { name: 'warm caches', home: 'home-warm', flags: [] as string[] },
    { name: 'warm caches, --cache-ttl 0', home: 'home-warm', flags: ['--cache-ttl', '0'] },
    { name: 'cold caches', home: 'home-cold', flags: [] as string[] },
  ]) {
    test(`${cache.name}: every format prints only the good context's output, one line per failed context, exit 1`, async () => {
      for (const format of FLEET_FORMATS) {
        // The server computes the AGE cells per request: two runs can straddle a second, so up to three
        // tries; on a loaded machine they can be seconds apart each time, which assertSameTables allows.
        let [alone, r] = await Promise.all([kdyn('home-warm', get(`${GOOD}*`, format)), kdyn(cache.home, get('*', [...format, ...cache.flags]))]);
        for (let i = 0; i < 2 && alone.out !== r.out; i++) [alone, r] = await Promise.all([kdyn('home-warm', get(`${GOOD}*`, format)), kdyn(cache.home, get('*', [...format, ...cache.flags]))]);
        const errs = assertOnlyGood(r, alone, GOOD, FAILED, assertSameTables);
        assert.match(errs[0]!, /was refused|Unable to connect/, formatLabel(format));
        assert.match(errs[1]!, /You must be logged in to the server \(Unauthorized\)/, formatLabel(format));
        assert.match(errs[2]!, /Error from server \(Forbidden\): configmaps is forbidden: User "kdyn-nobody" cannot list/, formatLabel(format));
      }
    });
  }
});
