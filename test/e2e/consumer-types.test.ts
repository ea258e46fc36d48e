/**
 * kdyn's published declarations (dist/types) in a TypeScript project that has not installed
 * `@types/node` itself and checks libraries (`skipLibCheck: false`): they name Node's types
 * (`Buffer`, `node:net`, `NodeJS`), which kdyn brings as a dependency (`@types/node`, the releases
 * of its `engines` range) and references from its entry point, so the project type-checks with no
 * error, whether it lists its own `types` or not. Checked with the repository's TypeScript (5.x) and
 * the registry's current release (test/support/typescript-releases.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DECLARATIONS, haveDeclarations, REPO_ROOT } from '../support/tsc-strict.js';
import { currentTypeScript, repoTypeScript, type TypeScriptRelease } from '../support/typescript-releases.js';

const CONSUMER = `import { connect, StatusError, type ResourceClient, type Unstructured } from 'kdyn';

export async function names(kind: string): Promise<string[]> {
  const k = await connect({ env: {} });
  try {
    const m = await k.mapper.resourceFor(kind);
    const handle: ResourceClient<Unstructured> = k.client.resource(m.gvr, m).namespace(k.namespace);
    await handle.patch('x', { metadata: { labels: { app: 'y' } } }, 'merge');
    return (await handle.listAll()).items.map((o) => String(o.metadata?.name));
  } catch (e) {
    if (e instanceof StatusError && e.reason === 'NotFound') return [];
    throw e;
  } finally {
    k.close();
  }
}
`;

test('package.json: @types/node is a dependency, for the releases engines names', () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string }; dependencies: Record<string, string>; devDependencies: Record<string, string> };
  assert.equal(pkg.dependencies['@types/node'], pkg.engines.node);
  assert.equal(pkg.devDependencies['@types/node'], undefined, 'one entry, the dependency');
  assert.match(readFileSync(DECLARATIONS, 'utf8'), /^\/\/\/ <reference types="node" preserve="true" \/>$/m, 'the entry point references Node\'s types');
});

/** A project in a temp dir: `node_modules/kdyn` links to this checkout; no `@types` of its own. */
function project(compilerOptions: Record<string, unknown>, source: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-consumer-types-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(REPO_ROOT, join(dir, 'node_modules/kdyn'), 'dir');
  writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
  writeFileSync(join(dir, 'consumer.ts'), source);
  const options = { strict: true, skipLibCheck: false, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, ...compilerOptions };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: ['consumer.ts'] }, null, 2));
  return dir;
}

function check(ts: TypeScriptRelease, compilerOptions: Record<string, unknown>, source = CONSUMER): { code: number | null; out: string } {
  const dir = project(compilerOptions, source);
  try {
    assert.ok(!existsSync(join(dir, 'node_modules/@types')), 'the project has no @types of its own');
    const r = spawnSync(process.execPath, [ts.tsc, '-p', 'tsconfig.json'], { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20 });
    return { code: r.status, out: `${r.stdout}${r.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function checkRelease(ts: TypeScriptRelease): void {
  for (const options of [{}, { types: [] }]) {
    const r = check(ts, options);
    assert.equal(r.code, 0, `TypeScript ${ts.version}, skipLibCheck false, ${JSON.stringify(options)}:\n${r.out}`);
  }
  // Not vacuous: a wrong use in the project is reported.
  const bad = check(ts, {}, `${CONSUMER}export const n: number = names;\n`);
  assert.notEqual(bad.code, 0);
  assert.match(bad.out, /consumer\.ts\(\d+,\d+\): error TS2322/);
  assert.doesNotMatch(bad.out, /node_modules\/kdyn|dist\/types/, 'no error inside kdyn');
}

test("the repository's TypeScript (5.x): a project without @types/node, skipLibCheck false, checks with no error", (t) => {
  if (!haveDeclarations()) return t.skip(`${DECLARATIONS} is missing: build with --declarations (npm test does)`);
  checkRelease(repoTypeScript());
});

test("the registry's current TypeScript: the same project checks with no error", (t) => {
  if (!haveDeclarations()) return t.skip(`${DECLARATIONS} is missing: build with --declarations (npm test does)`);
  const ts = currentTypeScript();
  if ('missing' in ts) return t.skip(`the current TypeScript is not available: ${ts.missing}`);
  t.diagnostic(`TypeScript ${ts.version}`);
  checkRelease(ts);
});
