/**
 * The start-up mechanisms that depend on esbuild's output and on Node internals (see
 * src/startup/lazy-builtins.mjs, src/startup/code-cache.ts and docs/design/startup.md): each test fails
 * with a message naming the mechanism that stopped working, so a Node or esbuild upgrade that breaks
 * one is found here, not as a slow CI loop.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** What scripts/build.mjs's LAZY_BUILTINS makes lazy, among the built-ins kdyn's own code imports. */
const LAZY_USED = ['node:child_process', 'node:crypto', 'node:fs/promises'];

/** Runs `node [--require probe] bin/kdyn ...args` in a temp HOME; returns the built-in modules the process loaded. */
function builtinsLoadedBy(args: string[]): { status: number | null; stderr: string; builtins: Set<string> } {
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-mechanisms-'));
  try {
    const probe = join(dir, 'probe.cjs');
    const out = join(dir, 'loaded.txt');
    // process.moduleLoadList: the internal and built-in modules Node loaded, as `NativeModule <id>`.
    writeFileSync(probe, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.moduleLoadList ?? null)));\n`);
    const r = spawnSync(process.execPath, ['--require', probe, join(root, 'bin', 'kdyn'), ...args, '--cache-dir', join(dir, 'cache')], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: dir },
      timeout: 20_000,
    });
    const list = JSON.parse(readFileSync(out, 'utf8')) as string[] | null;
    assert.ok(Array.isArray(list) && list.includes('NativeModule fs'), 'process.moduleLoadList is gone or changed: this test cannot see which built-ins load; find another probe');
    const builtins = new Set(list.filter((m) => m.startsWith('NativeModule ')).map((m) => `node:${m.slice('NativeModule '.length)}`));
    return { status: r.status, stderr: r.stderr, builtins };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('lazy built-ins: the build rewrote every require of a listed built-in in bin.js to __kdynLazy', () => {
  const bin = readFileSync(join(root, 'dist', 'cli', 'bin.js'), 'utf8');
  for (const id of LAZY_USED) {
    assert.ok(bin.includes(`__kdynLazy(${JSON.stringify(id)})`), `bin.js has no __kdynLazy(${JSON.stringify(id)}): esbuild's output no longer matches LAZY_BUILTINS in scripts/build.mjs (or kdyn no longer imports ${id}: update LAZY_USED)`);
    const direct = new RegExp(`\\brequire\\(\\s*["'\`](?:node:)?${id.slice('node:'.length).replace('/', '\\/')}["'\`]\\s*\\)`);
    assert.doesNotMatch(bin, direct, `bin.js still requires ${id} directly: LAZY_BUILTINS in scripts/build.mjs missed a new spelling of esbuild's require`);
  }
  assert.match(bin.slice(0, 400), /^(?:var __kdynMetaUrl=[^;]*;)?var __kdynLazy=/, 'the lazy-require prelude heads bin.js');
});

test('lazy built-ins: `kdyn get` initialises the kubeconfig loader and the transport without loading child_process or fs/promises', () => {
  // Port 1 refuses the connection: the run goes through kubeconfig, discovery and the transport, then fails.
  const r = builtinsLoadedBy(['get', 'pods', '--server', 'http://127.0.0.1:1']);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /127\.0\.0\.1:1/);
  for (const id of ['node:child_process', 'node:fs/promises']) {
    assert.ok(!r.builtins.has(id), `${id} was loaded by a run that never uses it: the lazy built-in proxy of scripts/build.mjs is not in effect`);
  }
});

test('code cache: the Node internals src/startup/code-cache.ts builds on are still there', async () => {
  const { default: Module } = await import('node:module');
  const m = Module as unknown as Record<string, unknown> & { prototype: Record<string, unknown> };
  assert.equal(typeof m.prototype._compile, 'function', 'Module.prototype._compile is gone: src/startup/code-cache.ts can no longer compile dist/cli with a code cache');
  assert.equal(typeof m.wrap, 'function', 'Module.wrap is gone: the code cache wraps each dist/cli file with it');
  assert.equal(typeof m._resolveFilename, 'function', 'Module._resolveFilename is gone: the require the code cache builds uses it for require.resolve');
  assert.equal(typeof m._cache, 'object', 'Module._cache is gone: the code cache loads the bundle\'s own files through it');
});

test('code cache: the first run writes an entry through the _compile replacement, the second run uses it as it is', () => {
  const home = mkdtempSync(join(tmpdir(), 'kdyn-codecache-use-'));
  try {
    const run = () => spawnSync(process.execPath, [join(root, 'bin', 'kdyn'), 'version', '--client'], { cwd: home, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: home }, timeout: 20_000 });
    const first = run();
    assert.equal(first.status, 0, first.stderr);
    const dir = join(home, '.cache', 'kdyn-code-cache', process.version);
    const entries = (() => {
      try {
        return readdirSync(dir).filter((e) => e.startsWith('bin.js@version.'));
      } catch {
        return [];
      }
    })();
    assert.equal(entries.length, 1, `no code cache entry for bin.js after a run (${dir}): Node no longer compiles dist/cli through Module.prototype._compile, so the code cache's replacement never ran`);
    const entry = join(dir, entries[0]!);
    const before = statSync(entry);
    const second = run();
    assert.equal(second.status, 0, second.stderr);
    assert.equal(second.stdout, first.stdout);
    const after = statSync(entry);
    // A rejected entry (V8 refused the bytes, or the header/CRC check failed) is rewritten at exit: a new file.
    assert.ok(after.ino === before.ino && after.mtimeMs === before.mtimeMs, 'the second run rewrote the code cache entry: V8 rejected the cached data (or the code cache\'s entry check failed), so no run gains from the cache');
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
