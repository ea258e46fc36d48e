/**
 * Reliability suite 4, signals and pipes (issue 13): SIGINT and SIGTERM during `get` of 20,000
 * objects (mid-list, and at fixed moments from start-up through discovery and cache writing, on a
 * cold cache), during `watch`, `get -w` and `apply`: the process ends promptly with 130/143, with no
 * stack trace, no partial cache file and (for apply) exactly the objects it reported. Output into a
 * closed pipe (`| head -1`, a real shell pipeline): quiet exit with 0 or 141 (kubectl: 141), and no
 * further list pages asked of the server.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertCacheIntact, HAS_KUBECTL, NO_KUBECTL, startRelEnv, STACK, type RelEnv } from './harness.js';
import { KDYN } from '../support/cli.js';
import { systemClock } from '../../src/core/clock.js';

const OBJECTS = 20_000;
const PAGES = OBJECTS / 500;
const LIST = '/api/v1/namespaces/bench/configmaps';

let env: RelEnv;
let runs = 0;
before(async () => {
  env = await startRelEnv({ configmaps: OBJECTS, namespace: 'bench', clock: systemClock });
});
after(() => env.stop());

interface Ended {
  /** The exit status as a shell reports it (128 + signal number when killed by a signal). */
  status: number;
  out: string;
  err: string;
  /** ms from the signal to the exit. */
  afterSignalMs: number;
}

interface Child {
  /** Resolves at the first stdout bytes. */
  firstOutput: Promise<void>;
  signal(sig: NodeJS.Signals): void;
  ended: Promise<Ended>;
}

/** Spawns kdyn with its own HOME and cold cache; returns the cache dir too. */
function start(args: string[], stdin?: string): Child & { cache: string } {
  const home = join(env.dir, `signals-${++runs}`);
  const cache = join(home, 'cache');
  mkdirSync(home, { recursive: true });
  const child = spawn(process.execPath, [KDYN, ...args, '--cache-dir', cache], {
    env: { PATH: process.env.PATH, HOME: home, KUBECONFIG: env.kubeconfig },
    cwd: home,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let signalledAt = 0;
  let first: () => void;
  const firstOutput = new Promise<void>((r) => (first = r));
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    out += c;
    first();
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  child.stdin.on('error', () => undefined);
  child.stdin.end(stdin ?? '');
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000); // hang guard
  const ended = new Promise<Ended>((resolve) => {
    child.on('close', (code, sig) => {
      clearTimeout(killer);
      const status = code ?? 128 + (sig ? constants.signals[sig] : 0);
      resolve({ status, out, err, afterSignalMs: signalledAt ? Date.now() - signalledAt : -1 });
    });
  });
  return {
    cache,
    firstOutput,
    ended,
    signal: (sig) => {
      signalledAt = Date.now();
      child.kill(sig);
    },
  };
}

const EXIT = { SIGINT: 130, SIGTERM: 143 } as const;

/** Resolves once the server has answered `n` requests for `path`. */
async function served(path: string, n: number, since: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (env.server.requestLog.filter((e) => e.path === path && e.time >= since).length < n) {
    assert.ok(Date.now() < deadline, `the server answered ${n} request(s) for ${path}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** List requests for the 20,000 objects since `since` (the tests that count them run one at a time). */
const pagesSince = (since: number) => env.server.requestLog.filter((e) => e.path === LIST && e.time >= since).length;

function assertQuietEnd(e: Ended, sig: keyof typeof EXIT): void {
  // "Promptly" is behaviour, not a time: a run that ignored the signal would finish the list (exit 0;
  // the get tests also count pages) or watch on until the hang guard kills it (137).
  assert.equal(e.status, EXIT[sig], `exit ${e.status}, ${e.afterSignalMs} ms after ${sig}\nstderr: ${e.err}`);
  assert.ok(!STACK.test(e.err), `no stack trace:\n${e.err}`);
  assert.ok(e.err.split('\n').filter((l) => l).length <= 1, `at most one line on stderr:\n${e.err}`);
}

describe('SIGINT and SIGTERM during get of 20,000 objects', () => {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    for (const output of [['-o', 'json'], ['-o', 'name'], ['-o', 'jsonl'], []]) {
      test(`${sig} after the first page, get ${output.join(' ') || '(table)'}: ${EXIT[sig]}, prompt, no more pages, no partial cache file`, async () => {
        const since = Date.now();
        const c = start(['get', 'configmaps', '-n', 'bench', ...output]);
        await served(LIST, 1, since);
        c.signal(sig);
        const e = await c.ended;
        assertQuietEnd(e, sig);
        assert.ok(pagesSince(since) < PAGES, `stopped listing: ${pagesSince(since)} of ${PAGES} pages`);
        assertCacheIntact(c.cache);
      });
    }
  }

  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    test(`${sig} at 12 moments from start-up to the list (cold cache each time): ${EXIT[sig]} and a whole cache`, async () => {
      for (const delay of [0, 10, 20, 30, 40, 50, 60, 80, 100, 130, 160, 200]) {
        const c = start(['get', 'configmaps', '-n', 'bench', '-o', 'json']);
        await new Promise((r) => setTimeout(r, delay));
        c.signal(sig);
        const e = await c.ended;
        assertQuietEnd(e, sig);
        assertCacheIntact(c.cache);
      }
    });
  }
});

describe('SIGINT and SIGTERM during watch and apply', { concurrency: 2 }, () => {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    for (const args of [['watch', 'configmaps', '-n', 'demo'], ['get', 'configmaps', '-n', 'demo', '-w'], ['watch', 'configmaps', '-n', 'demo', '-o', 'jsonl']]) {
      test(`${sig} during ${args.join(' ')}: ${EXIT[sig]}, the output so far flushed`, async () => {
        const c = start(args);
        await c.firstOutput;
        c.signal(sig);
        const e = await c.ended;
        assertQuietEnd(e, sig);
        assert.match(e.out, /app-config/);
      });
    }

    test(`${sig} during apply of 300 objects: ${EXIT[sig]}, the server holds exactly what apply reported`, async () => {
      const ns = `sig-${sig.toLowerCase()}`;
      const dir = join(env.dir, `apply-${ns}`);
      mkdirSync(dir);
      const docs = [`apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${ns}\n`];
      for (let i = 0; i < 300; i++) docs.push(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${String(i).padStart(3, '0')}\n  namespace: ${ns}\ndata:\n  i: "${i}"\n`);
      writeFileSync(join(dir, 'm.yaml'), docs.join('---\n'));
      const since = Date.now();
      const c = start(['apply', '-f', join(dir, 'm.yaml'), '-o', 'name']);
      // Mid-apply: a few dozen objects written.
      const deadline = Date.now() + 30_000;
      while (env.server.requestLog.filter((e) => e.method === 'PATCH' && e.path.includes(`/namespaces/${ns}/`) && e.time >= since).length < 20) {
        assert.ok(Date.now() < deadline, 'apply started writing');
        await new Promise((r) => setTimeout(r, 5));
      }
      c.signal(sig);
      const e = await c.ended;
      assertQuietEnd(e, sig);
      const stored = env.server.store.count('', 'configmaps', ns);
      assert.ok(stored < 300, `interrupted before the end (${stored} stored)`);
      const printed = e.out.split('\n').filter((l) => l.startsWith('configmap/')).length;
      // Every object printed is stored; an object whose PATCH was in flight may be stored unprinted
      // (the server finished it), never the other way round.
      assert.ok(printed <= stored, `printed ${printed}, stored ${stored}`);
      if (sig === 'SIGINT') assert.match(e.err, /^interrupted: 301 objects: \d+ succeeded, 0 failed, \d+ not attempted\n$/);
    });
  }
});

/** `CMD | head -1` in bash: the first line, CMD's status, and CMD's stderr. */
function headOne(cmd: string[], home: string): Promise<{ first: string; status: number; err: string }> {
  const quoted = cmd.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `${quoted} 2>"$ERRFILE" | head -1; echo "status=\${PIPESTATUS[0]}" >&2`], {
      env: { PATH: process.env.PATH, HOME: home, KUBECONFIG: env.kubeconfig, ERRFILE: join(home, 'stderr') },
      cwd: home,
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.on('close', () => {
      resolve({ first: out, status: Number(/status=(\d+)/.exec(err)?.[1] ?? -1), err: readFileSync(join(home, 'stderr'), 'utf8') });
    });
  });
}

describe('output into a closed pipe (| head -1)', () => {
  const cases: Array<[string, string[], string, boolean]> = [
    ['get -o name', ['get', 'configmaps', '-n', 'bench', '-o', 'name'], 'configmap/cm-00000\n', true],
    ['get -o json', ['get', 'configmaps', '-n', 'bench', '-o', 'json'], '{\n', true],
    ['get -o jsonl', ['get', 'configmaps', '-n', 'bench', '-o', 'jsonl'], '', true],
    ['get -o yaml', ['get', 'configmaps', '-n', 'bench', '-o', 'yaml'], 'apiVersion: v1\n', true],
    ['get (table)', ['get', 'configmaps', '-n', 'bench'], 'NAME       DATA   AGE\n', false],
    ['api-resources', ['api-resources'], '', false],
  ];
  for (const [name, args, firstLine, streams] of cases) {
    test(`${name}: quiet, status 0 or 141${streams ? ', no further pages' : ''}`, async (t) => {
      const home = join(env.dir, `pipe-${++runs}`);
      mkdirSync(home);
      const since = Date.now();
      const r = await headOne([process.execPath, KDYN, ...args], home);
      assert.ok([0, 141].includes(r.status), `status ${r.status}`);
      assert.equal(r.err, '', 'nothing on stderr');
      if (firstLine) assert.equal(r.first, firstLine);
      else assert.equal(r.first.split('\n').length, 2, 'one line');
      if (streams) assert.ok(pagesSince(since) < PAGES, `stopped listing: ${pagesSince(since)} of ${PAGES} pages`);
      if (args.includes('jsonl')) return; // kubectl has no -o jsonl
      if (!HAS_KUBECTL) return t.skip(NO_KUBECTL);
      // kubectl side by side on a small namespace (kubectl prints a list only once it has all of it:
      // 20,000 objects would cost it seconds of paging before its first line).
      const small = args.map((a) => (a === 'bench' ? 'demo' : a));
      const [mine, k] = [await headOne([process.execPath, KDYN, ...small], home), await headOne(['kubectl', ...small], home)];
      assert.ok([0, 141].includes(k.status), `kubectl status ${k.status}`);
      assert.equal(k.err, '', 'kubectl is quiet too');
      assert.equal(mine.first.replace(/ +/g, ' '), k.first.replace(/ +/g, ' '), 'the same first line as kubectl');
    });
  }
});
