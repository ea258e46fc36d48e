/**
 * The reliability suites' table runner (issue 13). Each case runs the built CLI (`node bin/kdyn`)
 * as a child process against one local API server over a real TLS socket, and is checked for:
 * the exit code, stdout, every stderr line (one line unless the case lists more), no stack trace,
 * zero write requests from kdyn in the server's request log, and, where the case names it,
 * kubectl's message for the same input (run against the same server; skipped with a message where
 * kubectl is missing). Cases run a few at a time (`describe`'s concurrency), sharing the server and
 * one warm discovery cache.
 */
import { spawnSync } from 'node:child_process';
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FakeClock } from '../../src/core/clock.js';
import type { LocalApiServer, RequestLogEntry, ServerOptions } from '../support/apiserver/server.js';
import { startServerEnv } from '../support/server-env.js';
import { hasKubectl, runCommand, runKdyn, type Run } from '../support/cli.js';

export type { Run };
export const HAS_KUBECTL = hasKubectl();
export const NO_KUBECTL = 'kubectl not found on PATH: kdyn checked, no comparison with kubectl';

/** Cases run at once within a suite (the machine has 2 cores; node --test runs 2 files at once). */
export const POOL = 3;

export interface RelEnv {
  server: LocalApiServer;
  /** Temp dir: HOMEs, case files. */
  dir: string;
  kubeconfig: string;
  /** kdyn with the shared HOME (warm cache) unless `env.HOME` is given; cwd `cwd` (default dir). */
  kdyn(args: string[], o?: RunOpts): Promise<Run>;
  kubectl(args: string[], o?: RunOpts): Promise<Run>;
  /** Write requests (anything but GET) that kdyn sent since the server started. */
  kdynWrites(): RequestLogEntry[];
  stop(): Promise<void>;
}

export interface RunOpts {
  env?: Record<string, string>;
  cwd?: string;
  stdin?: string | Buffer;
  timeoutMs?: number;
  /** Run as this user (root only): HOME is then `cwd`. */
  uid?: number;
}

export async function startRelEnv(options: ServerOptions = {}): Promise<RelEnv> {
  const e = await startServerEnv({ seed: 'demo', clock: new FakeClock(Date.UTC(2026, 10, 22, 12, 0, 0)), ...options }, 'kdyn-rel-');
  const homeK = join(e.dir, 'home-kdyn');
  const homeC = join(e.dir, 'home-kubectl');
  mkdirSync(homeK);
  mkdirSync(homeC);
  const base = (home: string, o: RunOpts) => ({
    env: { PATH: process.env.PATH, HOME: o.uid === undefined ? home : o.cwd ?? e.dir, KUBECONFIG: e.kubeconfig, ...o.env },
    cwd: o.cwd ?? e.dir,
    stdin: o.stdin,
    timeoutMs: o.timeoutMs ?? 30_000,
    uid: o.uid,
    gid: o.uid,
  });
  return {
    server: e.server,
    dir: e.dir,
    kubeconfig: e.kubeconfig,
    kdyn: (args, o = {}) => runKdyn(args, base(homeK, o)),
    kubectl: (args, o = {}) => runCommand('kubectl', args, base(homeC, o)),
    kdynWrites: () => e.server.requestLog.filter((r) => r.userAgent.startsWith('kdyn') && r.method !== 'GET'),
    stop: e.stop,
  };
}

/** A stack trace line (`    at f (file:1:2)`) or Node's own crash output. */
export const STACK = /^\s+at .+[:(]|node:internal|^\w*Error: .*\n\s+at /m;

export function assertNoStack(r: Run): void {
  assert.ok(!STACK.test(r.err), `no stack trace on stderr:\n${r.err}`);
  assert.ok(!STACK.test(r.out), `no stack trace on stdout:\n${r.out}`);
}

/** stderr's non-empty lines. */
export const errLines = (r: Run): string[] => r.err.split('\n').filter((l) => l !== '');

/** `line` is `want` (exact) or matches it. */
export function lineMatches(line: string, want: string | RegExp): boolean {
  return typeof want === 'string' ? line === want : want.test(line);
}

/** kdyn's message as kubectl would word it: no usage hint, kubectl's name, no `error: ` prefix. */
export function kubectlWording(line: string): string {
  return line
    .replace(/ \(see 'kdyn[^']*--help'\)$/, '')
    .replace(/\bkdyn\b/g, 'kubectl')
    .replace(/^(error|Error): /, '');
}

export interface BadCase {
  name: string;
  /**
   * kdyn's arguments; `(dir, ns) => args` for paths in the case's own directory or its own
   * namespace (`rel-N`: writes to it are this case's, so cases running at once stay apart).
   */
  args: string[] | ((dir: string, ns: string) => string[]);
  /** Files to create in the case's own directory (its cwd) first: name -> content. */
  files?: Record<string, string | Buffer> | ((env: RelEnv) => Record<string, string | Buffer>);
  stdin?: string | Buffer;
  env?: Record<string, string> | ((dir: string) => Record<string, string>);
  code: 1 | 2;
  /** stderr, one line per entry (default: exactly one line). */
  err: string | RegExp | Array<string | RegExp>;
  /** stdout (default: nothing). */
  out?: string | RegExp;
  /**
   * kubectl's wording for the same input: 'same' (kdyn's message, without its usage hint, appears
   * in kubectl's stderr), or a pattern kubectl's stderr matches (a documented difference). kubectl
   * must fail too. Omitted where kubectl has no such command or flag.
   */
  kubectl?: 'same' | RegExp;
  /** kubectl's arguments when they differ (e.g. apply with --dry-run=client). */
  kubectlArgs?: string[] | ((dir: string, ns: string) => string[]);
  /** A known bug of a branch still in progress: the case runs, its failure is reported, not fatal. */
  todo?: string;
  /**
   * Run as an unprivileged user (uid 65534) when the suite runs as root, which reads mode-000 files:
   * the case's directory and a copy of the kubeconfig are opened to it.
   */
  unprivileged?: boolean;
  /** Run after the files are written (chmod). */
  prepare?: (dir: string) => void;
  timeoutMs?: number;
}

let caseDirs = 0;
/** The conventional `nobody`: as root, cases about unreadable files run as this user. */
export const NOBODY = 65534;

let nobodyCheck: string | undefined | null = null;
/**
 * Why NOBODY cannot run this Node binary (it sits under a directory only its owner may search, such
 * as a Node from the npm registry in root's home), for the cases that must run as NOBODY to skip with
 * that message; undefined when it can. CI keeps its Node binaries where every user may run them.
 */
export function nobodyCannotRunNode(): string | undefined {
  if (nobodyCheck !== null) return nobodyCheck;
  const r = spawnSync(process.execPath, ['-e', '0'], { uid: NOBODY, gid: NOBODY, stdio: 'ignore' });
  nobodyCheck = r.error || r.status !== 0 ? `user nobody cannot run ${process.execPath} (${(r.error as NodeJS.ErrnoException | undefined)?.code ?? `exit ${r.status}`}): put Node where other users may run it (CI keeps it in /var/cache/kdyn-ci)` : undefined;
  return nobodyCheck;
}

/**
 * Opens `dir` (recursively, except paths in `keep`) and its ancestors' search bit to other users,
 * and returns a world-readable copy of the kubeconfig in it: for a run as NOBODY.
 */
export function openTo(dir: string, kubeconfig: string, keep: readonly string[] = []): string {
  for (let d = dirname(dir); d !== dirname(d); d = dirname(d)) chmodSync(d, statSync(d).mode | 0o111);
  const walk = (p: string): void => {
    if (keep.includes(p)) return;
    const st = statSync(p);
    chmodSync(p, st.isDirectory() ? 0o777 : 0o666);
    if (st.isDirectory()) for (const n of readdirSync(p)) walk(join(p, n));
  };
  walk(dir);
  const kc = join(dir, 'kubeconfig-copy');
  copyFileSync(kubeconfig, kc);
  chmodSync(kc, 0o644);
  return kc;
}

/** Registers one `describe` of table-driven bad-input cases over `env()` (set up by the caller's before()). */
export function badInputSuite(title: string, cases: BadCase[], env: () => RelEnv): void {
  describe(title, { concurrency: POOL }, () => {
    for (const c of cases) {
      test(c.name, { todo: c.todo }, async (t) => runBadCase(t, c, env()));
    }
  });
}

async function runBadCase(t: TestContext, c: BadCase, env: RelEnv): Promise<void> {
  const n = ++caseDirs;
  const dir = join(env.dir, 'cases', String(n));
  const ns = `rel-${n}`;
  mkdirSync(dir, { recursive: true });
  const files = typeof c.files === 'function' ? c.files(env) : c.files ?? {};
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  c.prepare?.(dir);
  const args = typeof c.args === 'function' ? c.args(dir, ns) : c.args;
  let extraEnv = typeof c.env === 'function' ? c.env(dir) : c.env;
  const uid = c.unprivileged && process.getuid?.() === 0 ? NOBODY : undefined;
  const cannot = uid !== undefined ? nobodyCannotRunNode() : undefined;
  if (cannot) return t.skip(cannot);
  if (uid !== undefined) {
    const unreadable = Object.keys(files).map((n) => join(dir, n)).filter((p) => (statSync(p).mode & 0o777) === 0);
    extraEnv = { KUBECONFIG: openTo(dir, env.kubeconfig, unreadable), ...extraEnv };
  }
  const r = await env.kdyn(args, { cwd: dir, stdin: c.stdin, env: extraEnv, timeoutMs: c.timeoutMs, uid });
  const shown = `kdyn ${args.join(' ')}\nexit ${r.code}\nstdout: ${r.out.slice(0, 500)}\nstderr: ${r.err.slice(0, 2000)}`;
  assert.equal(r.code, c.code, shown);
  assertNoStack(r);
  if (c.out instanceof RegExp) assert.match(r.out, c.out, shown);
  else assert.equal(r.out, c.out ?? '', shown);
  const want = Array.isArray(c.err) ? c.err : [c.err];
  const lines = errLines(r);
  assert.equal(lines.length, want.length, `${want.length} line(s) on stderr\n${shown}`);
  want.forEach((w, i) => assert.ok(lineMatches(lines[i]!, w), `stderr line ${i + 1} is ${w}\n${shown}`));
  // This case's writes: those to its namespace, and any outside a namespace (none is expected anywhere).
  const mine = env.kdynWrites().filter((w) => w.path.includes(`/namespaces/${ns}/`) || !w.path.includes('/namespaces/'));
  assert.deepEqual(mine, [], 'kdyn sent no write request');

  if (c.kubectl === undefined) return;
  if (!HAS_KUBECTL) return void t.skip(NO_KUBECTL);
  const kargs = c.kubectlArgs === undefined ? args : typeof c.kubectlArgs === 'function' ? c.kubectlArgs(dir, ns) : c.kubectlArgs;
  const k = await env.kubectl(kargs, { cwd: dir, stdin: c.stdin, env: extraEnv, timeoutMs: c.timeoutMs, uid });
  const kshown = `kubectl ${kargs.join(' ')}\nexit ${k.code}\nstderr: ${k.err.slice(0, 2000)}`;
  assert.notEqual(k.code, 0, `kubectl fails too\n${kshown}`);
  if (c.kubectl === 'same') {
    const mine = kubectlWording(lines[0]!);
    assert.ok(k.err.includes(mine), `kubectl's message includes kdyn's "${mine}"\n${kshown}`);
  } else {
    assert.match(k.err, c.kubectl, kshown);
  }
}

/** Discovery-cache temp files (`name.json.<12 hex>`) and staging directories (`<host>.<12 hex>`). */
export const LEFTOVER = /\.[0-9a-f]{12}$/;

/** Every file under `root` parses (the combined file line by line); nothing temporary is left. */
export function assertCacheIntact(root: string): void {
  if (!existsSync(root) || !statSync(root).isDirectory()) return;
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      assert.ok(!LEFTOVER.test(name), `no temp file or staging directory left: ${p}`);
      const st = statSync(p);
      if (st.isDirectory()) {
        walk(p);
        continue;
      }
      if (!name.endsWith('.json')) continue;
      const text = readFileSync(p, 'utf8');
      const parts = name === 'discovery.json' ? text.split('\n').filter((l) => l !== '') : [text];
      for (const part of parts) assert.doesNotThrow(() => JSON.parse(part), `${p} parses`);
    }
  };
  walk(root);
}
