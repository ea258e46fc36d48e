/**
 * A failed context in a fleet get (issue 35): a context that is down, has a bad token or is
 * forbidden contributes no document and no rows in any format, whether its discovery comes from a
 * warm cache (the list fails), is refreshed (`--cache-ttl 0`) or is cold (a new HOME: discovery
 * fails); its error line and exit 1 say what happened. The output is the one of the good context
 * alone, so it never depends on the cache's age; docs/fleet.md's jq count counts the good context only.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { FakeClock } from '../../src/core/clock.js';
import { startFleetEnv, type FleetEnv } from '../support/fleet-env.js';
import { runKdyn, type Run } from '../support/cli.js';
import { FLEET_FORMATS, assertOnlyGood, formatLabel } from '../support/fleet-failed.js';

const GOOD = 'a-good';
const FAILED = ['b-down', 'c-badtoken', 'd-forbidden'];
const FORBIDDEN = JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'configmaps is forbidden: User "viewer" cannot list resource "configmaps" in API group "" in the namespace "demo"', reason: 'Forbidden', details: { kind: 'configmaps' }, code: 403 });

/** How the discovery of the failed contexts is had: from a warm cache, refreshed, or with no cache at all. */
const CACHES = [
  { name: 'warm cache', home: 'home-warm', flags: [] as string[] },
  { name: 'warm cache, --cache-ttl 0', home: 'home-warm', flags: ['--cache-ttl', '0'] },
  { name: 'cold cache', home: 'home-cold', flags: [] as string[] },
];

let env: FleetEnv;
const kdyn = (home: string, args: string[]): Promise<Run> => runKdyn(args, { env: { PATH: process.env.PATH, HOME: join(env.dir, home), KUBECONFIG: env.kubeconfig }, cwd: env.dir });
const get = (contexts: string, extra: string[]) => ['get', 'configmaps', '-n', 'demo', '--context', contexts, ...extra];

before(async () => {
  env = await startFleetEnv({ contexts: [GOOD, ...FAILED], server: { clock: new FakeClock(Date.UTC(2026, 10, 22, 12, 0, 0)) } });
  for (const h of ['home-warm', 'home-cold']) mkdirSync(join(env.dir, h));
  // Every context's discovery cached while it worked ...
  const warm = await kdyn('home-warm', get('*', ['-o', 'name']));
  assert.equal(warm.code, 0, warm.err);
  // ... then one goes down, one's token is replaced, one forbids the list.
  const down = env.servers.get('b-down')!;
  env.servers.delete('b-down');
  await down.stop();
  const kubeconfig = readFileSync(env.kubeconfig, 'utf8');
  const token = env.servers.get('c-badtoken')!.token;
  writeFileSync(env.kubeconfig, kubeconfig.replace(`token: ${token}`, 'token: not-a-valid-token'), { mode: 0o600 });
  env.servers.get('d-forbidden')!.faults.add({ path: /\/configmaps/, status: 403, body: FORBIDDEN });
});
after(() => env?.stop());

for (const cache of CACHES) {
  describe(`failed contexts, ${cache.name}`, () => {
    for (const format of FLEET_FORMATS) {
      test(`${formatLabel(format)}: only the good context's output; one line per failed context, exit 1`, async () => {
        // The good context alone, as a fleet (a glob: CONTEXT named), is what the whole fleet must print.
        const [alone, r] = await Promise.all([kdyn('home-warm', get(`${GOOD}*`, format)), kdyn(cache.home, get('*', [...format, ...cache.flags]))]);
        const errs = assertOnlyGood(r, alone, GOOD, FAILED);
        assert.match(errs[0]!, /The connection to the server 127\.0\.0\.1:\d+ was refused/);
        assert.match(errs[1]!, /You must be logged in to the server \(Unauthorized\)/);
        assert.match(errs[2]!, /Error from server \(Forbidden\): configmaps is forbidden/);
      });
    }
  });
}

describe('docs/fleet.md\'s jq count', () => {
  test('counts the contexts that answered, not the failed ones', async (t) => {
    const r = await kdyn('home-warm', get('*', ['-o', 'json']));
    assert.equal(r.code, 1);
    const jq = spawnSync('jq', ['-c', '-s', 'map({(.context): (.items | length)}) | add'], { input: r.out, encoding: 'utf8' });
    if (jq.error) return t.skip('jq not on PATH');
    const good = await kdyn('home-warm', ['get', 'configmaps', '-n', 'demo', '--context', GOOD, '-o', 'name']);
    assert.equal(jq.stdout, `${JSON.stringify({ [GOOD]: good.out.split('\n').filter(Boolean).length })}\n`);
  });
});

describe('fleet apply to a context with a bad token or no rights', () => {
  test('one line for the context (not one per object), its summary, exit 1; the good context applies every object', async () => {
    const docs = Array.from({ length: 20 }, (_, i) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: auth-${i}, namespace: team-a}\ndata: {k: v}\n`);
    writeFileSync(join(env.dir, 'auth.yaml'), docs.join('---\n'));
    const r = await kdyn('home-warm', ['apply', '-f', 'auth.yaml', '--context', `${GOOD},c-badtoken,d-forbidden`]);
    assert.equal(r.code, 1, r.err);
    assert.equal(r.out.split('\n').filter(Boolean).length, 20);
    assert.ok(r.out.split('\n').filter(Boolean).every((l) => l.startsWith(`${GOOD}/configmap/auth-`)), r.out);
    const errs = r.err.split('\n').filter(Boolean);
    assert.deepEqual(errs.filter((l) => !l.includes(GOOD)).map((l) => l.replace(/: (Error from server|You must|configmaps).*? \(the same/, ': ... (the same')), [
      'error: context "c-badtoken": ... (the same for all 20 objects)',
      'context "c-badtoken": 20 objects: 0 succeeded, 20 failed',
      'error: context "d-forbidden": ... (the same for all 20 objects)',
      'context "d-forbidden": 20 objects: 0 succeeded, 20 failed',
    ], r.err);
    assert.match(errs[0]!, /^context "a-good": 20 objects: 20 succeeded, 0 failed$/);
    assert.match(errs[1]!, /^error: context "c-badtoken": You must be logged in to the server \(Unauthorized\) \(the same for all 20 objects\)$/);
    assert.match(errs[3]!, /^error: context "d-forbidden": Error from server \(Forbidden\): configmaps is forbidden: .* \(the same for all 20 objects\)$/);
  });
  test('-o json: a document for the context that applied, none for those that failed', async () => {
    const r = await kdyn('home-warm', ['apply', '-f', 'auth.yaml', '--context', `${GOOD},c-badtoken,d-forbidden`, '-o', 'json']);
    assert.equal(r.code, 1, r.err);
    const docs = r.out.split(/^(?=\{)/m).map((d) => JSON.parse(d) as { context: string; items: unknown[] });
    assert.deepEqual(docs.map((d) => [d.context, d.items.length]), [[GOOD, 20]]);
  });
});

describe('a context where only some requests failed', () => {
  test('prints what it got (its document, its rows) and one line for the rest, as a single-context get', async () => {
    const r = await kdyn('home-warm', ['get', 'configmaps,secrets', '-n', 'demo', '--context', 'd-forbidden,a-good', '-o', 'json']);
    assert.equal(r.code, 1);
    const docs = r.out.split(/^(?=\{)/m).map((d) => JSON.parse(d) as { context: string; items: Array<{ kind: string }> });
    assert.deepEqual(docs.map((d) => d.context), ['d-forbidden', GOOD]);
    assert.ok(docs[0]!.items.length > 0 && docs[0]!.items.every((i) => i.kind === 'Secret'), JSON.stringify(docs[0]!.items.map((i) => i.kind)));
    assert.match(r.err, /^error: context "d-forbidden": Error from server \(Forbidden\): configmaps is forbidden/);
    assert.equal(r.err.split('\n').filter(Boolean).length, 1);
  });
});
