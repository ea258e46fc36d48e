/**
 * Issue 15's robustness cases, each through the built CLI (`node bin/kdyn`) over a real socket:
 * small hand-made servers for malformed framing, endless interim responses, huge discovery bodies
 * and servers that never answer; the local API server for the rest (timeouts sent as `?timeout=`,
 * `--sort-by` string order next to kubectl, usage errors, stale staging directories), and a
 * corrupted V8 code cache entry.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HAS_KUBECTL, startGetEnv, type GetEnv } from './get-helpers.js';
import { repoRoot, runKdyn, type Run } from '../support/cli.js';
import { connect, type Connection } from '../../src/connect.js';
import { DISCOVERY_TIMEOUT_MS } from '../../src/core/timeouts.js';

/** A hand-made HTTP server: `answer(requestLine, socket)` writes whatever bytes the case needs. */
interface RawServer {
  url: string;
  /** Request lines received (`GET /api?timeout=32s HTTP/1.1`). */
  requests: string[];
  /** Sockets closed by the client so far. */
  closed: number;
  stop(): Promise<void>;
}

async function rawServer(answer: (requestLine: string, socket: Socket) => void): Promise<RawServer> {
  const sockets = new Set<Socket>();
  const state = { requests: [] as string[], closed: 0 };
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    let buf = '';
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      state.closed++;
    });
    socket.on('data', (d) => {
      buf += d.toString('latin1');
      let end: number;
      while ((end = buf.indexOf('\r\n\r\n')) >= 0) {
        const line = buf.slice(0, buf.indexOf('\r\n'));
        buf = buf.slice(end + 4);
        state.requests.push(line);
        answer(line, socket);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    get closed() {
      return state.closed;
    },
    stop: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

const JSON_HEAD = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n';
const json = (body: unknown) => {
  const text = JSON.stringify(body);
  return `${JSON_HEAD}Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
};
/** Legacy discovery with only core v1 pods, so `get pods` reaches the list request. */
function legacyDiscovery(line: string): string | undefined {
  const path = line.split(' ')[1]!.split('?')[0];
  if (path === '/api') return json({ kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
  if (path === '/apis') return json({ kind: 'APIGroupList', apiVersion: 'v1', groups: [] });
  if (path === '/api/v1') {
    return json({ kind: 'APIResourceList', groupVersion: 'v1', resources: [{ name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get', 'list'] }] });
  }
  return undefined;
}
const MALFORMED_CHUNKED = `${JSON_HEAD}Transfer-Encoding: chunked\r\n\r\nZZZ\r\n{}\r\n0\r\n\r\n`;

let scratch: string;
before(() => {
  assert.ok(existsSync(join(repoRoot(), 'dist/cli/bin.js')), 'the CLI is built (node scripts/build.mjs)');
  scratch = mkdtempSync(join(tmpdir(), 'kdyn-e2e-robust-'));
});
after(() => rmSync(scratch, { recursive: true, force: true }));

let homes = 0;
/** kdyn against a plain-http server, with a fresh HOME (cold caches) unless `home` is given. */
function kdynAt(url: string, args: string[], extraEnv: Record<string, string> = {}, home = join(scratch, `home-${++homes}`)): Promise<Run> {
  mkdirSync(home, { recursive: true });
  const kubeconfig = join(home, 'kubeconfig');
  writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: raw\n  cluster:\n    server: ${url}\ncontexts:\n- name: c\n  context: {cluster: raw, user: u}\nusers:\n- name: u\n  user: {}\n`);
  return runKdyn(args, { env: { PATH: process.env.PATH, HOME: home, KUBECONFIG: kubeconfig, ...extraEnv }, cwd: home, timeoutMs: 30_000 });
}

function oneLine(r: Run): string {
  const lines = r.err.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${r.err}`);
  return lines[0]!;
}

describe('1: a malformed chunked body in the same read as the headers', () => {
  let raw: RawServer;
  before(async () => {
    raw = await rawServer((line, socket) => socket.write(legacyDiscovery(line) ?? MALFORMED_CHUNKED));
  });
  after(() => raw.stop());

  test('version: the client version, then the body error, exit 1', async () => {
    const r = await kdynAt(raw.url, ['version']);
    assert.equal(r.code, 1, r.err);
    assert.equal(r.out, 'Client Version: v0.1.0\n');
    assert.equal(oneLine(r), 'error: unexpected error when reading response body. Please retry. Original error: invalid byte in chunk length');
  });

  for (const output of [[], ['-o', 'json'], ['-o', 'name']]) {
    test(`get pods ${output.join(' ')}: the body error, exit 1`, async () => {
      const r = await kdynAt(raw.url, ['get', 'pods', ...output]);
      assert.equal(r.code, 1, r.err);
      // kubectl prints the (empty) List of what it found, then the error.
      assert.equal(r.out, output[1] === 'json' ? '{\n    "apiVersion": "v1",\n    "items": [],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n' : '');
      assert.match(oneLine(r), /^error: unexpected error when reading response body\. Please retry\. Original error: invalid byte in chunk length$/);
      assert.ok(raw.requests.some((l) => l.startsWith('GET /api/v1/namespaces/default/pods')), 'the list was requested');
    });
  }

  test('discovery itself malformed: get exits 1 with the body error', async () => {
    const bad = await rawServer((_line, socket) => socket.write(MALFORMED_CHUNKED));
    try {
      const r = await kdynAt(bad.url, ['get', 'pods']);
      assert.equal(r.code, 1, r.err);
      assert.match(r.err, /invalid byte in chunk length/);
    } finally {
      await bad.stop();
    }
  });
});

describe('1: no command ends with exit 0 while its work is unfinished', () => {
  /** Runs the CLI's exit guard (build/src/startup/exit-guard.js), as src/cli/bin.ts wires it, in a real process around `work`. */
  function guarded(work: string): Promise<Run> {
    const guard = pathToFileURL(join(repoRoot(), 'build/src/startup/exit-guard.js')).href;
    const report = pathToFileURL(join(repoRoot(), 'build/src/cli/report-error.js')).href;
    const script = `import { exitWhenSettled } from ${JSON.stringify(guard)};
import { reportError } from ${JSON.stringify(report)};
const io = { stderr: { write: (s) => process.stderr.write(s) } };
exitWhenSettled(${work}, io, (e) => reportError(e, 9, io, ''));`;
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
      child.on('close', (code) => resolve({ code: code ?? -1, out, err }));
    });
  }

  test('a command whose promise can never settle: one-line error, exit 1 (Node alone would exit 0)', async () => {
    const r = await guarded('new Promise(() => {})');
    assert.equal(r.code, 1);
    assert.equal(oneLine(r), 'error: internal error: kdyn stopped before its work was finished (an operation it waited for can never complete)');
  });

  test('a command that settles after pending timers: its own code, no message', async () => {
    const r = await guarded('new Promise((resolve) => setTimeout(() => resolve(3), 50))');
    assert.equal(r.code, 3);
    assert.equal(r.err, '');
  });

  test('a command that fails: its one-line error, exit 1', async () => {
    const r = await guarded('Promise.reject(new Error("boom"))');
    assert.equal(r.code, 1);
    // An error that escaped main's own boundary is a bug: its stack follows the message.
    assert.equal(r.err.split('\n')[0], 'error: boom');
  });
});

describe('8: interim responses and discovery document size', () => {
  const interim = (n: number) => 'HTTP/1.1 102 Processing\r\n\r\n'.repeat(n);

  test('6 interim 102 responses: Go\'s "too many 1xx" error, exit 1', async () => {
    const raw = await rawServer((_line, socket) => socket.write(interim(6) + json({ major: '1', minor: '32', gitVersion: 'v1.32.0' })));
    try {
      const r = await kdynAt(raw.url, ['version']);
      assert.equal(r.code, 1, r.err);
      assert.equal(oneLine(r), 'Unable to connect to the server: net/http: HTTP/1.x transport connection broken: net/http: too many 1xx informational responses');
    } finally {
      await raw.stop();
    }
  });

  test('an endless stream of interim responses stops after the cap (the connection is closed)', async () => {
    const raw = await rawServer((_line, socket) => {
      const pump = () => {
        while (!socket.destroyed && socket.write(interim(1000)));
        if (!socket.destroyed) socket.once('drain', pump);
      };
      pump();
    });
    try {
      const r = await kdynAt(raw.url, ['version']);
      assert.equal(r.code, 1, r.err);
      assert.match(oneLine(r), /too many 1xx informational responses$/);
    } finally {
      await raw.stop();
    }
  });

  test('5 interim responses (Go\'s limit) are still accepted', async () => {
    const raw = await rawServer((_line, socket) => socket.write(interim(5) + json({ major: '1', minor: '32', gitVersion: 'v1.32.0' })));
    try {
      const r = await kdynAt(raw.url, ['version']);
      assert.equal(r.code, 0, r.err);
      assert.equal(r.out, 'Client Version: v0.1.0\nServer Version: v1.32.0\n');
    } finally {
      await raw.stop();
    }
  });

  test('a discovery document announced larger than 64 MiB: clear error before reading it', async () => {
    const raw = await rawServer((line, socket) => {
      if (line.includes('/apis')) socket.write(json({ kind: 'APIGroupList', apiVersion: 'v1', groups: [] }));
      else socket.write(`${JSON_HEAD}Content-Length: ${64 * 2 ** 20 + 1}\r\n\r\n{"kind":`);
    });
    try {
      const r = await kdynAt(raw.url, ['get', 'pods']);
      assert.equal(r.code, 1, r.err);
      assert.equal(oneLine(r), "error: the server's response to /api is larger than 64 MiB, kdyn's limit for it; not reading further");
    } finally {
      await raw.stop();
    }
  });

  test('an endless chunked discovery document: the same error once 64 MiB arrived, flat memory', async () => {
    const piece = Buffer.alloc(1 << 20, 0x20);
    const chunk = Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]);
    const raw = await rawServer((line, socket) => {
      if (!line.startsWith('GET /api?')) return void socket.write(json({ kind: 'APIGroupList', apiVersion: 'v1', groups: [] }));
      socket.write(`${JSON_HEAD}Transfer-Encoding: chunked\r\n\r\n`);
      const pump = () => {
        while (!socket.destroyed && socket.write(chunk));
        if (!socket.destroyed) socket.once('drain', pump);
      };
      pump();
    });
    try {
      const r = await kdynAt(raw.url, ['get', 'pods']);
      assert.equal(r.code, 1, r.err);
      assert.equal(oneLine(r), "error: the server's response to /api is larger than 64 MiB, kdyn's limit for it; not reading further");
    } finally {
      await raw.stop();
    }
  });
});

describe('4: discovery timeout and ?timeout=', () => {
  test('a server that accepts and never answers: discovery gives up (32 s, shortened here by the test hook), exit 1', async () => {
    const raw = await rawServer(() => undefined);
    try {
      const started = Date.now();
      const r = await kdynAt(raw.url, ['get', 'pods'], { KDYN_TEST_DISCOVERY_TIMEOUT_MS: '400' });
      assert.equal(r.code, 1, r.err);
      assert.match(oneLine(r), /^Unable to connect to the server: net\/http: request canceled \(Client\.Timeout exceeded/);
      // Which limit ended it (not a speed limit): the hook's 400 ms, not the 32 s default.
      assert.ok(Date.now() - started < DISCOVERY_TIMEOUT_MS, 'the test hook shortened the discovery timeout');
      assert.ok(raw.requests.length > 0 && raw.requests.every((l) => /^GET \/apis?\?timeout=400ms HTTP\/1\.1$/.test(l)), raw.requests.join('\n'));
    } finally {
      await raw.stop();
    }
  });
});

test('4: version against a server that never answers: the client version, then the same time limit (kubectl asks /version through discovery)', async () => {
  const raw = await rawServer(() => undefined);
  try {
    const r = await kdynAt(raw.url, ['version'], { KDYN_TEST_DISCOVERY_TIMEOUT_MS: '300' });
    assert.equal(r.code, 1, r.err);
    assert.equal(r.out, 'Client Version: v0.1.0\n');
    assert.match(oneLine(r), /^Unable to connect to the server: net\/http: request canceled \(Client\.Timeout exceeded/);
    assert.deepEqual(raw.requests, ['GET /version?timeout=300ms HTTP/1.1']);
  } finally {
    await raw.stop();
  }
});

describe('with the local API server', () => {
  let env: GetEnv;
  let conn: Connection;
  before(async () => {
    env = await startGetEnv();
    conn = await connect({ kubeconfig: env.kubeconfig, env: { HOME: env.dir }, cacheDir: join(env.dir, 'lib-cache') });
    const cms = conn.client.resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace('demo');
    for (const name of ['a2', 'a10', 'a1', 'b', 'a01']) await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `sort-${name}`, labels: { sort: 'yes' } }, data: { v: name } });
  });
  after(async () => {
    conn.close();
    await env.stop();
  });

  test('4: discovery URLs say timeout=32s; lists and gets carry no timeout without --request-timeout', async () => {
    const home = join(env.dir, 'home-timeouts');
    env.server.clearLog();
    const r = await env.kdyn(['get', 'configmaps', '-n', 'demo', '--cache-dir', join(home, 'cache')]);
    assert.equal(r.code, 0, r.err);
    const kdynLog = env.server.requestLog.filter((e) => e.userAgent.startsWith('kdyn'));
    const discovery = kdynLog.filter((e) => /^\/apis?(\/[^/]+(\/[^/]+)?)?$/.test(e.path) && !e.path.includes('namespaces'));
    assert.ok(discovery.length >= 2);
    for (const e of discovery) assert.equal(e.query, 'timeout=32s', e.path);
    const list = kdynLog.find((e) => e.path === '/api/v1/namespaces/demo/configmaps');
    assert.ok(list && !list.query.includes('timeout'), list?.query);
    env.server.clearLog();
    const v = await env.kdyn(['version']);
    assert.equal(v.code, 0, v.err);
    assert.deepEqual(env.server.requestLog.map((e) => `${e.path}?${e.query}`), ['/version?timeout=32s']);
  });

  test('4: --request-timeout is sent as ?timeout= on discovery, list and get (as kubectl)', async (t) => {
    const cache = join(env.dir, 'cache-rt');
    env.server.clearLog();
    const list = await env.kdyn(['get', 'configmaps', '-n', 'demo', '--request-timeout=5s', '--cache-dir', cache]);
    assert.equal(list.code, 0, list.err);
    const one = await env.kdyn(['get', 'configmap', 'sort-b', '-n', 'demo', '--request-timeout=1m', '-o', 'name', '--cache-dir', cache]);
    assert.equal(one.code, 0, one.err);
    const q = (agent: string) =>
      env.server.requestLog
        .filter((e) => e.userAgent.startsWith(agent))
        .map((e) => `${e.path.replace(/^\/apis?\/.*\/v1$/, '/GV')} ${e.query.replace(/limit=\d+&?|includeObject=\w+&?/g, '')}`);
    const kdyn = [...new Set(q('kdyn'))];
    assert.ok(kdyn.includes('/api timeout=5s'), kdyn.join('\n'));
    assert.ok(kdyn.includes('/api/v1/namespaces/demo/configmaps timeout=5s'), kdyn.join('\n'));
    assert.ok(kdyn.includes('/api/v1/namespaces/demo/configmaps/sort-b timeout=1m0s'), kdyn.join('\n'));
    if (!HAS_KUBECTL) return t.skip('kubectl not found on PATH: no side-by-side check');
    env.server.clearLog();
    await env.kubectl(['get', 'configmaps', '-n', 'demo', '--request-timeout=5s']);
    await env.kubectl(['get', 'configmap', 'sort-b', '-n', 'demo', '--request-timeout=1m', '-o', 'name']);
    const kubectl = new Set(q('kubectl'));
    for (const line of ['/api timeout=5s', '/api/v1/namespaces/demo/configmaps timeout=5s', '/api/v1/namespaces/demo/configmaps/sort-b timeout=1m0s']) {
      assert.ok(kubectl.has(line), `kubectl sent ${line}: ${[...kubectl].join('\n')}`);
    }
  });

  test('3: --sort-by=.metadata.name is kubectl v1.32\'s plain string order (a1 a10 a2)', async (t) => {
    const args = ['get', 'configmaps', '-n', 'demo', '-l', 'sort=yes', '--sort-by=.metadata.name', '-o', 'name'];
    const r = await env.kdyn(args);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, ['a01', 'a1', 'a10', 'a2', 'b'].map((n) => `configmap/sort-${n}\n`).join(''));
    const table = await env.kdyn(['get', 'configmaps', '-n', 'demo', '-l', 'sort=yes', '--sort-by=.data.v', '--no-headers']);
    assert.deepEqual(table.out.trimEnd().split('\n').map((l) => l.split(/\s+/)[0]), ['sort-a01', 'sort-a1', 'sort-a10', 'sort-a2', 'sort-b']);
    if (!HAS_KUBECTL) return t.skip('kubectl not found on PATH: no side-by-side check');
    const c = await env.kubectl(args);
    assert.equal(r.out, c.out);
    const ct = await env.kubectl(['get', 'configmaps', '-n', 'demo', '-l', 'sort=yes', '--sort-by=.data.v', '--no-headers']);
    assert.equal(table.out, ct.out);
  });

  describe('7: usage errors exit 2; `get pods,` and --chunk-size=-1 are errors', () => {
    for (const [args, message] of [
      [['get'], 'error: Required resource not specified. Use "kdyn api-resources" for a complete list of supported resources. (see \'kdyn get --help\')'],
      [['get', 'pods/'], "error: arguments in resource/name form must have a single resource and name (see 'kdyn get --help')"],
      [['get', 'pods', '-o', 'jsonpath={.items['], "error: error parsing jsonpath {.items[, unterminated array (see 'kdyn get --help')"],
      [['get', 'pods', '--chunk-size=-1'], `error: invalid argument "-1" for "--chunk-size" flag: must be a non-negative integer (see 'kdyn get --help')`],
    ] as const) {
      test(`${args.join(' ')}: exit 2, no request`, async () => {
        env.server.clearLog();
        const r = await env.kdyn([...args]);
        assert.equal(r.code, 2, r.err);
        assert.equal(r.out, '');
        assert.equal(oneLine(r), message);
        assert.deepEqual(env.server.requestLog.filter((e) => e.userAgent.startsWith('kdyn')), []);
      });
    }

    test('get pods, : kubectl\'s unknown-type error for the empty name, exit 1', async (t) => {
      const r = await env.kdyn(['get', 'pods,']);
      assert.equal(r.code, 1, r.err);
      assert.equal(r.out, '');
      assert.equal(oneLine(r), 'error: the server doesn\'t have a resource type ""');
      if (!HAS_KUBECTL) return t.skip('kubectl not found on PATH: no side-by-side check');
      const c = await env.kubectl(['get', 'pods,']);
      assert.equal(c.code, 1);
      assert.equal(c.err.trim(), 'error: the server doesn\'t have a resource type ""');
    });
  });

  test('5: staging directories of killed writers older than a few minutes are removed by the next write', async () => {
    const cache = join(env.dir, 'cache-staging');
    const host = new URL(env.server.url).host.replace(/:/g, '_');
    const discovery = join(cache, 'discovery');
    mkdirSync(discovery, { recursive: true });
    const old = join(discovery, `${host}.0123456789ab`);
    const recent = join(discovery, `${host}.ba9876543210`);
    const other = join(discovery, 'other-host.0123456789ab');
    for (const d of [old, recent, other]) {
      mkdirSync(join(d, 'v1'), { recursive: true });
      writeFileSync(join(d, 'v1', 'serverresources.json'), '{"partial');
    }
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const d of [old, other]) utimesSync(d, hourAgo, hourAgo);
    const r = await env.kdyn(['get', 'namespaces', '--cache-dir', cache]);
    assert.equal(r.code, 0, r.err);
    const left = readdirSync(discovery).sort();
    assert.ok(!left.includes(`${host}.0123456789ab`), `the old staging directory is gone: ${left.join(' ')}`);
    assert.ok(left.includes(`${host}.ba9876543210`), 'a recent one (maybe a writer at work) stays');
    assert.ok(left.includes('other-host.0123456789ab'), "another server's old one is removed by that server's writes only");
    assert.ok(left.includes(host) && existsSync(join(discovery, host, 'servergroups.json')), 'the layout was written');
    // The same when the layout already exists (files written one by one): a new CRD makes the next
    // run refetch discovery and rewrite files.
    mkdirSync(old);
    utimesSync(old, hourAgo, hourAgo);
    await conn.client.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }, { namespaced: false }).create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.staging.example.com' },
      spec: {
        group: 'staging.example.com',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    const third = await env.kdyn(['get', 'widgets', '--cache-dir', cache]);
    assert.equal(third.code, 0, third.err);
    assert.ok(!existsSync(old), 'removed by a file-by-file write too');
  });
});

describe('2: a corrupted V8 code cache entry', () => {
  test('is detected by its checksum before V8 sees it, ignored and rewritten, 40 runs without a crash', async () => {
    const home = join(scratch, 'home-code-cache');
    mkdirSync(home, { recursive: true });
    const run = () => runKdyn(['version', '--client'], { env: { PATH: process.env.PATH, HOME: home }, cwd: home, timeoutMs: 30_000 });
    const first = await run();
    assert.equal(first.code, 0, first.err);
    const dir = join(home, '.cache', 'kdyn-code-cache', process.version);
    const entry = readdirSync(dir).find((n) => n.startsWith('bin.js@version.'));
    assert.ok(entry, `an entry for bin.js: ${readdirSync(dir).join(' ')}`);
    const file = join(dir, entry!);
    const good = readFileSync(file);
    assert.ok(good.length > 4096);
    // A good entry is used as it is, not rewritten: its checksum matches.
    const second = await run();
    assert.equal(second.code, 0, second.err);
    assert.ok(readFileSync(file).equals(good), 'a good entry is kept');
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let trial = 0; trial < 40; trial++) {
      const bad = Buffer.from(good);
      // Bytes in the middle of the entry (V8's payload), changed in a few places, as a disk error would.
      const at = Math.floor(bad.length * (0.2 + 0.6 * random()));
      for (let k = 0; k < 1 + (trial % 8); k++) bad[at + k * 97]! ^= 1 + Math.floor(random() * 255);
      writeFileSync(file, bad);
      const r = await run();
      assert.equal(r.code, 0, `trial ${trial}: exit ${r.code}, stderr: ${r.err}`);
      assert.equal(r.out, 'Client Version: v0.1.0\n');
      assert.equal(r.err, '');
      const now = readFileSync(file);
      assert.ok(!now.equals(bad), `trial ${trial}: the bad entry was rewritten`);
      assert.equal(statSync(file).mode & 0o777, 0o600);
    }
    // A truncated entry too.
    writeFileSync(file, good.subarray(0, good.length >> 1));
    const r = await run();
    assert.equal(r.code, 0, r.err);
    assert.ok(readFileSync(file).length > good.length >> 1, 'the truncated entry was rewritten');
  });
});
