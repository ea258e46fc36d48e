// The `npm run local-apiserver` launcher (build/test/support/apiserver/main.js): prints exactly one
// `ready <url>` line, writes the kubeconfig, serves the seeds, and exits on SIGTERM, also with
// --extra-groups 1000 and --configmaps 20000. Their performance targets (ready in < 5 s; 20,000
// ConfigMaps paged by 500 in under 1 s) are benchmarks: `npm run bench -- --case server-start-1000,server-list-20k`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import https from 'node:https';
import { load } from 'js-yaml';

const MAIN = fileURLToPath(new URL('../../support/apiserver/main.js', import.meta.url));

function launch(args: string[]): Promise<{ url: string; elapsedMs: number; child: ReturnType<typeof spawn>; stdout: () => string; exited: Promise<number | null> }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (c) => (err += c));
    child.stdout!.on('data', (c) => {
      out += c;
      const m = /^ready (\S+)\n/.exec(out);
      if (m) resolve({ url: m[1]!, elapsedMs: performance.now() - t0, child, stdout: () => out, exited });
    });
    child.on('exit', (code) => reject(new Error(`launcher exited (${code}) before ready: ${err}`)));
  });
}

test('prints `ready <url>`, writes a TLS kubeconfig, serves the demo seed, stops on SIGTERM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-launcher-'));
  try {
    const kc = join(dir, 'kubeconfig');
    const s = await launch(['--tls', '--seed', 'demo', '--kubeconfig', kc, '--port', '0']);
    assert.match(s.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const cfg = load(readFileSync(kc, 'utf8')) as any;
    assert.equal(cfg.clusters[0].cluster.server, s.url);
    const ca = Buffer.from(cfg.clusters[0].cluster['certificate-authority-data'], 'base64').toString();
    const body = await new Promise<string>((resolve, reject) => {
      https.get(`${s.url}/apis/demo.kdyn.dev/v1/rockets`, { ca, headers: { authorization: `Bearer ${cfg.users[0].user.token}` } }, (res) => {
        let d = '';
        res.on('data', (c) => (d += c));
        res.on('end', () => resolve(d));
      }).on('error', reject);
    });
    assert.equal(JSON.parse(body).items.length, 3);
    s.child.kill('SIGTERM');
    assert.equal(await s.exited, 0);
    assert.equal(s.stdout(), `ready ${s.url}\n`, 'exactly one line on stdout');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bad flags exit 2 with a message', async () => {
  const child = spawn(process.execPath, [MAIN, '--seed', 'everything'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  const code = await new Promise((r) => child.on('exit', r));
  assert.equal(code, 2);
  assert.match(err, /--seed must be empty or demo/);
});

test('--extra-groups 1000 gets ready and serves them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-launcher-'));
  const kc = join(dir, 'kubeconfig');
  const s = await launch(['--extra-groups', '1000', '--kubeconfig', kc]);
  try {
    console.log(`# --extra-groups 1000: ready after ${s.elapsedMs.toFixed(0)} ms`);
    const token = (load(readFileSync(kc, 'utf8')) as any).users[0].user.token;
    const auth = { authorization: `Bearer ${token}` };
    const last = await fetch(`${s.url}/apis/g1000.extra.kdyn.dev/v1/namespaces/default/things`, { headers: auth });
    assert.equal(last.status, 200);
    assert.equal(((await last.json()) as any).kind, 'ThingList');
    const crds = (await (await fetch(`${s.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions?limit=1`, { headers: auth })).json()) as any;
    assert.equal(crds.metadata.remainingItemCount, 999);
  } finally {
    s.child.kill('SIGTERM');
    await s.exited;
    rmSync(dir, { recursive: true, force: true });
  }
});

test('20,000 ConfigMaps (--configmaps 20000) listed over HTTP in pages of 500, twice', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-launcher-'));
  const kc = join(dir, 'kubeconfig');
  const s = await launch(['--configmaps', '20000', '--kubeconfig', kc]);
  try {
    console.log(`# --configmaps 20000: ready after ${s.elapsedMs.toFixed(0)} ms`);
    const token = (load(readFileSync(kc, 'utf8')) as any).users[0].user.token;
    const rounds: number[] = [];
    for (let round = 0; round < 2; round++) {
      const t0 = performance.now();
      let cont = '';
      let n = 0;
      let pages = 0;
      for (;;) {
        const res = await fetch(`${s.url}/api/v1/namespaces/bench/configmaps?limit=500${cont ? `&continue=${cont}` : ''}`, { headers: { authorization: `Bearer ${token}` } });
        const list = (await res.json()) as any;
        n += list.items.length;
        pages++;
        cont = list.metadata.continue ?? '';
        if (!cont) break;
      }
      rounds.push(performance.now() - t0);
      assert.equal(n, 20000);
      assert.equal(pages, 40);
    }
    console.log(`# 20,000 ConfigMaps in 40 pages: ${rounds.map((ms) => `${ms.toFixed(0)} ms`).join(', then ')}`);
  } finally {
    s.child.kill('SIGTERM');
    await s.exited;
    rmSync(dir, { recursive: true, force: true });
  }
});
