/** `kdyn version` through the built CLI against the local API server (and kubectl's shape when present). */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { load } from 'js-yaml';
import { startServer, VERSION_INFO, type LocalApiServer } from '../support/apiserver/server.js';
import { KDYN, repoRoot, runCommand, type Run } from '../support/cli.js';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';

const root = repoRoot();
const pkgVersion = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

function run(cmd: string, args: string[], home: string, env: Record<string, string> = {}): Promise<Run> {
  return runCommand(cmd, args, { cwd: home, env: { PATH: process.env.PATH ?? '', HOME: home, ...env }, timeoutMs: 20_000 });
}
const kdyn = (args: string[], home: string, env?: Record<string, string>) => run(process.execPath, [KDYN, ...args], home, env);
const onPath = (name: string) => (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, name)));

let env: ServerEnv;
let s: LocalApiServer;
let home: string;
let kc: string;
before(async () => {
  assert.ok(existsSync(join(root, 'dist/cli/bin.js')), 'the CLI is built (node scripts/build.mjs)');
  env = await startServerEnv({ seed: 'empty' }, 'kdyn-e2e-version-');
  ({ server: s, dir: home, kubeconfig: kc } = env);
});
after(() => env.stop());

describe('kdyn version', () => {
  test('--client needs no kubeconfig and makes no request', async () => {
    s.clearLog();
    const r = await kdyn(['version', '--client'], home, { KUBECONFIG: kc });
    assert.equal(r.code, 0);
    assert.equal(r.out, `Client Version: v${pkgVersion}\n`);
    assert.equal(r.err, '');
    assert.equal(s.requestLog.length, 0);
  });

  test('client and server versions, from GET /version, as kdyn/<version>', async () => {
    s.clearLog();
    const r = await kdyn(['version'], home, { KUBECONFIG: kc });
    assert.equal(r.err, '');
    assert.equal(r.code, 0);
    assert.equal(r.out, `Client Version: v${pkgVersion}\nServer Version: ${VERSION_INFO.gitVersion}\n`);
    assert.deepEqual(s.requestLog.map((e) => `${e.method} ${e.path} ${e.status}`), ['GET /version 200']);
    assert.equal(s.requestLog[0]!.userAgent, `kdyn/${pkgVersion}`);
  });

  test('-o json: kubectl\'s structure', async () => {
    const r = await kdyn(['version', '-o', 'json', '--kubeconfig', kc], home);
    assert.equal(r.code, 0);
    const doc = JSON.parse(r.out) as { clientVersion: Record<string, string>; serverVersion: Record<string, string> };
    assert.deepEqual(Object.keys(doc), ['clientVersion', 'serverVersion']);
    assert.equal(doc.clientVersion.gitVersion, `v${pkgVersion}`);
    assert.equal(doc.clientVersion.major, pkgVersion.split('.')[0]);
    assert.deepEqual(doc.serverVersion, VERSION_INFO);
    assert.ok(r.out.startsWith('{\n  "clientVersion": {\n    "major": '), 'indented by two spaces, as kubectl');
  });

  test('-o json has the keys kubectl prints (kubectl on PATH)', async (t) => {
    if (!onPath('kubectl')) return t.skip('kubectl not on PATH');
    const [k, d] = await Promise.all([
      run('kubectl', ['version', '-o', 'json', '--kubeconfig', kc], home),
      kdyn(['version', '-o', 'json', '--kubeconfig', kc], home),
    ]);
    assert.equal(k.code, 0, k.err);
    const kj = JSON.parse(k.out) as Record<string, Record<string, string>>;
    const dj = JSON.parse(d.out) as Record<string, Record<string, string>>;
    assert.deepEqual(Object.keys(dj.clientVersion!), Object.keys(kj.clientVersion!));
    assert.deepEqual(dj.serverVersion, kj.serverVersion);
    // kustomizeVersion is kubectl-only
    assert.deepEqual(Object.keys(kj).filter((x) => x !== 'kustomizeVersion'), Object.keys(dj));
  });

  test('-o yaml', async () => {
    const r = await kdyn(['version', '-o', 'yaml', '--kubeconfig', kc], home);
    assert.equal(r.code, 0);
    const doc = load(r.out) as { clientVersion: { gitVersion: string }; serverVersion: unknown };
    assert.equal(doc.clientVersion.gitVersion, `v${pkgVersion}`);
    assert.deepEqual(doc.serverVersion, VERSION_INFO);
    assert.match(r.out, /^clientVersion:\n {2}buildDate: /, 'keys sorted, as kubectl');
    assert.match(r.out, /major: "1"/, 'numeric strings double-quoted, as kubectl');
  });

  test('server failure: the client version, then the error, exit 1 (also with -o json)', async () => {
    s.faults.add({ path: '/version', status: 500, body: 'database on fire', headers: { 'content-type': 'text/plain' } });
    try {
      const r = await kdyn(['version', '--kubeconfig', kc], home);
      assert.equal(r.code, 1);
      assert.equal(r.out, `Client Version: v${pkgVersion}\n`);
      assert.equal(r.err, 'Error from server (InternalError): an error on the server ("database on fire") has prevented the request from succeeding\n');
      const j = await kdyn(['version', '-o', 'json', '--kubeconfig', kc], home);
      assert.equal(j.code, 1);
      assert.deepEqual(Object.keys(JSON.parse(j.out)), ['clientVersion']);
    } finally {
      s.faults.clear();
    }
  });

  test('a hostile /version answer (200 with garbage, or JSON without gitVersion): one-line error', async () => {
    try {
      s.faults.add({ path: '/version', status: 200, body: '<html>captive portal</html>', headers: { 'content-type': 'text/html' }, times: 1 });
      const r = await kdyn(['version', '--kubeconfig', kc], home);
      assert.equal(r.code, 1);
      assert.match(r.err, /^error: the server's response to https:\/\/127\.0\.0\.1:\d+\/version\?timeout=32s \(HTTP 200\) could not be decoded as JSON: [^\n]*\n$/);
      s.faults.add({ path: '/version', status: 200, body: '{"kind":"Pod"}', times: 1 });
      const r2 = await kdyn(['version', '--kubeconfig', kc], home);
      assert.equal(r2.code, 1);
      assert.match(r2.err, /^error: the server's answer to https:\/\/127\.0\.0\.1:\d+\/version\?timeout=32s is not version information \(no gitVersion\)\n$/);
    } finally {
      s.faults.clear();
    }
  });

  test('503 with Retry-After is retried and then succeeds', async () => {
    s.faults.add({ path: '/version', status: 503, headers: { 'retry-after': '0' }, times: 1 });
    s.clearLog();
    const r = await kdyn(['version', '--kubeconfig', kc], home);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(s.requestLog.map((e) => e.status), [503, 200]);
  });

  test('-v=6: one request line per HTTP request, no token; -v=8 masks Authorization', async () => {
    const r = await kdyn(['version', '--kubeconfig', kc, '-v=6'], home);
    assert.equal(r.code, 0);
    const lines = r.err.split('\n').filter((l) => / in \d+ milliseconds$/.test(l));
    assert.equal(lines.length, 1, r.err);
    assert.match(lines[0]!, new RegExp(`round_trippers\\.go:\\d+\\] GET ${s.url.replace(/\./g, '\\.')}/version\\?timeout=32s 200 OK in \\d+ milliseconds$`));
    assert.ok(!r.err.includes(s.token));
    const r8 = await kdyn(['version', '--kubeconfig', kc, '-v=8'], home);
    assert.match(r8.err, /Authorization: Bearer <masked>/);
    assert.ok(!r8.err.includes(s.token));
  });

  test('an oidc auth-provider user: the bundled client-node chunk loads on demand and authenticates', async () => {
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const idToken = `${b64({ alg: 'RS256' })}.${b64({ sub: 'alice', exp: Math.floor(Date.now() / 1000) + 3600 })}.c2ln`;
    const oidc = await startServer({ tls: true, seed: 'empty', token: idToken });
    try {
      const f = join(home, 'oidc.yaml');
      (await import('node:fs')).writeFileSync(f, JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'o',
        clusters: [{ name: 'o', cluster: { server: oidc.url, 'certificate-authority-data': Buffer.from(oidc.caPem!).toString('base64') } }],
        users: [{ name: 'o', user: { 'auth-provider': { name: 'oidc', config: { 'client-id': 'kdyn', 'id-token': idToken, 'idp-issuer-url': 'https://issuer.kdyn-test.invalid' } } } }],
        contexts: [{ name: 'o', context: { cluster: 'o', user: 'o' } }],
      }));
      const r = await kdyn(['version', '--kubeconfig', f, '-v=8'], home);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /Server Version: v1\.32/);
      assert.ok(!r.err.includes(idToken), 'the id-token is never logged');
    } finally {
      await oidc.stop();
    }
  });

  test('--server and --token without a kubeconfig', async () => {
    const ca = join(home, 'ca.crt');
    (await import('node:fs')).writeFileSync(ca, s.caPem!);
    const r = await kdyn(['version', '--server', s.url, '--token', s.token, '--certificate-authority', ca], home);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /Server Version: v1\.32/);
  });
});
