/**
 * The CLI entry as users run it (`node bin/kdyn`), and the start-up rules of issue 2: the code that
 * runs for every command (dist/cli/bin.js and what it statically requires) must not contain the
 * heavy packages, which load only with the command that needs them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readStartupPath } from '../../bench/startup-file.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

function kdyn(args: string[]) {
  const home = mkdtempSync(join(tmpdir(), 'kdyn-startup-'));
  try {
    return spawnSync(process.execPath, [join(root, 'bin/kdyn'), ...args], {
      cwd: home,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: home },
      timeout: 20_000,
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

test('kdyn --version prints the package version', () => {
  const r = kdyn(['--version']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, `Client Version: v${pkg.version}\n`);
  assert.equal(r.stderr, '');
});

test('kdyn --help lists the version command (and every command exits 0)', () => {
  const r = kdyn(['--help']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^\s+version\s+\S/m);
  assert.match(r.stdout, /^\s+get\s+\S/m);
  assert.match(r.stdout, /^\s+api-resources\s+\S/m);
});

test('an unknown command exits 2 with one line on stderr', () => {
  const r = kdyn(['frobnicate']);
  assert.equal(r.status, 2);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /frobnicate/);
});

test('the start-up path does not statically load heavy packages', () => {
  const path = readStartupPath(root);
  assert.ok(path.outputs.length >= 1, 'dist/cli/bin.js is in the metafile');
  assert.ok(path.inputs.some((p) => p.endsWith('src/cli/main.ts')), 'main.ts is on the static path');
  const heavy = path.inputs.filter((p) => /node_modules\/(yargs|yargs-parser|cliui|@kubernetes\/client-node|cli-table3|js-yaml|env-paths)\//.test(p));
  assert.deepEqual(heavy, [], 'heavy packages on the start-up path');
  // Its size (the budget: 288 KiB) is a benchmark: `npm run bench -- --case startup-file-size`.
});

test('the start-up files are ASCII (Node decodes a file with any other byte by a slower path, ~0.2 ms for bin.js)', () => {
  for (const f of ['dist/cli/start.js', 'dist/cli/bin.js']) {
    const bytes = readFileSync(join(root, f));
    const at = bytes.findIndex((b) => b > 0x7f);
    assert.equal(at, -1, `${f}: a non-ASCII byte at offset ${at}: ${bytes.subarray(Math.max(0, at - 40), at + 10).toString('utf8')}`);
  }
});

test('the V8 code cache never runs the bytecode of a replaced file of the same length', () => {
  // A private copy of bin/ and dist/cli, so the test can rewrite a bundle file.
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-codecache-'));
  try {
    cpSync(join(root, 'bin'), join(dir, 'bin'), { recursive: true });
    cpSync(join(root, 'dist', 'cli'), join(dir, 'dist', 'cli'), { recursive: true });
    const home = join(dir, 'home');
    mkdirSync(home);
    const run = () =>
      spawnSync(process.execPath, [join(dir, 'bin', 'kdyn'), '--version'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: home } });
    // The bundle file holding the version, padded past the cache's 16 KiB threshold.
    const meta = JSON.parse(readFileSync(join(root, 'build/cli-meta.json'), 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
    const out = Object.keys(meta.outputs).find((o) => Object.keys(meta.outputs[o]!.inputs).some((i) => i.endsWith('src/core/version.ts')));
    assert.ok(out, 'the metafile names the file holding the version');
    const versionFile = join(dir, out!);
    const replace = (text: string) => {
      writeFileSync(`${versionFile}.new`, text);
      renameSync(`${versionFile}.new`, versionFile);
    };
    const original = readFileSync(versionFile, 'utf8');
    assert.ok(original.includes(JSON.stringify(pkg.version)));
    replace(`${original}\n//${'x'.repeat(20_000)}\n`);

    assert.equal(run().stdout, `Client Version: v${pkg.version}\n`);
    const cacheDir = join(home, '.cache', 'kdyn-code-cache', process.version);
    // Entries are per command; `--version` names none.
    const stem = `${out!.slice('dist/cli/'.length).replace(/\//g, '_')}@other.`;
    assert.equal(readdirSync(cacheDir).filter((e) => e.startsWith(stem)).length, 1, `cache entries: ${readdirSync(cacheDir).join(', ')}`);
    assert.equal(statSync(cacheDir).mode & 0o777, 0o700);
    assert.equal(run().stdout, `Client Version: v${pkg.version}\n`); // served from the cache

    // Same length, different content: V8 alone would accept the old bytecode.
    const fake = pkg.version.replace(/\d/g, '9');
    replace(readFileSync(versionFile, 'utf8').replace(JSON.stringify(pkg.version), JSON.stringify(fake)));
    assert.equal(run().stdout, `Client Version: v${fake}\n`);
    assert.equal(readdirSync(cacheDir).filter((e) => e.startsWith(stem)).length, 1, 'the stale entry is replaced');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the code cache is keyed by the commands src/cli/spec.ts defines (the build puts them into dist/cli/start.js)', async () => {
  const { COMMANDS } = await import('../../src/cli/spec.js');
  const text = readFileSync(join(root, 'dist', 'cli', 'start.js'), 'utf8');
  const listed = /(\["__complete"[^\]]*\])/.exec(text)?.[1];
  assert.ok(listed, 'dist/cli/start.js has the list of command names');
  assert.deepEqual(JSON.parse(listed!), COMMANDS.map((c) => c.name).sort());
  assert.doesNotMatch(readFileSync(join(root, 'bin', 'kdyn'), 'utf8'), /'api-resources'/, 'bin/kdyn keeps no copy of the command list');
});

test("KDYN_CODE_CACHE=node switches to Node's compile cache, in a private directory per command", () => {
  const home = mkdtempSync(join(tmpdir(), 'kdyn-compile-cache-'));
  try {
    const run = () => spawnSync(process.execPath, [join(root, 'bin/kdyn'), 'version', '--client'], { cwd: home, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: home, KDYN_CODE_CACHE: 'node' } });
    assert.equal(run().stdout, `Client Version: v${pkg.version}\n`);
    assert.equal(statSync(join(home, '.cache', 'kdyn-compile-cache')).mode & 0o777, 0o700);
    const dir = join(home, '.cache', 'kdyn-compile-cache', 'version'); // one directory per command
    const [sub] = readdirSync(dir);
    assert.ok(sub?.startsWith(process.version), `Node's per-version directory: ${sub}`);
    assert.ok(readdirSync(join(dir, sub!)).length > 0, 'entries written');
    assert.throws(() => statSync(join(home, '.cache', 'kdyn-code-cache')), 'the hand-made cache is not written');
    assert.equal(run().stdout, `Client Version: v${pkg.version}\n`); // served from the cache
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
