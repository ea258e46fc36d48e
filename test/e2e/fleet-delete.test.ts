/**
 * `kdyn delete` on a fleet (issue 37, through the one delete path): the same objects deleted in
 * every selected context, each stdout line starting with its context (`east/configmap "a" deleted`,
 * `-o name` `east/configmap/a`), a context's per-object error naming it, a context that is down one
 * error line, exit 1; the good contexts' objects are gone. One context selected by a plain name is
 * kubectl's output, without a context.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { startFleetEnv, type FleetEnv } from '../support/fleet-env.js';
import { runKdyn, type Run } from '../support/cli.js';
import { toYAMLDocuments } from '../../src/printers/yaml.js';
import { clientFor } from './watch-helpers.js';

let env: FleetEnv;
const CM = { group: '', version: 'v1', resource: 'configmaps' };
const kdyn = (args: string[]): Promise<Run> => runKdyn(args, { env: { PATH: process.env.PATH, HOME: join(env.dir, 'home'), KUBECONFIG: env.kubeconfig }, cwd: env.dir });

before(async () => {
  env = await startFleetEnv({ contexts: ['east', 'west'], down: ['zz-down'], prefix: 'kdyn-fleet-delete-' });
});
after(() => env?.stop());

async function make(names: string[], contexts = ['east', 'west']): Promise<void> {
  for (const c of contexts) {
    const h = clientFor(env.servers.get(c)!).resource(CM, { namespaced: true }).namespace('demo');
    for (const name of names) {
      await h.delete(name).catch(() => undefined);
      await h.create({ metadata: { name } });
    }
  }
}

const exists = async (context: string, name: string) =>
  clientFor(env.servers.get(context)!).resource(CM, { namespaced: true }).namespace('demo').get(name).then(() => true, () => false);

test('-f to every context: lines by context in selection order, the down context one error line, exit 1', async () => {
  await make(['fa', 'fb']);
  const f = join(env.dir, 'fleet.yaml');
  writeFileSync(f, toYAMLDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fa' } }, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fb' } }]));
  const r = await kdyn(['delete', '-f', f, '-n', 'demo', '--all-contexts']);
  assert.equal(r.code, 1, r.err);
  assert.equal(r.out, 'east/configmap "fa" deleted\neast/configmap "fb" deleted\nwest/configmap "fa" deleted\nwest/configmap "fb" deleted\n');
  assert.match(r.err, /^error: context "zz-down": The connection to the server 127\.0\.0\.1:\d+ was refused - did you specify the right host or port\?\n$/);
  for (const c of ['east', 'west']) for (const n of ['fa', 'fb']) assert.equal(await exists(c, n), false, `${c}/${n} is gone`);
});

test('TYPE NAME on two contexts, -o name: CONTEXT/kind/name; a name missing in one context is that context\'s error', async () => {
  await make(['na']);
  await make(['nb'], ['east']);
  const r = await kdyn(['delete', 'cm', 'na', 'nb', '-n', 'demo', '--context', 'east,west', '-o', 'name']);
  assert.equal(r.code, 1);
  assert.equal(r.out, 'east/configmap/na\neast/configmap/nb\nwest/configmap/na\n');
  assert.equal(r.err, 'error: context "west": Error from server (NotFound): configmaps "nb" not found\n');
});

test('a plain --context name is kubectl\'s output (no context); nothing matched in any context: one `No resources found`', async () => {
  await make(['pa']);
  const one = await kdyn(['delete', 'cm', 'pa', '-n', 'demo', '--context', 'east']);
  assert.deepEqual([one.code, one.out, one.err], [0, 'configmap "pa" deleted\n', '']);
  assert.equal(await exists('west', 'pa'), true, 'the other context is untouched');
  const none = await kdyn(['delete', 'cm', '-l', 'app=none', '-n', 'demo', '--context', 'east,west']);
  assert.deepEqual([none.code, none.out, none.err], [0, 'No resources found\n', '']);
});
