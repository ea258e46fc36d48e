// The real kubectl (v1.32) against the local API server for watch and server-side apply:
// `kubectl get -w` (table and -o json) sees an event caused by another request; `kubectl apply
// --server-side` of a CRD and an instance twice (the second run changes nothing), a conflict between
// two field managers, then --force-conflicts. Skipped when kubectl is not on PATH.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type LocalApiServer } from '../../support/apiserver/server.js';
import { hasKubectl, runCommand, type Run } from '../../support/cli.js';
import { request } from 'node:https';
import { configMap } from './helpers.js';

interface Reply {
  status: number;
  json: any;
  text: string;
}

/** A request to the TLS server (kubectl sends bearer tokens only over TLS). */
function call(server: LocalApiServer, method: string, path: string, o: { body?: unknown; raw?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
  const body = o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body));
  const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', ...(o.headers ?? {}) };
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method, headers, ca: server.caPem }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => {
        let json: any;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, json, text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const skip = hasKubectl() ? false : 'kubectl not on PATH';

/** A long-running kubectl whose stdout can be awaited for a pattern. */
function kubectlStream(env: Record<string, string>, args: string[]) {
  const child = spawn('kubectl', args, { env });
  let out = '';
  let err = '';
  const waiters: Array<{ re: RegExp; resolve: () => void }> = [];
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    out += c;
    for (const w of [...waiters]) if (w.re.test(out)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  return {
    get out() {
      return out;
    },
    until(re: RegExp, ms = 15_000): Promise<void> {
      if (re.test(out)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`kubectl ${args.join(' ')}: no ${re} within ${ms} ms; stdout: ${out}; stderr: ${err}`)), ms);
        waiters.push({ re, resolve: () => (clearTimeout(t), resolve()) });
      });
    },
    stop: () => child.kill(),
  };
}

/** Polls a condition of the in-process server (no event tells when a client's request arrives). */
async function until(cond: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const GEARS_YAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gears.kubectl-ssa.example.com
spec:
  group: kubectl-ssa.example.com
  scope: Namespaced
  names:
    plural: gears
    singular: gear
    kind: Gear
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              teeth:
                type: integer
---
apiVersion: kubectl-ssa.example.com/v1
kind: Gear
metadata:
  name: g1
  namespace: default
spec:
  teeth: 12
`;

describe('kubectl get -w and apply --server-side against the local API server', { skip }, () => {
  let server: LocalApiServer;
  let dir: string;
  let env: Record<string, string>;
  const kubectl = (...args: string[]): Promise<Run> => runCommand('kubectl', args, { env, timeoutMs: 20_000 });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kdyn-kubectl-wa-'));
    server = await startServer({ seed: 'empty', tls: true });
    server.writeKubeconfig(join(dir, 'kubeconfig'));
    env = { PATH: process.env.PATH ?? '', HOME: dir, KUBECONFIG: join(dir, 'kubeconfig') };
  });
  after(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('kubectl get -w prints an object created by another request', async () => {
    assert.equal((await call(server, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap('before-watch', 'default') })).status, 201);
    const w = kubectlStream(env, ['get', 'configmaps', '-n', 'default', '-w']);
    try {
      await w.until(/^NAME\s+DATA\s+AGE\n.*before-watch\s+1\s+/m);
      assert.equal((await call(server, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap('made-later', 'default', { a: '1', b: '2' }) })).status, 201);
      await w.until(/^made-later\s+2\s+\S+/m);
    } finally {
      w.stop();
    }
  });

  test('kubectl get -w -o json prints the object of a later change as JSON', async () => {
    // kubectl v1.32 GETs one named object, prints it, then watches from resourceVersion 0 and drops
    // that watch's first (synthetic ADDED) event. A change made before the watch is open arrives in
    // that dropped event, so the change is made only once the server holds the watch open.
    await until(() => server.watches.count === 0, 'the previous test\'s watch to close');
    const w = kubectlStream(env, ['get', 'configmaps', 'made-later', '-n', 'default', '-w', '-o', 'json']);
    try {
      await w.until(/"name": "made-later"/);
      await until(() => server.watches.count === 1, 'kubectl\'s watch to open');
      const patch = await call(server, 'PATCH', '/api/v1/namespaces/default/configmaps/made-later', { raw: '{"data":{"c":"watched"}}', headers: { 'content-type': 'application/merge-patch+json' } });
      assert.equal(patch.status, 200);
      await w.until(/"c": "watched"/);
      const docs = w.out.split(/\n(?=\{)/).map((d) => JSON.parse(d));
      assert.equal(docs.at(-1).metadata.resourceVersion, patch.json.metadata.resourceVersion);
      assert.equal(docs.at(-1).kind, 'ConfigMap');
    } finally {
      w.stop();
    }
  });

  test('kubectl apply --server-side of a CRD plus an instance, twice: the second run changes nothing', async () => {
    // As on a real server, the instance is applied once the CRD is served (kubectl validates a
    // manifest's objects against the served OpenAPI before it applies any of them).
    const [crdYaml, gearYaml] = GEARS_YAML.split('---\n');
    writeFileSync(join(dir, 'crd.yaml'), crdYaml!);
    writeFileSync(join(dir, 'gear.yaml'), gearYaml!);
    const applyBoth = async (): Promise<string> => {
      const crd = await kubectl('apply', '--server-side', '-f', join(dir, 'crd.yaml'));
      assert.equal(crd.code, 0, crd.err);
      const gear = await kubectl('apply', '--server-side', '-f', join(dir, 'gear.yaml'));
      assert.equal(gear.code, 0, gear.err);
      return crd.out + gear.out;
    };
    const first = await applyBoth();
    assert.match(first, /customresourcedefinition.apiextensions.k8s.io\/gears.kubectl-ssa.example.com serverside-applied/);
    assert.match(first, /gear.kubectl-ssa.example.com\/g1 serverside-applied/);
    const crd1 = await call(server, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gears.kubectl-ssa.example.com');
    const gear1 = await call(server, 'GET', '/apis/kubectl-ssa.example.com/v1/namespaces/default/gears/g1');
    assert.equal(gear1.status, 200);
    assert.deepEqual(gear1.json.metadata.managedFields.map((e: any) => `${e.manager}/${e.operation}`), ['kubectl/Apply']);
    assert.deepEqual(gear1.json.metadata.managedFields[0].fieldsV1, { 'f:spec': { 'f:teeth': {} } });
    await applyBoth();
    const crd2 = await call(server, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gears.kubectl-ssa.example.com');
    const gear2 = await call(server, 'GET', '/apis/kubectl-ssa.example.com/v1/namespaces/default/gears/g1');
    assert.equal(crd2.json.metadata.resourceVersion, crd1.json.metadata.resourceVersion);
    assert.equal(gear2.json.metadata.resourceVersion, gear1.json.metadata.resourceVersion);
  });

  test('kubectl apply (client-side) of a CRD and its instance in one file fails as on a real v1.32 server, then succeeds', async () => {
    // kubectl-behaviour.md section 6: the CRD is applied, the instance's mapping is not found. This
    // needs /openapi/v2: kubectl's validation falls back to it for a group-version /openapi/v3 lacks.
    const file = join(dir, 'widgets.yaml');
    writeFileSync(file, GEARS_YAML.replaceAll('kubectl-ssa.example.com', 'kubectl-csa.example.com').replaceAll('gears', 'widgets').replaceAll('Gear', 'Widget').replaceAll('gear', 'widget'));
    const first = await kubectl('apply', '-f', file);
    assert.equal(first.code, 1);
    assert.equal(first.out, 'customresourcedefinition.apiextensions.k8s.io/widgets.kubectl-csa.example.com created\n');
    assert.equal(first.err, `error: resource mapping not found for name: "g1" namespace: "default" from "${file}": no matches for kind "Widget" in version "kubectl-csa.example.com/v1"\nensure CRDs are installed first\n`);
    const second = await kubectl('apply', '-f', file);
    assert.equal(second.code, 0, second.err);
    assert.match(second.out, /widget\.kubectl-csa\.example\.com\/g1 created/);
  });

  test('kubectl apply --server-side: a conflict between two field managers, then --force-conflicts', async () => {
    const file = join(dir, 'g1-other.yaml');
    writeFileSync(file, 'apiVersion: kubectl-ssa.example.com/v1\nkind: Gear\nmetadata:\n  name: g1\n  namespace: default\nspec:\n  teeth: 40\n');
    const refused = await kubectl('apply', '--server-side', '--field-manager=other', '-f', file);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /Apply failed with 1 conflict: conflict with "kubectl": \.spec\.teeth/);
    const forced = await kubectl('apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', file);
    assert.equal(forced.code, 0, forced.err);
    const gear = await call(server, 'GET', '/apis/kubectl-ssa.example.com/v1/namespaces/default/gears/g1');
    assert.equal(gear.json.spec.teeth, 40);
    assert.deepEqual(gear.json.metadata.managedFields.map((e: any) => `${e.manager}/${e.operation}`), ['other/Apply']);
  });
});
