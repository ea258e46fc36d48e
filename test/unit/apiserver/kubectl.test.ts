// The real kubectl (v1.32) against the local API server over TLS: it must not tell the difference for
// api-resources, get (built-in and custom, printer columns), -o yaml, create -f of a CRD and then of an
// instance, apply -f, explain and delete. Skipped when kubectl is not on PATH.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpsRequest } from 'node:https';
import { load } from 'js-yaml';
import { startServer, type LocalApiServer } from '../../support/apiserver/server.js';
import type { LocalCatalog, ServedGroup } from '../../support/apiserver/catalog.js';
import { fixturesDir } from '../../support/exchanges.js';
import type { Obj } from '../../support/apiserver/types.js';
import { hasKubectl } from '../../support/cli.js';

const skip = hasKubectl() ? false : 'kubectl not on PATH';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs kubectl asynchronously (the server lives in this process) with a private HOME and kubeconfig. */
function kubectlIn(home: string, kubeconfig: string) {
  return (...args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile('kubectl', args, { env: { PATH: process.env.PATH ?? '', HOME: home, KUBECONFIG: kubeconfig }, timeout: 20_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      });
    });
}

/** GET /apis over TLS with kubectl's aggregated-discovery Accept header. */
function aggregatedApis(server: LocalApiServer): Promise<Obj> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${server.token}`, accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json' };
    const req = httpsRequest(`${server.url}/apis`, { headers, ca: server.caPem }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Obj));
    });
    req.on('error', reject);
    req.end();
  });
}

const ok = (r: Run, what: string) => assert.equal(r.code, 0, `${what} exited ${r.code}: ${r.stderr}`);
const columns = (line: string) => line.trim().split(/\s{2,}/);
const catalogOf = (s: LocalApiServer) => s.catalog as LocalCatalog;

const TEST_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'sprockets.kubectl-test.example.com' },
  spec: {
    group: 'kubectl-test.example.com',
    scope: 'Namespaced',
    names: { plural: 'sprockets', singular: 'sprocket', kind: 'Sprocket', shortNames: ['spk'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description: 'A sprocket for the kubectl test.',
            properties: { spec: { type: 'object', properties: { teeth: { type: 'integer', description: 'How many teeth the sprocket has.' } } } },
          },
        },
        additionalPrinterColumns: [{ name: 'Teeth', type: 'integer', jsonPath: '.spec.teeth' }],
      },
    ],
  },
};
const TEST_INSTANCE = { apiVersion: 'kubectl-test.example.com/v1', kind: 'Sprocket', metadata: { name: 'sp1', namespace: 'default' }, spec: { teeth: 12 } };

describe('kubectl against the local API server (TLS, seed demo)', { skip }, () => {
  let server: LocalApiServer;
  let dir: string;
  let kubectl: ReturnType<typeof kubectlIn>;
  let demoGroups: ServedGroup[];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kdyn-kubectl-'));
    server = await startServer({ tls: true, seed: 'demo' });
    server.writeKubeconfig(join(dir, 'kubeconfig'));
    kubectl = kubectlIn(dir, join(dir, 'kubeconfig'));
    demoGroups = catalogOf(server).groups().filter((g) => !g.builtin);
    writeFileSync(join(dir, 'crd.json'), JSON.stringify(TEST_CRD));
    writeFileSync(join(dir, 'instance.json'), JSON.stringify(TEST_INSTANCE));
  });
  after(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('api-resources lists every served resource at its preferred version, the demo CRDs included', async () => {
    assert.ok(demoGroups.length >= 1, 'the demo seed has CRDs');
    const r = await kubectl('api-resources');
    ok(r, 'api-resources');
    const rows = r.stdout.trim().split('\n');
    assert.deepEqual(columns(rows[0]!), ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
    const seen = new Set(rows.slice(1).map((l) => { const c = l.trim().split(/\s+/); return `${c[0]} ${c.length === 5 ? c[2] : c[1]}`; }));
    const expected = new Set<string>();
    for (const g of catalogOf(server).groups()) {
      const preferred = new Map<string, string>();
      for (const v of g.versions) for (const res of v.resources) if (!preferred.has(res.resource)) preferred.set(res.resource, v.version);
      for (const [res, v] of preferred) expected.add(`${res} ${g.name ? `${g.name}/${v}` : v}`);
    }
    assert.deepEqual([...seen].sort(), [...expected].sort());
    for (const g of demoGroups) {
      const res = g.versions[0]!.resources[0]!;
      const row = rows.find((l) => l.startsWith(`${res.resource} `));
      assert.ok(row, `row for ${res.resource}`);
      for (const s of res.shortNames) assert.ok(row.includes(s), `short name ${s} in ${row}`);
      assert.ok(row.includes(res.kind));
    }
  });

  test('get of a built-in: namespaces with the real columns', async () => {
    const r = await kubectl('get', 'namespaces');
    ok(r, 'get namespaces');
    const lines = r.stdout.trim().split('\n');
    assert.deepEqual(columns(lines[0]!), ['NAME', 'STATUS', 'AGE']);
    const names = lines.slice(1).map((l) => columns(l)[0]);
    for (const ns of ['default', 'kube-node-lease', 'kube-public', 'kube-system']) assert.ok(names.includes(ns), `${ns} in ${names.join(',')}`);
    assert.ok(lines.slice(1).every((l) => columns(l)[1] === 'Active'));
  });

  test('get of a demo custom resource across namespaces shows its printer columns (priority 1 only with -o wide)', async () => {
    const res = demoGroups.flatMap((g) => g.versions[0]!.resources).find((x) => x.namespaced && (x.crd?.spec?.versions ?? []).some((v: Obj) => (v.additionalPrinterColumns ?? []).length));
    assert.ok(res, 'a namespaced demo CRD with printer columns');
    const version = res.crd!.spec.versions.find((v: Obj) => v.name === res.version);
    const cols: Obj[] = version.additionalPrinterColumns;
    const r = await kubectl('get', `${res.resource}.${res.group}`, '-A');
    ok(r, 'get demo resource');
    const lines = r.stdout.trim().split('\n');
    assert.deepEqual(columns(lines[0]!), ['NAMESPACE', 'NAME', ...cols.filter((c) => !c.priority).map((c) => String(c.name).toUpperCase())]);
    assert.ok(lines.length > 1, 'objects listed');
    const wide = await kubectl('get', `${res.resource}.${res.group}`, '-A', '-o', 'wide');
    ok(wide, 'get -o wide');
    assert.deepEqual(columns(wide.stdout.split('\n')[0]!), ['NAMESPACE', 'NAME', ...cols.map((c) => String(c.name).toUpperCase())]);
    for (const s of res.shortNames) {
      const byShort = await kubectl('get', s, '-A', '-o', 'name');
      ok(byShort, `get ${s}`);
      assert.equal(byShort.stdout.trim().split('\n').length, lines.length - 1);
    }
  });

  test('get -o yaml returns the object', async () => {
    const r = await kubectl('get', 'namespace', 'kube-system', '-o', 'yaml');
    ok(r, 'get -o yaml');
    const o = load(r.stdout) as Obj;
    assert.equal(o.kind, 'Namespace');
    assert.equal(o.apiVersion, 'v1');
    assert.equal(o.metadata.name, 'kube-system');
    assert.match(o.metadata.uid, /^[0-9a-f-]{36}$/);
  });

  test('create -f of a CRD, then of an instance (validation on), get, explain, apply, delete', async () => {
    const crd = await kubectl('create', '-f', join(dir, 'crd.json'));
    ok(crd, 'create CRD');
    assert.equal(crd.stdout.trim(), 'customresourcedefinition.apiextensions.k8s.io/sprockets.kubectl-test.example.com created');
    const inst = await kubectl('create', '-f', join(dir, 'instance.json'));
    ok(inst, 'create instance');
    assert.equal(inst.stdout.trim(), 'sprocket.kubectl-test.example.com/sp1 created');
    assert.ok(server.requestLog.some((e) => e.method === 'POST' && e.path.endsWith('/sprockets') && e.query.includes('fieldValidation=Strict')), 'server-side field validation requested');
    const get = await kubectl('get', 'spk');
    ok(get, 'get spk');
    assert.deepEqual(get.stdout.trim().split('\n').map(columns), [['NAME', 'TEETH'], ['sp1', '12']]);
    const explain = await kubectl('explain', 'sprockets.spec');
    ok(explain, 'explain');
    assert.match(explain.stdout, /KIND:\s+Sprocket/);
    assert.match(explain.stdout, /teeth\s+<integer>\n\s+How many teeth the sprocket has\./);
    writeFileSync(join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: applied, namespace: default}\ndata: {a: "1"}\n');
    const apply = await kubectl('apply', '-f', join(dir, 'cm.yaml'));
    ok(apply, 'apply configmap');
    assert.equal(apply.stdout.trim(), 'configmap/applied created');
    const del = await kubectl('delete', 'sprocket', 'sp1');
    ok(del, 'delete instance');
    assert.equal(del.stdout.trim(), 'sprocket.kubectl-test.example.com "sp1" deleted');
    const delCrd = await kubectl('delete', '-f', join(dir, 'crd.json'));
    ok(delCrd, 'delete CRD');
    assert.equal((await kubectl('get', 'sprockets')).code, 1, 'the resource type is gone');
  });
});

describe('kubectl create -f of the corpus CRDs reproduces the corpus /apis', { skip }, () => {
  test('group order, versions and resources as in restmapper-corpus/aggregated-apis.json', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kdyn-kubectl-corpus-'));
    const server = await startServer({ tls: true, seed: 'empty' });
    try {
      server.writeKubeconfig(join(dir, 'kubeconfig'));
      const kubectl = kubectlIn(dir, join(dir, 'kubeconfig'));
      const r = await kubectl('create', '-f', join(fixturesDir(), 'restmapper-corpus', 'crds.yaml'));
      ok(r, 'create corpus CRDs');
      assert.equal(r.stdout.trim().split('\n').length, 7);
      const raw = await kubectl('get', '--raw', '/apis');
      ok(raw, 'get --raw /apis');
      const legacy = JSON.parse(raw.stdout) as Obj;
      const expected = JSON.parse(readFileSync(join(fixturesDir(), 'restmapper-corpus', 'aggregated-apis.json'), 'utf8')) as Obj;
      assert.deepEqual(legacy.groups.map((g: Obj) => g.name), expected.items.map((g: Obj) => g.metadata.name));
      assert.deepEqual(await aggregatedApis(server), expected);
      const resources = await kubectl('api-resources', '--api-group', 'multi.example.com', '-o', 'name');
      ok(resources, 'api-resources --api-group');
      assert.deepEqual(resources.stdout.trim().split('\n'), ['gears.multi.example.com', 'widgets.multi.example.com']);
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('kubectl against a server without aggregated discovery (--discovery legacy)', { skip }, () => {
  test('api-resources falls back to /api/v1 and /apis/G/V and lists the same resources', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kdyn-kubectl-legacy-'));
    const server = await startServer({ tls: true, seed: 'demo', discovery: 'legacy' });
    try {
      server.writeKubeconfig(join(dir, 'kubeconfig'));
      const r = await kubectlIn(dir, join(dir, 'kubeconfig'))('api-resources', '-o', 'name');
      ok(r, 'api-resources');
      const expected = new Set<string>();
      for (const g of catalogOf(server).groups()) for (const v of g.versions) for (const res of v.resources) expected.add(g.name ? `${res.resource}.${g.name}` : res.resource);
      assert.deepEqual(r.stdout.trim().split('\n').sort(), [...expected].sort());
      const paths = server.requestLog.map((e) => e.path);
      assert.ok(paths.includes('/api/v1') && paths.includes('/apis/apps/v1'), 'per-group-version documents were fetched');
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
