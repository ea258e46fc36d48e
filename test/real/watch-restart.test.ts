/**
 * Issue 35 on a real kube-apiserver v1.32: a watch by a user whose only rights are a Role survives a
 * restart (SIGKILL, then started again on the same port): the restarted server answers 403 until its
 * RBAC cache syncs, and its custom resources `503 Retry-After: 5` until their paths are installed.
 * Single context and fleet; the 403 made to last (the RoleBinding deleted while the server was
 * down, then made again) so that every run meets it; a Role revoked for good ends the watch with
 * kubectl's message after --retry-for. The diagnostics give how long after `/readyz` an object
 * created at that moment reached each watch.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parseJsonl, replay, sorted, startKdyn, stateLine, type Running } from '../e2e/watch-helpers.js';
import type { Unstructured } from '../../src/core/unstructured.js';
import { SKIP_REAL, startRealEnv, type RealEnv, type RoleGrant } from './real-helpers.js';
import { widgetsCrd } from './crd-fixtures.js';

const GROUP = 'restart.kdyn.dev';
const FORBIDDEN_LINE = /^Warning: watch of (\S+\/)?configmaps: Error from server \(Forbidden\): configmaps is forbidden: User "kdyn-nobody" cannot watch resource "configmaps" in API group "" in the namespace "[^"]+"; retrying for up to \d+s, as a restarting server answers so for a moment \(--retry-for\)$/;
const BACK_LINE = /^watch of (\S+\/)?configmaps: the server is back after \d+\.\ds; watching again$/;

describe('watch through a restart on a real kube-apiserver, as a user with a Role', { skip: SKIP_REAL }, () => {
  let env: RealEnv;
  before(async () => {
    env = await startRealEnv();
    const crd = await env.cluster.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetsCrd(GROUP));
    assert.equal(crd.status, 201, crd.body);
    const deadline = Date.now() + 60_000;
    while (!(await env.cluster.request('GET', `/apis/${GROUP}/v1`)).body.includes('"name":"widgets"')) {
      assert.ok(Date.now() < deadline, 'the CRD is not served after 60 s');
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  after(() => env?.stop());

  /** A namespace where the viewer (the noRights user) may read and watch configmaps and widgets. */
  async function viewerNamespace(prefix: string): Promise<{ ns: string; grant: RoleGrant }> {
    const ns = await env.namespace(prefix);
    const grant = await env.grant(ns, [{ apiGroups: ['', GROUP], resources: ['configmaps', 'widgets'], verbs: ['get', 'list', 'watch'] }]);
    return { ns, grant };
  }

  function start(t: { after(fn: () => void): void }, args: string[], kubeconfig: string): Running {
    const w = startKdyn([...args, '-o', 'jsonl'], { ...env.toolEnv(`home-${kubeconfig}`), KUBECONFIG: kubeconfig }, env.dir);
    t.after(() => w.child.kill('SIGKILL'));
    return w;
  }

  const viewer = () => env.cluster.kubeconfigs.noRights;
  const admin = () => env.cluster.kubeconfigs.token;
  /** Both as contexts of one kubeconfig list (`admin@real`, `no-rights@real`). */
  const both = () => `${admin()}:${viewer()}`;
  const events = (w: Running) => parseJsonl(w.out()) as Array<{ type: string; object: Unstructured; context?: string }>;
  const names = (w: Running, context?: string) => events(w).filter((e) => context === undefined || e.context === context).map((e) => `${e.type} ${e.object.metadata?.name}`);
  const has = (w: Running, name: string, context?: string) => names(w, context).includes(`ADDED ${name}`);
  const errLines = (w: Running) => w.err().split('\n').filter((l) => l !== '');
  const running = (w: Running) => w.child.exitCode === null && w.child.signalCode === null;

  async function configMap(ns: string, name: string): Promise<void> {
    const res = await env.cluster.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name }, data: { at: new Date().toISOString() } });
    assert.equal(res.status, 201, res.body);
  }
  async function widget(ns: string, name: string): Promise<void> {
    const res = await env.cluster.request('POST', `/apis/${GROUP}/v1/namespaces/${ns}/widgets`, { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name }, spec: { size: 1 } });
    assert.equal(res.status, 201, res.body);
  }
  async function serverState(ns: string): Promise<Map<string, string>> {
    const res = await env.cluster.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
    const items = (JSON.parse(res.body) as { items: Unstructured[] }).items.filter((o) => o.metadata?.name !== 'kube-root-ca.crt');
    return new Map(items.map((o) => [o.metadata!.name!, stateLine(o)]));
  }
  /** The configmaps as the watch printed them (one context's), without the namespace's root CA. */
  const printed = (w: Running, context?: string) => {
    const m = replay(events(w).filter((e) => e.object.metadata?.name !== 'kube-root-ca.crt' && (context === undefined || e.context === context)));
    return sorted(m);
  };

  /** SIGKILL, then started again; resolves when `/readyz` says ok, with that moment (ms). */
  async function restart(): Promise<number> {
    await env.cluster.kill({ graceful: false });
    await env.cluster.start();
    return Date.now();
  }

  test('a restart: the viewer\'s configmaps watch and the admin\'s custom-resource watch come back, no gap, no repeat', async (t) => {
    const { ns } = await viewerNamespace('restart-plain');
    await configMap(ns, 'before');
    await widget(ns, 'w-before');
    const cms = start(t, ['watch', 'configmaps', '-n', ns], viewer());
    const crs = start(t, ['watch', `widgets.${GROUP}`, '-n', ns], admin());
    await cms.until(() => has(cms, 'before'), 30_000, 'the viewer\'s initial list');
    await crs.until(() => has(crs, 'w-before'), 30_000, 'the admin\'s initial list of widgets');

    const ready = await restart();
    await Promise.all([configMap(ns, 'after'), widget(ns, 'w-after')]);
    const lag: string[] = [];
    await Promise.all([
      cms.until(() => has(cms, 'after'), 45_000, 'the viewer\'s event after the restart').then(() => lag.push(`viewer configmaps ${Date.now() - ready} ms`)),
      crs.until(() => has(crs, 'w-after'), 45_000, 'the admin\'s widget after the restart').then(() => lag.push(`admin widgets ${Date.now() - ready} ms`)),
    ]);
    t.diagnostic(`after /readyz, the object created then arrived in: ${lag.join(', ')}`);
    t.diagnostic(`viewer stderr: ${errLines(cms).join(' | ')}; admin stderr: ${errLines(crs).join(' | ')}`);
    assert.ok(running(cms) && running(crs), 'both watches still run');
    assert.deepEqual(names(cms).filter((n) => !n.includes('kube-root-ca')), ['ADDED before', 'ADDED after']);
    assert.deepEqual(names(crs), ['ADDED w-before', 'ADDED w-after']);
    assert.deepEqual(printed(cms), sorted(await serverState(ns)));
  });

  test('403 after the restart (the RoleBinding made again only then): one line when it starts, one when it clears, the watch goes on', async (t) => {
    const { ns, grant } = await viewerNamespace('restart-403');
    await configMap(ns, 'before');
    const w = start(t, ['watch', 'configmaps', '-n', ns], viewer());
    await w.until(() => has(w, 'before'), 30_000, 'the initial list');

    await grant.unbind(); // the open stream goes on: RBAC is checked when a request starts
    await restart();
    await configMap(ns, 'during');
    const deadline = Date.now() + 45_000;
    while (!errLines(w).some((l) => FORBIDDEN_LINE.test(l))) {
      assert.ok(running(w), `the watch ended: ${w.err()}`);
      assert.ok(Date.now() < deadline, `no 403 notice: ${w.err()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await grant.bind();
    const bound = Date.now();
    await w.until(() => has(w, 'during'), 45_000, 'the event made while the watch met 403');
    t.diagnostic(`the RoleBinding made again: the watch printed the object ${Date.now() - bound} ms later`);
    t.diagnostic(`stderr: ${errLines(w).join(' | ')}`);
    assert.ok(running(w));
    assert.equal(errLines(w).filter((l) => FORBIDDEN_LINE.test(l)).length, 1, w.err());
    assert.equal(errLines(w).filter((l) => BACK_LINE.test(l)).length, 1, w.err());
    assert.deepEqual(printed(w), sorted(await serverState(ns)));
  });

  test('a Role revoked for good: the watch ends after --retry-for with kubectl\'s message, exit 1', async (t) => {
    const { ns, grant } = await viewerNamespace('restart-revoked');
    await configMap(ns, 'before');
    const w = start(t, ['watch', 'configmaps', '-n', ns, '--retry-for', '3s'], viewer());
    await w.until(() => has(w, 'before'), 30_000, 'the initial list');
    await grant.unbind();
    await restart();
    const end = await Promise.race([w.exited, new Promise<undefined>((r) => setTimeout(r, 60_000, undefined))]);
    assert.ok(end, `still running 60 s after the restart: ${w.err()}`);
    assert.equal(end.code, 1, w.err());
    const lines = errLines(w);
    const notice = lines.findIndex((l) => FORBIDDEN_LINE.test(l));
    assert.ok(notice >= 0, w.err());
    assert.match(lines.at(-1)!, /^Error from server \(Forbidden\): configmaps is forbidden: User "kdyn-nobody" cannot watch resource "configmaps" in API group "" in the namespace "restart-revoked-\d+"$/);
    assert.ok(notice < lines.length - 1, 'retried before it ended');
  });

  test('fleet: the viewer\'s context meets 403 after the restart and stays in the watch with the admin\'s', async (t) => {
    const { ns, grant } = await viewerNamespace('restart-fleet');
    await configMap(ns, 'before');
    const w = start(t, ['watch', 'configmaps', '-n', ns, '--context', 'admin@real,no-rights@real'], both());
    await w.until(() => has(w, 'before', 'admin@real') && has(w, 'before', 'no-rights@real'), 30_000, 'both contexts\' initial lists');

    await grant.unbind();
    const ready = await restart();
    await configMap(ns, 'during');
    await w.until(() => has(w, 'during', 'admin@real'), 45_000, 'the admin context\'s event');
    t.diagnostic(`admin context: the object created at /readyz arrived ${Date.now() - ready} ms later`);
    const deadline = Date.now() + 45_000;
    while (!errLines(w).some((l) => FORBIDDEN_LINE.test(l))) {
      assert.ok(running(w), `the watch ended: ${w.err()}`);
      assert.ok(Date.now() < deadline, `no 403 notice: ${w.err()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await grant.bind();
    await w.until(() => has(w, 'during', 'no-rights@real'), 45_000, 'the viewer context\'s event after the RoleBinding came back');
    t.diagnostic(`stderr: ${errLines(w).join(' | ')}`);
    assert.ok(running(w));
    assert.ok(!/error: context/.test(w.err()), w.err());
    assert.match(w.err(), /^Warning: watch of no-rights@real\/configmaps: Error from server \(Forbidden\)/m);
    assert.match(w.err(), /^watch of no-rights@real\/configmaps: the server is back after/m);
    const server = sorted(await serverState(ns));
    assert.deepEqual(printed(w, 'admin@real'), server);
    assert.deepEqual(printed(w, 'no-rights@real'), server);
  });
});
