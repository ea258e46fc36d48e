// The published library surface: `import ... from 'kdyn'` resolves through package.json "exports" to
// dist/lib (runtime) and dist/types (declarations), and a strict TypeScript consumer type-checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));

test('the package entry point exports the dynamic client, RESTMapper, discovery, apply and errors', async () => {
  const kdyn = await import('kdyn');
  for (const name of ['connect', 'DynamicClient', 'DeferredRESTMapper', 'createCachedDiscovery', 'loadRestConfig', 'createTransport', 'StatusError', 'NoResourceMatchError', 'applyObjects', 'decodeManifests']) {
    assert.equal(typeof (kdyn as Record<string, unknown>)[name], 'function', `${name} is exported`);
  }
});

/** `tsc --noEmit --strict` of one consumer file, as a project with `--module <module>` would check it. */
function tsc(file: string, { module = 'nodenext', cwd = root } = {}) {
  const resolution = module === 'nodenext' ? 'nodenext' : 'node16';
  const args = ['--noEmit', '--strict', '--module', module, '--moduleResolution', resolution, '--target', 'es2022', '--types', 'node', '--typeRoots', join(root, 'node_modules/@types'), file];
  return spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), ...args], { cwd, encoding: 'utf8' });
}

test('a strict TypeScript consumer type-checks against dist/types', () => {
  assert.ok(existsSync(join(root, 'dist/types/index.d.ts')), 'dist/types/index.d.ts is built by `node scripts/build.mjs --declarations` (prepack, npm test)');
  const dir = join(root, 'build/library-consumer');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'consumer.ts'), [
    "import { connect, applyObjects, StatusError, type ResourceMapping, type ApplyResult } from 'kdyn';",
    'export async function names(kind: string): Promise<string[]> {',
    '  const k = await connect({ env: {} });',
    '  try {',
    '    const m: ResourceMapping = await k.mapper.resourceFor(kind);',
    '    const list = await k.client.resource(m.gvr, m).namespace(k.namespace).listAll();',
    '    return list.items.map((o) => String(o.metadata?.name));',
    '  } catch (e) {',
    '    if (e instanceof StatusError && e.reason === "NotFound") return [];',
    '    throw e;',
    '  } finally {',
    '    k.close();',
    '  }',
    '}',
    "export const inProd = () => connect({ flags: { context: 'prod', namespace: 'demo', 'insecure-skip-tls-verify': true } });",
    'export const fromTheEnvironment = () => connect();',
    'export async function applyOne(): Promise<ApplyResult[]> {',
    '  const k = await connect({ env: {} });',
    '  try {',
    "    const r = await applyObjects([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }], k, { fieldManager: 'me', concurrency: 4 });",
    '    return r.results.filter((x) => x.status === "failed");',
    '  } finally {',
    '    k.close();',
    '  }',
    '}',
    '',
  ].join('\n'));
  const good = tsc(join(dir, 'consumer.ts'));
  assert.equal(good.status, 0, `tsc failed:\n${good.stdout}${good.stderr}`);
  // and a wrong use is rejected, so the check above is not vacuous
  writeFileSync(join(dir, 'wrong.ts'), "import { connect } from 'kdyn';\nconst n: number = connect;\nexport { n };\n");
  const bad = tsc(join(dir, 'wrong.ts'));
  assert.notEqual(bad.status, 0, 'a type error in a consumer is reported');
});

test("connect()'s flags are typed: a misspelt or mistyped flag is a type error", () => {
  const dir = join(root, 'build/library-consumer');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'flags.ts'), [
    "import { connect } from 'kdyn';",
    "export const typo = () => connect({ flags: { contxt: 'x' } });",
    "export const notAString = () => connect({ flags: { namespace: 1 } });",
    '',
  ].join('\n'));
  const r = tsc(join(dir, 'flags.ts'));
  assert.notEqual(r.status, 0);
  assert.match(r.stdout, /flags\.ts\(2,\d+\): error TS2561: .*'contxt' does not exist in type 'ConfigFlags'\. Did you mean to write 'context'\?/);
  assert.match(r.stdout, /flags\.ts\(3,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/);
});

/** A consumer project in a temporary directory, with `node_modules/kdyn` linked to this checkout. */
function consumerProject(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-consumer-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(root, join(dir, 'node_modules/kdyn'), 'dir');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

test("engines names the Node releases where require('kdyn') works, and CommonJS code requires it", () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
  // require() of an ES module is unflagged from Node 22.12; 22.19 is what the bundled client-node 2 (undici 8) needs.
  assert.equal(pkg.engines.node, '>=22.19.0', 'the floor docs/install.md states');
  const dir = consumerProject({ 'package.json': '{ "type": "commonjs" }\n', 'main.js': "const kdyn = require('kdyn');\nconsole.log(typeof kdyn.connect, typeof kdyn.StatusError);\n" });
  try {
    const r = spawnSync(process.execPath, ['main.js'], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'function function\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a CommonJS TypeScript project imports kdyn with module node20 or nodenext; node16 is refused (docs/install.md)', () => {
  const dir = consumerProject({
    'package.json': '{ "type": "commonjs" }\n',
    'main.ts': "import { connect, type Connection } from 'kdyn';\nexport const open: () => Promise<Connection> = () => connect();\n",
  });
  try {
    for (const module of ['node20', 'nodenext']) {
      const r = tsc('main.ts', { module, cwd: dir });
      assert.equal(r.status, 0, `--module ${module}:\n${r.stdout}${r.stderr}`);
    }
    const old = tsc('main.ts', { module: 'node16', cwd: dir });
    assert.notEqual(old.status, 0);
    assert.match(old.stdout, /error TS1479: .*ECMAScript module and cannot be imported with 'require'/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
