/**
 * The RESTMapper corpus through the real stack: the local API server serving the built-ins plus the
 * corpus CRDs (created over HTTP from crds.yaml), kdyn's transport and disk-cached discovery, and
 * DeferredRESTMapper. Also the two discovery-staleness cases: a CRD created after the cache was
 * written (found with one refetch) and a CRD deleted since (refresh() turns it into an unknown name).
 * Where kubectl is on PATH, a sample of inputs is resolved by kubectl on the same server too.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import type { LocalApiServer } from '../support/apiserver/server.js';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';
import { hasKubectl } from '../support/cli.js';
import { loadRestConfig } from '../../src/kubeconfig/load.js';
import { createTransport } from '../../src/transport/http.js';
import { createCachedDiscovery } from '../../src/discovery/cached.js';
import { parseAggregatedDiscovery } from '../../src/discovery/aggregated.js';
import type { DiscoverySnapshot } from '../../src/discovery/types.js';
import type { Transport } from '../../src/transport/types.js';
import { systemClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import { memoryIO } from '../support/io.js';
import { DeferredRESTMapper } from '../../src/restmapper/deferred.js';
import { resolveGetArgs } from '../../src/restmapper/args.js';
import { NoResourceMatchError } from '../../src/restmapper/errors.js';
import { CORPUS_DIR, collectionPath, readCorpusCases, readCorpusJSON, shortNameWarnings } from '../unit/restmapper/snapshot.js';
import { buildNameIndex } from '../../src/restmapper/name-index.js';

const execFileAsync = promisify(execFile);

let env: ServerEnv;
let server: LocalApiServer;
let home: string;
let kubeconfig: string;
let transport: Transport;

async function api(method: 'POST' | 'DELETE', path: string, body?: unknown): Promise<number> {
  const res = await transport.request({
    method,
    path,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return res.status;
}

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function lateCrd(name: string): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${name}s.late.example.com` },
    spec: {
      group: 'late.example.com',
      scope: 'Namespaced',
      names: { plural: `${name}s`, singular: name, kind: name[0]!.toUpperCase() + name.slice(1), shortNames: [`${name}x`] },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
}

/** Every CachedDiscovery made, so after() waits for their cache writes before removing the dir. */
const discoveries: Array<ReturnType<typeof createCachedDiscovery>> = [];

/** A new process's view: a fresh CachedDiscovery over the shared cache dir. */
function newDiscovery(cacheDir: string) {
  const d = createCachedDiscovery({ transport, server: server.url, cacheDir, ttlMs: 10 * 60_000, env: {}, clock: systemClock, logger: silentLogger, index: buildNameIndex });
  discoveries.push(d);
  return d;
}

function discoveryGets(): string[] {
  return server.requestLog
    .filter((e) => e.method === 'GET' && (e.path === '/api' || e.path === '/apis' || /^\/apis?\/[^/]+(\/[^/]+)?$/.test(e.path)))
    .map((e) => e.path);
}

before(async () => {
  env = await startServerEnv({ seed: 'empty' }, 'kdyn-e2e-rm-');
  ({ server, dir: home, kubeconfig } = env);
  const io = memoryIO({ HOME: home });
  const config = await loadRestConfig({ flags: { kubeconfig }, env: { HOME: home }, cwd: home, logger: silentLogger, clock: systemClock, stderr: io.stderr, homeDir: home });
  transport = createTransport(config, { logger: silentLogger, clock: systemClock, env: {}, timeoutMs: 30_000 });
  for (const doc of loadAll(readFileSync(join(CORPUS_DIR(), 'crds.yaml'), 'utf8'))) {
    assert.equal(await api('POST', CRDS, doc), 201);
  }
});

after(async () => {
  await Promise.allSettled(discoveries.map((d) => d.flush()));
  transport?.close();
  await env?.stop();
});

function summarize(s: DiscoverySnapshot): string[] {
  return s.groups.map(
    (g) =>
      `${g.name}: ` +
      g.versions
        .map((v) => `${v}(${(s.resources.get(g.name ? `${g.name}/${v}` : v) ?? []).filter((r) => !r.name.includes('/')).map((r) => `${r.name}[${r.shortNames.join(',')}]{${r.categories.join(',')}}`).join(' ')})`)
        .join(' '),
  );
}

describe('RESTMapper corpus on the local API server', () => {
  test('the server serves the corpus discovery: same groups, order, versions, names, short names, categories', async () => {
    const live = await newDiscovery(join(home, 'cache-compare')).snapshot();
    const recorded = parseAggregatedDiscovery(readCorpusJSON('aggregated-api.json'), readCorpusJSON('aggregated-apis.json'));
    assert.deepEqual(summarize(live), summarize(recorded));
  });

  test('all 550 inputs resolve as kubectl did, from one discovery read', async (t) => {
    server.clearLog();
    const discovery = newDiscovery(join(home, 'cache-corpus'));
    const warnings: string[] = [];
    const mapper = new DeferredRESTMapper(discovery, { warn: (m) => warnings.push(m) });
    const mismatches: string[] = [];
    const cases = readCorpusCases();
    for (const c of cases) {
      warnings.length = 0;
      try {
        const plan = await resolveGetArgs([c.input], mapper);
        const paths = plan.requests.map((r) => collectionPath(r.mapping.gvr)).join(' ');
        if (paths !== c.paths.join(' ')) mismatches.push(`${c.input}: expected "${c.paths.join(' ')}", got "${paths}"`);
        else if (JSON.stringify(warnings) !== JSON.stringify(shortNameWarnings(c.messages))) mismatches.push(`${c.input}: warnings ${JSON.stringify(warnings)}`);
      } catch (e) {
        if (c.paths.length || !(e instanceof NoResourceMatchError)) mismatches.push(`${c.input}: ${String(e)}`);
      }
    }
    t.diagnostic(`live corpus: ${cases.length - mismatches.length}/${cases.length} match`);
    assert.deepEqual(mismatches, []);
    // Fresh discovery: the misses (4 unknown names) do not refetch. One /api + one /apis, nothing per group-version.
    assert.deepEqual(discoveryGets().sort(), ['/api', '/apis']);
  });

  test('kubectl on the same server lists the same collections (sample)', { skip: !hasKubectl() && 'kubectl not on PATH' }, async () => {
    const warnings: string[] = [];
    const mapper = new DeferredRESTMapper(newDiscovery(join(home, 'cache-kubectl-cmp')), { warn: (m) => warnings.push(m) });
    for (const input of ['po', 'deploy', 'dp', 'cm', 'gadgets', 'Deployment.shadow.example.com', 'storageclass.storage', 'hpa']) {
      // Asynchronously: the server runs in this process.
      const { stderr } = await execFileAsync('kubectl', ['get', input, '-A', '-o', 'name', '-v=6', '--kubeconfig', kubeconfig, '--cache-dir', join(home, 'kubectl-cache')], {
        env: { PATH: process.env.PATH, HOME: home },
        timeout: 30_000,
      });
      const listed = [...stderr.matchAll(/GET https:\/\/[^/]+(\/[^?\s]+)\?limit=500/g)].map((m) => m[1]);
      const kubectlWarnings = stderr.split('\n').filter((l) => l.startsWith('Warning: short name ')).map((l) => l.slice('Warning: '.length));
      warnings.length = 0;
      const plan = await resolveGetArgs([input], mapper);
      assert.deepEqual(plan.requests.map((q) => collectionPath(q.mapping.gvr)), listed, input);
      assert.deepEqual(warnings, kubectlWarnings, input);
    }
  });

  test('a CRD created after the cache was written is found with exactly one refetch', async () => {
    const cacheDir = join(home, 'cache-late');
    const warm = newDiscovery(cacheDir);
    await warm.snapshot();
    await warm.flush();
    assert.equal(await api('POST', CRDS, lateCrd('sprocket')), 201);

    server.clearLog();
    const mapper = new DeferredRESTMapper(newDiscovery(cacheDir), { warn: () => {} });
    assert.equal((await mapper.resourceFor('pods')).gvr.resource, 'pods');
    assert.deepEqual(discoveryGets(), [], 'a warm cache answers known names without requests');

    const m = await mapper.resourceFor('sprocketx');
    assert.deepEqual(m.gvr, { group: 'late.example.com', version: 'v1', resource: 'sprockets' });
    assert.deepEqual(discoveryGets().sort(), ['/api', '/apis'], 'one refetch of /api and /apis');
    await mapper.resourceFor('sprockets');
    await assert.rejects(mapper.resourceFor('nosuch'), NoResourceMatchError);
    assert.equal(discoveryGets().length, 2, 'fresh discovery: no further refetches');
  });

  test('a CRD deleted since the cache was written: the stale hit 404s, refresh() makes it an unknown name', async () => {
    const cacheDir = join(home, 'cache-deleted');
    assert.equal(await api('POST', CRDS, lateCrd('doomed')), 201);
    const warm = newDiscovery(cacheDir);
    await warm.snapshot();
    await warm.flush();
    assert.equal(await api('DELETE', `${CRDS}/doomeds.late.example.com`), 200);

    server.clearLog();
    const mapper = new DeferredRESTMapper(newDiscovery(cacheDir), { warn: () => {} });
    const stale = await mapper.resourceFor('doomed');
    assert.deepEqual(stale.gvr, { group: 'late.example.com', version: 'v1', resource: 'doomeds' });
    assert.deepEqual(discoveryGets(), []);
    const list = await transport.request({ path: '/apis/late.example.com/v1/doomeds', headers: { accept: 'application/json' } });
    assert.equal(list.status, 404, 'the collection is gone');

    await mapper.refresh();
    assert.deepEqual(discoveryGets().sort(), ['/api', '/apis']);
    await assert.rejects(mapper.resourceFor('doomed'), (e: unknown) => e instanceof NoResourceMatchError && e.message.startsWith('the server doesn\'t have a resource type "doomed"'));
    assert.equal(discoveryGets().length, 2);
  });
});
