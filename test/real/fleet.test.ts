/**
 * Fleet reads against real kube-apiservers v1.32 (issue 24): two API servers on one etcd (each its
 * own --etcd-prefix, so two clusters), one kubeconfig with a context for each, plus a context whose
 * user has no rights: `get` over the fleet (tables, -o name, -o jsonl, -o custom-columns), the
 * forbidden context as one line, `-n a,b`, a CRD created in one cluster after the discovery caches
 * were written, and one plain --context byte for byte as kubectl.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, dump } from 'js-yaml';
import { startEtcd, startRealApiServer, type Etcd, type RealCluster } from '../support/real-apiserver.js';
import { hasKubectl, runCommand, runKdyn, type Run } from '../support/cli.js';
import { SKIP_REAL } from './real-helpers.js';
import { widgetsCrd } from './crd-fixtures.js';

interface Kubeconfig {
  clusters: Array<{ name: string; cluster: unknown }>;
  users: Array<{ name: string; user: unknown }>;
  contexts: Array<{ name: string; context: { cluster: string; user: string } }>;
}

/** One kubeconfig with a context per (name, file): each file's first cluster and user renamed to `name`. */
function mergeKubeconfigs(entries: Array<[string, string]>): string {
  const out = { apiVersion: 'v1', kind: 'Config', clusters: [] as unknown[], users: [] as unknown[], contexts: [] as unknown[], 'current-context': entries[0]![0] };
  for (const [name, file] of entries) {
    const k = load(readFileSync(file, 'utf8')) as Kubeconfig;
    out.clusters.push({ name, cluster: k.clusters[0]!.cluster });
    out.users.push({ name, user: k.users[0]!.user });
    out.contexts.push({ name, context: { cluster: name, user: name } });
  }
  return dump(out, { lineWidth: -1 });
}

describe('fleet get on real kube-apiservers', { skip: SKIP_REAL }, () => {
  let etcd: Etcd;
  let east: RealCluster;
  let west: RealCluster;
  let dir: string;
  let kubeconfig: string;
  const env = () => ({ PATH: process.env.PATH, HOME: join(dir, 'home'), KUBECONFIG: kubeconfig });
  const kdyn = (args: string[]): Promise<Run> => runKdyn(args, { env: env(), cwd: dir });

  before(async () => {
    etcd = await startEtcd();
    [east, west] = await Promise.all([startRealApiServer({ etcd, etcdPrefix: '/fleet-east' }), startRealApiServer({ etcd, etcdPrefix: '/fleet-west' })]);
    dir = mkdtempSync(join(tmpdir(), 'kdyn-real-fleet-'));
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, mergeKubeconfigs([['east', east.kubeconfigs.token], ['west', west.kubeconfigs.token], ['west-nobody', west.kubeconfigs.noRights]]), { mode: 0o600 });
    for (const [c, names] of [[east, ['a1', 'a2']], [west, ['b1']]] as const) {
      for (const ns of ['fleet-a', 'fleet-b']) {
        await c.request('POST', '/api/v1/namespaces', { metadata: { name: ns } });
        for (const n of names) await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `${n}-${ns}` }, data: { k: n } });
      }
    }
  });
  after(async () => {
    await Promise.all([east?.stop(), west?.stop()]);
    await etcd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('--context east,west: every cluster\'s objects, CONTEXT first; each cluster its own data', async () => {
    const r = await kdyn(['get', 'configmaps', '-n', 'fleet-a', '--context', 'east,west']);
    assert.equal(r.code, 0, r.err);
    const rows = r.out.trim().split('\n').map((l) => l.split(/ +/).slice(0, 2).join(' '));
    assert.deepEqual(rows.filter((l) => !l.includes('kube-root-ca')), ['CONTEXT NAME', 'east a1-fleet-a', 'east a2-fleet-a', 'west b1-fleet-a']);
  });

  test('--all-contexts -o name: the forbidden context is one line, the others printed, exit 1', async () => {
    const r = await kdyn(['get', 'configmaps', '-n', 'fleet-b', '--all-contexts', '-o', 'name']);
    assert.equal(r.code, 1);
    // Each context's lines as it is done: east's and west's in either order.
    assert.deepEqual(r.out.split('\n').filter((l) => l && !l.includes('kube-root-ca')).sort(), ['east/configmap/a1-fleet-b', 'east/configmap/a2-fleet-b', 'west/configmap/b1-fleet-b']);
    assert.match(r.err, /^error: context "west-nobody": Error from server \(Forbidden\): configmaps is forbidden: User "kdyn-nobody" cannot list resource "configmaps"/);
    assert.equal(r.err.trim().split('\n').length, 1);
  });

  test('-n a,b over a glob, -o jsonl: context, namespace and object', async () => {
    const r = await kdyn(['get', 'configmaps', '-n', 'fleet-a,fleet-b', '--context', 'w*t', '-o', 'jsonl']);
    assert.equal(r.code, 0, r.err);
    const recs = r.out.trim().split('\n').map((l) => JSON.parse(l) as { context: string; object: { metadata: { name: string; namespace: string } } }).filter((x) => !x.object.metadata.name.startsWith('kube-root-ca'));
    assert.deepEqual(recs.map((x) => `${x.context} ${x.object.metadata.namespace}/${x.object.metadata.name}`), ['west fleet-a/b1-fleet-a', 'west fleet-b/b1-fleet-b']);
  });

  test('-o custom-columns: one table, CONTEXT then the user\'s columns', async () => {
    const r = await kdyn(['get', 'configmaps', '-n', 'fleet-a', '--context', 'east,west', '-o', 'custom-columns=NAME:.metadata.name,K:.data.k', '--field-selector', 'metadata.name!=kube-root-ca.crt']);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, 'CONTEXT   NAME         K\neast      a1-fleet-a   a1\neast      a2-fleet-a   a2\nwest      b1-fleet-a   b1\n');
  });

  test('a CRD created in one cluster after the caches were written: found there, the other names itself, exit 1', async () => {
    const warm = await kdyn(['get', 'configmaps', '-n', 'fleet-a', '--context', 'east,west', '-o', 'name']);
    assert.equal(warm.code, 0, warm.err);
    const created = await east.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetsCrd('fleet.kdyn.dev'));
    assert.equal(created.status, 201, created.body);
    const deadline = Date.now() + 60_000;
    while (!(await east.request('GET', '/apis/fleet.kdyn.dev/v1')).body.includes('"name":"widgets"')) {
      assert.ok(Date.now() < deadline, 'the CRD is not served after 60 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    const w = await east.request('POST', '/apis/fleet.kdyn.dev/v1/namespaces/fleet-a/widgets', { apiVersion: 'fleet.kdyn.dev/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 } });
    assert.equal(w.status, 201, w.body);
    const r = await kdyn(['get', 'widgets', '-n', 'fleet-a', '--context', 'east,west', '-o', 'name']);
    assert.equal(r.code, 1);
    assert.equal(r.out, 'east/widget.fleet.kdyn.dev/w1\n');
    assert.equal(r.err, 'error: context "west": the server doesn\'t have a resource type "widgets"\n');
  });

  test('one plain --context: byte for byte as kubectl', async (t) => {
    if (!hasKubectl()) return t.skip('kubectl not on PATH');
    const args = ['get', 'namespaces', 'fleet-a', 'fleet-b', '--context', 'west', '-o', 'name'];
    const [k, c] = await Promise.all([kdyn(args), runCommand('kubectl', args, { env: { ...env(), HOME: join(dir, 'home-kubectl') }, cwd: dir })]);
    assert.equal(c.code, 0, c.err);
    assert.equal(k.out, c.out);
  });
});
