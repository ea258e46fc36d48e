/**
 * `kdyn api-resources` and `kdyn get` against a real kube-apiserver v1.32, next to kubectl on the same
 * server: every output byte for byte (`-o jsonl`, which kubectl lacks, against kubectl's `-o json`
 * items), errors and exit codes, the three kubeconfigs (token, client certificate, no rights).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { HAS_KUBECTL, NO_KUBECTL, SKIP_REAL, sideBySide, startRealEnv, type RealEnv, type ToolOptions } from './real-helpers.js';
import { installCrd, WIDGETS_CRD } from './crd-fixtures.js';
import { startKdyn, startProcess } from '../e2e/watch-helpers.js';
import { assertSameTables } from '../support/table-ages.js';

describe('get and api-resources on a real kube-apiserver, next to kubectl', { skip: SKIP_REAL }, () => {
  let env: RealEnv;
  let ns: string;
  before(async () => {
    env = await startRealEnv();
    await installCrd(env, WIDGETS_CRD);
    ns = await env.namespace('get');
    // A pod needs the namespace's "default" service account, which no controller creates here.
    await env.create(`/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'default' } });
    await env.create(`/api/v1/namespaces/${ns}/pods`, {
      metadata: { name: 'web-0', labels: { app: 'web' } },
      spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] },
    });
    await env.create(`/api/v1/namespaces/${ns}/services`, { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } });
    await env.create(`/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 'token' }, stringData: { password: 'hunter2' } });
    for (const [name, tier] of [['alpha', 'front'], ['beta', 'back'], ['gamma', 'back']] as const) {
      await env.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name, labels: { tier } }, data: { k: name, 'multi.txt': 'line 1\nline 2\n' } });
      await env.create(`/apis/real.kdyn.dev/v1/namespaces/${ns}/widgets`, { apiVersion: 'real.kdyn.dev/v1', kind: 'Widget', metadata: { name, labels: { tier } }, spec: { size: name.length, color: tier } });
    }
  });
  after(() => env?.stop());

  /** Both tools with the same arguments: equal exit codes, stderr and stdout (AGE cells within a minute); returns kdyn's run. */
  async function same(t: { skip(msg: string): void }, args: string[], opts: ToolOptions = {}) {
    if (!HAS_KUBECTL) {
      t.skip(NO_KUBECTL);
      return env.kdyn(args, opts);
    }
    const { k, c } = await sideBySide(env, args, opts);
    assert.equal(k.code, c.code, `exit code of ${args.join(' ')}\nkdyn: ${k.err}\nkubectl: ${c.err}`);
    assert.equal(k.err, c.err, `stderr of ${args.join(' ')}`);
    assertSameTables(k.out, c.out, `stdout of ${args.join(' ')}`);
    return k;
  }

  describe('api-resources', () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /^NAME +SHORTNAMES +APIVERSION +NAMESPACED +KIND\nbindings +v1 +true +Binding\n/],
      [['-o', 'wide'], /^NAME +SHORTNAMES +APIVERSION +NAMESPACED +KIND +VERBS +CATEGORIES\n/],
      [['-o', 'name'], /^bindings\n[^]*\nwidgets\.real\.kdyn\.dev\n/],
      [['--namespaced=false', '--sort-by=kind'], /^NAME .*\napiservices /],
      [['--api-group=real.kdyn.dev'], /^NAME +SHORTNAMES +APIVERSION +NAMESPACED +KIND\nwidgets +wd +real\.kdyn\.dev\/v1 +true +Widget\n$/],
      [['--verbs=list,watch', '--no-headers'], /^configmaps +cm +v1 +true +ConfigMap\n/],
      [['--categories=all'], /\npods +po +v1 +true +Pod\n/],
    ];
    for (const [args, shape] of cases) {
      test(`api-resources ${args.join(' ')}`, async (t) => {
        const k = await same(t, ['api-resources', ...args]);
        assert.equal(k.code, 0, k.err);
        assert.match(k.out, shape);
      });
    }
  });

  describe('get: every output format, byte for byte', () => {
    const cases: Array<[string, string[], RegExp]> = [
      ['table', ['get', 'configmaps'], /^NAME +DATA +AGE\nalpha +2 +\d+s\n/],
      ['table, CRD printer columns', ['get', 'widgets'], /^NAME +SIZE +COLOR +AGE\nalpha +5 +front /],
      ['table, several types with kind/name', ['get', 'pods,svc,cm,widgets'], /^NAME +READY +STATUS +RESTARTS +AGE\npod\/web-0 +0\/1 +Pending[^]*\n\nNAME +TYPE +CLUSTER-IP[^]*widget\.real\.kdyn\.dev\/gamma /],
      ['table, -A and a label selector', ['get', 'widgets,configmaps', '-A', '-l', 'tier=back'], /^NAMESPACE +NAME +SIZE +COLOR +AGE\nget-\d+ +widget\.real\.kdyn\.dev\/beta /],
      ['table, --show-labels --sort-by', ['get', 'cm', '--show-labels', '--sort-by=.metadata.labels.tier'], /LABELS\nbeta .*tier=back/],
      ['table, one object', ['get', 'widget', 'beta'], /^NAME +SIZE +COLOR +AGE\nbeta +4 +back /],
      ['wide', ['get', 'pods,widgets', '-o', 'wide'], /^NAME +READY +STATUS +RESTARTS +AGE +IP +NODE +NOMINATED NODE +READINESS GATES\npod\/web-0 /],
      ['json', ['get', 'cm,widgets', '-o', 'json'], /^\{\n {4}"apiVersion": "v1",\n {4}"items": \[/],
      ['json, one object', ['get', 'secret', 'token', '-o', 'json'], /"password": "aHVudGVyMg=="/],
      ['yaml', ['get', 'pods,widgets', '-o', 'yaml'], /^apiVersion: v1\nitems:\n- apiVersion: v1\n {2}kind: Pod\n/],
      ['yaml, one object', ['get', 'cm', 'alpha', '-o', 'yaml'], /^apiVersion: v1\ndata:\n {2}k: alpha\n {2}multi\.txt: \|\n {4}line 1\n/],
      ['name', ['get', 'pods,svc,cm,widgets,secrets', '-o', 'name'], /^pod\/web-0\nservice\/web\nconfigmap\/alpha\n[^]*widget\.real\.kdyn\.dev\/alpha\n/],
      ['jsonpath', ['get', 'widgets', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.spec.size}{"\\n"}{end}'], /^alpha=5\nbeta=4\ngamma=5\n$/],
      ['jsonpath, filter', ['get', 'cm', '-o', 'jsonpath={.items[?(@.metadata.labels.tier=="back")].metadata.name}'], /^beta gamma$/],
      ['custom-columns', ['get', 'widgets,pods', '-o', 'custom-columns=NAME:.metadata.name,SIZE:.spec.size,PHASE:.status.phase'], /^NAME +SIZE +PHASE\nalpha +5 +<none>\n[^]*\nweb-0 +<none> +Pending\n$/],
      ['go-template', ['get', 'cm', '-o', 'go-template={{range .items}}{{.metadata.name}} {{index .data "k"}} {{.metadata.labels}}{{"\\n"}}{{end}}'], /^alpha alpha map\[tier:front\]\n/],
      ['jsonpath-as-json', ['get', 'widgets', '-o', 'jsonpath-as-json={.items[*].spec}'], /^\[\n {4}\{\n {8}"color": "front",\n {8}"size": 5\n {4}\},/],
      ['table, --show-kind and -L', ['get', 'widgets', '--show-kind', '-L', 'tier'], /^NAME +SIZE +COLOR +AGE +TIER\nwidget\.real\.kdyn\.dev\/alpha +5 +front +\d+s +front\n/],
      ['go-template on one object', ['get', 'pod', 'web-0', '-o', 'go-template={{range .spec.containers}}{{.name}}:{{.image}}{{end}}'], /^nginx:nginx:1\.27$/],
    ];
    for (const [what, args, shape] of cases) {
      test(`${what}: ${args.slice(1).join(' ')}`, async (t) => {
        const k = await same(t, [...args, '-n', ns]);
        assert.equal(k.code, 0, k.err);
        assert.match(k.out, shape);
      });
    }

    test('jsonl (kubectl has no such format): one object per line, the items of kubectl -o json', async (t) => {
      const k = await env.kdyn(['get', 'cm,widgets', '-n', ns, '-o', 'jsonl']);
      assert.equal(k.code, 0, k.err);
      const lines = k.out.trimEnd().split('\n').map((l) => JSON.parse(l) as { kind: string; metadata: { name: string } });
      assert.deepEqual(lines.map((o) => `${o.kind}/${o.metadata.name}`), ['ConfigMap/alpha', 'ConfigMap/beta', 'ConfigMap/gamma', 'Widget/alpha', 'Widget/beta', 'Widget/gamma']);
      if (!HAS_KUBECTL) return t.skip(NO_KUBECTL);
      const c = await env.kubectl(['get', 'cm,widgets', '-n', ns, '-o', 'json']);
      assert.deepEqual(lines, (JSON.parse(c.out) as { items: unknown[] }).items);
    });
  });

  test('get -w -o name and -o json: what kubectl get -w prints for the same changes', async (t) => {
    if (!HAS_KUBECTL) return t.skip(NO_KUBECTL);
    const wns = await env.namespace('get-watch');
    await env.create(`/api/v1/namespaces/${wns}/configmaps`, { metadata: { name: 'first' }, data: { k: '1' } });
    for (const format of ['name', 'json']) {
      const args = ['get', 'configmaps', '-n', wns, '-w', '-o', format];
      const k = startKdyn(args, env.toolEnv('home-kdyn'), env.dir);
      const c = startProcess('kubectl', args, env.toolEnv('home-kubectl'), env.dir);
      try {
        for (const w of [k, c]) await w.until((out) => out.includes('first'), 30_000, `${format}: the initial list`);
        const name = `second-${format}`;
        await env.create(`/api/v1/namespaces/${wns}/configmaps`, { metadata: { name }, data: { k: '2' } });
        const patched = await env.cluster.request('PATCH', `/api/v1/namespaces/${wns}/configmaps/${name}`, { data: { k: '3' } }, 'application/merge-patch+json');
        assert.equal(patched.status, 200, patched.body);
        const twice = (out: string) => out.split(name).length - 1 >= 2; // ADDED, then MODIFIED
        for (const w of [k, c]) await w.until(twice, 30_000, `${format}: the ADDED and MODIFIED events`);
        assert.equal(k.out(), c.out());
      } finally {
        k.child.kill('SIGKILL');
        c.child.kill('SIGKILL');
      }
    }
  });

  describe('errors and exit codes', () => {
    test('a missing name among found ones: the found ones, then NotFound (exit 1)', async (t) => {
      const k = await same(t, ['get', 'cm', 'alpha', 'nope', '-n', ns]);
      assert.equal(k.code, 1);
      assert.match(k.out, /^NAME +DATA +AGE\nalpha /);
      assert.equal(k.err, 'Error from server (NotFound): configmaps "nope" not found\n');
    });

    test('nothing in the namespace: the message on stderr (exit 0)', async (t) => {
      const k = await same(t, ['get', 'deployments', '-n', ns]);
      assert.equal(k.code, 0);
      assert.equal(k.err, `No resources found in ${ns} namespace.\n`);
    });

    test('an unknown type: kubectl\'s error, kdyn adds a suggestion (exit 1)', async (t) => {
      const k = await env.kdyn(['get', 'widgetz', '-n', ns]);
      assert.equal(k.code, 1);
      assert.equal(k.err, 'error: the server doesn\'t have a resource type "widgetz". Did you mean "widgets"?\n');
      if (!HAS_KUBECTL) return t.skip(NO_KUBECTL);
      const c = await env.kubectl(['get', 'widgetz', '-n', ns]);
      assert.equal(c.code, k.code);
      assert.equal(c.err, 'error: the server doesn\'t have a resource type "widgetz"\n');
    });

    test('a jsonpath that does not parse: kubectl\'s message, exit 2 before any request (kubectl: 1)', async (t) => {
      const args = ['get', 'cm', '-n', ns, '-o', 'jsonpath={.items[0].metadata.name'];
      const k = await env.kdyn(args);
      assert.equal(k.code, 2);
      assert.equal(k.err, "error: error parsing jsonpath {.items[0].metadata.name, unclosed action (see 'kdyn get --help')\n");
      if (!HAS_KUBECTL) return t.skip(NO_KUBECTL);
      const c = await env.kubectl(args);
      assert.equal(c.code, 1);
      assert.equal(c.err, 'error: error parsing jsonpath {.items[0].metadata.name, unclosed action\n');
    });
  });

  describe('authentication and authorization', () => {
    test('client-certificate kubeconfig: the same table as with the token', async (t) => {
      const k = await same(t, ['get', 'cm,widgets', '-n', ns], { kubeconfig: 'clientCert', home: 'home-cert' });
      assert.equal(k.code, 0, k.err);
      assert.match(k.out, /^NAME +DATA +AGE\nconfigmap\/alpha /);
    });

    test('a bad token: one line, exit 1 (kubectl, on a real server: five E-lines and a generic reason)', async (t) => {
      const args = ['get', 'cm', '-n', ns, '--token', 'not-a-token'];
      const k = await env.kdyn(args, { home: 'home-bad-token' });
      assert.equal(k.code, 1);
      assert.equal(k.err, 'error: You must be logged in to the server (Unauthorized)\n');
      if (!HAS_KUBECTL) return t.skip(NO_KUBECTL);
      // The real server answers 401 with a Status whose message is "Unauthorized"; kubectl's discovery
      // client does not decode it and reports client-go's generic text (the local server: "Unauthorized").
      const c = await env.kubectl(args, { home: 'home-bad-token' });
      assert.equal(c.code, k.code);
      assert.match(c.err, /memcache\.go:\d+\] "Unhandled Error" err="couldn't get current server API group list: the server has asked for the client to provide credentials"\n/);
      assert.match(c.err, /\nerror: You must be logged in to the server \(the server has asked for the client to provide credentials\)\n$/);
    });

    test('a user with no rights: Forbidden with the server\'s message', async (t) => {
      const k = await same(t, ['get', 'cm', '-n', ns], { kubeconfig: 'noRights', home: 'home-no-rights' });
      assert.equal(k.code, 1);
      assert.match(k.err, /^Error from server \(Forbidden\): configmaps is forbidden: User "kdyn-nobody" cannot list resource "configmaps" in API group "" in the namespace "get-\d+"\n$/);
    });

    test('a user with no rights can still discover (system:discovery): api-resources works', async (t) => {
      const k = await same(t, ['api-resources', '--api-group=real.kdyn.dev'], { kubeconfig: 'noRights', home: 'home-no-rights' });
      assert.equal(k.code, 0, k.err);
      assert.match(k.out, /\nwidgets +wd +real\.kdyn\.dev\/v1 +true +Widget\n$/);
    });

    test('a user with no rights watching: Forbidden, the watch stops (exit 1)', async (t) => {
      const k = await env.kdyn(['watch', 'cm', '-n', ns, '--timeout', '20s'], { kubeconfig: 'noRights', home: 'home-no-rights' });
      assert.equal(k.code, 1, k.out + k.err);
      assert.match(k.err, /Error from server \(Forbidden\): configmaps is forbidden: User "kdyn-nobody" cannot list resource "configmaps"/);
      if (!HAS_KUBECTL) return t.skip(NO_KUBECTL);
      const c = await env.kubectl(['get', 'cm', '-n', ns, '-w'], { kubeconfig: 'noRights', home: 'home-no-rights' });
      assert.equal(c.code, 1);
      assert.equal(k.err, c.err);
    });
  });
});
