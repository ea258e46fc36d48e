/**
 * Deleting the CRD of a watched type: the server sends the instances' DELETED events and ends the
 * stream; the type is then gone (404). kubectl get -w exits 0 after the DELETED rows; kdyn ends that
 * type's stream with one stderr line, goes on with the other types, and exits 0 when none is left.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock.js';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';
import { hasKubectl } from '../support/cli.js';
import type { DynamicClient } from '../../src/dynamic/client.js';
import { clientFor, envFor, startKdyn, startProcess } from './watch-helpers.js';

let env: ServerEnv;
let client: DynamicClient;

const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
const WIDGETS = { group: 'group.example.com', version: 'v1', resource: 'widgets' };
const GONE_LINE = 'Warning: watch of widgets.group.example.com ended: the resource type is no longer served (the server could not find the requested resource)\n';

before(async () => {
  // A fixed server clock: AGE cells are the same for kdyn and kubectl.
  env = await startServerEnv({ clock: new FakeClock(Date.UTC(2026, 10, 22, 12, 0, 0)) }, 'kdyn-e2e-watch-crd-delete-');
  client = clientFor(env.server);
});
after(async () => {
  await env.stop();
});

async function createWidgets(): Promise<void> {
  await client.resource(CRDS).create({
    metadata: { name: 'widgets.group.example.com' },
    spec: {
      group: 'group.example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  });
  const widgets = client.resource(WIDGETS, { namespaced: true }).namespace('default');
  for (const name of ['w1', 'w2']) await widgets.create({ apiVersion: 'group.example.com/v1', kind: 'Widget', metadata: { name } });
}

test('deleting a watched CRD ends its stream after the DELETED events: exit 0 alone, the other types go on', async (t) => {
  if (!hasKubectl()) t.diagnostic('kubectl not found on PATH: the comparison with kubectl get -w is skipped');
  await createWidgets();
  const kdynEnv = envFor(env.dir, env.kubeconfig);
  const kubectl = hasKubectl() ? startProcess('kubectl', ['get', 'widgets', '-w'], envFor(env.dir, env.kubeconfig, 'home-kubectl'), env.dir) : undefined;
  const getW = startKdyn(['get', 'widgets', '-w'], kdynEnv, env.dir);
  const alone = startKdyn(['watch', 'widgets', '-o', 'name'], kdynEnv, env.dir);
  const mixed = startKdyn(['watch', 'widgets,configmaps', '-o', 'name'], kdynEnv, env.dir);
  try {
    for (const p of [getW, alone, mixed, ...(kubectl ? [kubectl] : [])]) await p.until((o) => o.includes('w2'), 15_000, 'the widgets');
    await client.resource(CRDS).delete('widgets.group.example.com');

    const [a, g] = await Promise.all([alone.exited, getW.exited]);
    assert.equal(a.code, 0, alone.err());
    assert.equal(alone.out(), 'widget.group.example.com/w1\nwidget.group.example.com/w2\nwidget.group.example.com/w1\nwidget.group.example.com/w2\n', 'the ADDED, then the DELETED events');
    assert.equal(alone.err(), GONE_LINE);
    assert.equal(g.code, 0, getW.err());
    assert.equal(getW.err(), GONE_LINE);
    if (kubectl) {
      assert.equal((await kubectl.exited).code, 0, kubectl.err());
      assert.equal(getW.out(), kubectl.out(), 'get -w prints the DELETED rows as kubectl');
    }

    await mixed.until(() => mixed.err() === GONE_LINE, 15_000, 'the line about widgets');
    await client.resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace('default').create({ metadata: { name: 'still-watched' } });
    await mixed.until((o) => o.includes('configmap/still-watched\n'), 15_000, 'configmaps still watched');
    assert.equal(mixed.child.exitCode, null, 'still running');
    mixed.child.kill('SIGTERM');
    assert.equal((await mixed.exited).code, 143);
    assert.equal(mixed.err(), GONE_LINE, 'one line for the type that went away, nothing else');
  } finally {
    for (const p of [getW, alone, mixed, kubectl]) if (p && p.child.exitCode === null) p.child.kill('SIGKILL');
  }
});
