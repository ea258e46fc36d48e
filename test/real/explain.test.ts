/**
 * `kdyn explain` against a real kube-apiserver v1.32, next to kubectl v1.32 on the same server:
 * every served resource type, built-in field paths, --recursive, a CRD with a schema
 * (test/fixtures/explain/widgets-crd.yaml) in both of its versions, the errors; and freshness: a CRD
 * changed between two runs is explained anew by both tools at once (the hash in the index changed).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { HAS_KUBECTL, NO_KUBECTL, SKIP_REAL, startRealEnv, type RealEnv } from './real-helpers.js';
import { installCrd } from './crd-fixtures.js';
import { fixturesDir } from '../support/exchanges.js';

const WIDGETS = () => load(readFileSync(join(fixturesDir(), 'explain', 'widgets-crd.yaml'), 'utf8')) as Record<string, unknown>;

describe('kdyn explain next to kubectl explain on a real kube-apiserver', { skip: SKIP_REAL || (!HAS_KUBECTL && NO_KUBECTL) }, () => {
  let env: RealEnv;
  before(async () => {
    env = await startRealEnv();
    await installCrd(env, WIDGETS());
    await published((body) => body.includes('"apis/explain.kdyn.dev/v1"'), '/openapi/v3');
  });
  after(async () => {
    await env?.stop();
  });

  /** Waits (up to 60 s) until the server's answer at `path` satisfies `ok`: it publishes CRD schemas asynchronously. */
  async function published(ok: (body: string) => boolean, path: string): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (!ok((await env.cluster.request('GET', path)).body)) {
      if (Date.now() > deadline) throw new Error(`${path}: not published after 60 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function same(args: string[]): Promise<void> {
    const [k, c] = await Promise.all([env.kdyn(['explain', ...args]), env.kubectl(['explain', ...args])]);
    assert.deepEqual({ code: k.code, err: k.err, out: k.out }, { code: c.code, err: c.err, out: c.out }, `explain ${args.join(' ')}`);
  }

  test('every resource type the server serves', async () => {
    const list = await env.kubectl(['api-resources', '-o', 'name']);
    assert.equal(list.code, 0, list.err);
    const names = list.out.trim().split('\n');
    assert.ok(names.length > 50 && names.includes('widgets.explain.kdyn.dev'), names.join(' '));
    for (const name of names) await same([name]);
  });

  test('built-in field paths and --recursive', async () => {
    const cases = [
      ['pods.spec.containers'], ['deployments.apps.spec.strategy.type'], ['services.spec.type'], ['nodes.status.conditions'], ['pods.spec.volumes.projected'],
      ['configmaps', '--recursive'], ['pods.spec.containers', '--recursive'], ['customresourcedefinitions.spec.versions.schema', '--recursive'],
    ];
    for (const c of cases) await same(c);
  });

  test('a CRD: its schema, a short name, --api-version for the other version, --recursive', async () => {
    const cases = [['widgets'], ['wdg.spec'], ['widgets.spec.mode'], ['widgets.spec.size'], ["widgets.spec['with.dot']"], ['widgets', '--recursive'], ['widgets.spec', '--api-version=explain.kdyn.dev/v1beta1']];
    for (const c of cases) await same(c);
  });

  test('errors: an unknown field, an unknown type, the wrong --api-version', async () => {
    for (const c of [['pods.spec.nosuch'], ['widgets.spec.nosuch.deeper'], ['nosuchtype'], ['pods', '--api-version=apps/v1'], ['deploy.apps']]) await same(c);
  });

  test('asked again, answered from the explanations kept for the current hashes: the same bytes as kubectl', async () => {
    for (const c of [['pods'], ['pods.spec.containers'], ['configmaps', '--recursive'], ['widgets.spec.mode'], ['widgets.spec', '--api-version=explain.kdyn.dev/v1beta1'], ['pods.spec.nosuch']]) await same(c);
  });

  test('a CRD changed since the last run is explained anew by both tools', async () => {
    await same(['widgets.spec.docs']);
    const hashOf = (index: string) => (JSON.parse(index) as { paths: Record<string, { serverRelativeURL: string }> }).paths['apis/explain.kdyn.dev/v1']!.serverRelativeURL;
    const before = hashOf((await env.cluster.request('GET', '/openapi/v3')).body);
    const crd = WIDGETS() as { spec: { versions: Array<{ schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, { description?: string }> } } } } }> } };
    crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties.docs!.description = 'Described anew, after the first run.';
    const res = await env.cluster.request('PATCH', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.explain.kdyn.dev?fieldManager=test&force=true', crd, 'application/apply-patch+yaml');
    assert.ok(res.status < 300, res.body);
    // The server publishes the new schema a moment after the update, and names its new hash in the
    // index a moment after that (until then kubectl explains the old one too).
    await published((body) => !body.includes(before), '/openapi/v3');
    const k = await env.kdyn(['explain', 'widgets.spec.docs']);
    assert.equal(k.code, 0, k.err);
    assert.match(k.out, /Described anew, after the first run\./);
    // kubectl revalidates the index with If-Modified-Since, and a real server's Last-Modified has whole
    // seconds: within the second of the change kubectl may still get a 304 and explain the old schema
    // (kdyn sends no validator, so it is never staler). Once kubectl has the new one, both agree.
    for (const deadline = Date.now() + 30_000; !(await env.kubectl(['explain', 'widgets.spec.docs'])).out.includes('Described anew'); await new Promise((r) => setTimeout(r, 200))) {
      assert.ok(Date.now() < deadline, 'kubectl explains the changed CRD within 30 s');
    }
    await same(['widgets.spec.docs']);
  });
});
