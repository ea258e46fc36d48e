// The published library surface: `import ... from 'kdyn'` resolves through package.json "exports" to
// dist/lib (runtime) and dist/types (declarations), and a strict TypeScript consumer type-checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));

test('the package entry point exports the dynamic client, RESTMapper, discovery, apply and errors', async () => {
  const kdyn = await import('kdyn');
  for (const name of ['connect', 'DynamicClient', 'DeferredRESTMapper', 'createCachedDiscovery', 'loadRestConfig', 'createTransport', 'StatusError', 'NoResourceMatchError', 'applyObjects', 'decodeManifests']) {
    assert.equal(typeof (kdyn as Record<string, unknown>)[name], 'function', `${name} is exported`);
  }
});

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
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', join(dir, 'consumer.ts')], { cwd: root, encoding: 'utf8' });
  assert.equal(tsc.status, 0, `tsc failed:\n${tsc.stdout}${tsc.stderr}`);
  // and a wrong use is rejected, so the check above is not vacuous
  writeFileSync(join(dir, 'wrong.ts'), "import { connect } from 'kdyn';\nconst n: number = connect;\nexport { n };\n");
  const bad = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node', join(dir, 'wrong.ts')], { cwd: root, encoding: 'utf8' });
  assert.notEqual(bad.status, 0, 'a type error in a consumer is reported');
});
