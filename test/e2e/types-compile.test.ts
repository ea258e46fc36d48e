/**
 * The typed workflow compiles: `kdyn types -f` output for the Gadget CRD (test/fixtures/typegen), in
 * --output-dir layout, used with kdyn's generic client (`k.resource<Gadget>`, `k.kind(kinds[...])`,
 * `k.for(obj)`, a typed watch) type-checks under strict + exactOptionalPropertyTypes +
 * noUncheckedIndexedAccess against dist/types; and what the types forbid (a wrong enum value, a
 * missing required field, an unknown property, a wrong apiVersion) fails to compile.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runKdyn } from '../support/cli.js';
import { fixturesDir } from '../support/exchanges.js';
import { compileStrict, DECLARATIONS, haveDeclarations } from '../support/tsc-strict.js';

const EXAMPLE = `import { connect, watch } from 'kdyn';
import { kinds, type KindMap } from './gen/index.js';
import type { Gadget } from './gen/types.kdyn.dev.v1.js';

export async function main(): Promise<string[]> {
  const k = await connect();
  try {
    // By name: the handle's verbs take and return Gadget.
    const gadgets = await k.resource<Gadget>('gadgets');
    const g: Gadget = await gadgets.get('g');
    const size: number = g.spec.size;
    const mode: 'Fast' | 'Slow' | "it's" = g.spec.mode;
    const port: number | string | undefined = g.spec.port;
    const firstPart: string | undefined = g.spec.parts?.[0]?.name;
    const extra: unknown = g.spec.extra?.['anything'];
    void [size, mode, port, firstPart, extra];

    // From the generated map: typed without naming the type.
    const typed = await k.kind(kinds['types.kdyn.dev/v1/Gadget'], { namespace: 'demo' });
    const list = await typed.listAll({ labelSelector: 'app=x' });
    const names = list.items.map((x) => x.metadata.name ?? '');

    // From an object: its apiVersion, kind and namespace pick the handle.
    const obj: KindMap['types.kdyn.dev/v1/Gadget'] = {
      apiVersion: 'types.kdyn.dev/v1',
      kind: 'Gadget',
      metadata: { name: 'new', namespace: 'demo' },
      spec: { size: 1, mode: 'Fast', limits: { cpu: 2, memory: '1Gi' }, config: { free: ['form'] } },
    };
    const h = await k.for(obj);
    const applied: Gadget = await h.apply(obj, { fieldManager: 'example' });
    await h.delete(applied);
    await h.deleteCollection({ labelSelector: 'tier=test' });

    for await (const ev of watch(gadgets, { labelSelector: 'app=x' })) {
      if (ev.type !== 'BOOKMARK') names.push(ev.object.spec.mode);
      break;
    }
    return names;
  } finally {
    k.close();
  }
}

const base = { apiVersion: 'types.kdyn.dev/v1', kind: 'Gadget', metadata: {} } as const;
// @ts-expect-error an enum value the schema does not list
export const badMode: Gadget = { ...base, spec: { size: 1, mode: 'Medium' } };
// @ts-expect-error spec.size is required
export const noSize: Gadget = { ...base, spec: { mode: 'Fast' } };
// @ts-expect-error spec has no property "colour" (no preserve-unknown-fields there)
export const unknownField: Gadget = { ...base, spec: { size: 1, mode: 'Fast', colour: 'red' } };
// @ts-expect-error the served version's apiVersion only
export const otherVersion: Gadget = { ...base, apiVersion: 'types.kdyn.dev/v1beta1', spec: { size: 1, mode: 'Fast' } };
// @ts-expect-error exactOptionalPropertyTypes: an optional field is absent, not undefined
export const undefinedPort: Gadget = { ...base, spec: { size: 1, mode: 'Fast', port: undefined } };
`;

test('generated types and the generic client compile strict; what they forbid does not', async (t) => {
  if (!haveDeclarations()) return t.skip(`${DECLARATIONS} is missing: build with --declarations (npm test does)`);
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-types-compile-'));
  try {
    mkdirSync(join(dir, 'home'));
    const r = await runKdyn(['types', '-f', join(fixturesDir(), 'typegen', 'gadgets-crd.yaml'), '--output-dir', join(dir, 'gen')], { env: { PATH: process.env.PATH, HOME: join(dir, 'home') } });
    assert.equal(r.code, 0, r.err);
    writeFileSync(join(dir, 'example.ts'), EXAMPLE);
    const c = compileStrict(dir, ['example.ts']);
    assert.equal(c.code, 0, c.out);
    // The expect-error lines are errors: without their comments, exactly those five fail.
    writeFileSync(join(dir, 'example.ts'), EXAMPLE.replace(/^\/\/ @ts-expect-error.*\n/gm, ''));
    const bad = compileStrict(dir, ['example.ts']);
    assert.notEqual(bad.code, 0);
    const lines = new Set([...bad.out.matchAll(/^example\.ts\((\d+),\d+\): error/gm)].map((m) => m[1]));
    assert.equal(lines.size, 5, bad.out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const PATCHES = `import type { ObjectMeta, ResourceClient } from 'kdyn';

interface Note {
  apiVersion: 'example.kdyn.dev/v1';
  kind: 'Note';
  metadata: ObjectMeta;
  spec: { text: string; tags?: string[] };
  status?: { observedGeneration?: number; conditions?: Array<{ type: string; status: string }> };
}
declare const notes: ResourceClient<Note>;

export async function patches(): Promise<Note[]> {
  return Promise.all([
    notes.patch('a', { spec: { text: 'y' } }, 'merge'),
    notes.patch('a', { metadata: { labels: { app: null } } }, 'merge'),
    notes.patch('a', { status: { conditions: [{ type: 'Ready' }] } }, 'strategic', { subresource: 'status' }),
    notes.patch('a', { apiVersion: 'example.kdyn.dev/v1', kind: 'Note', spec: { tags: ['x'] } }, 'apply', { fieldManager: 'me' }),
    notes.patch('a', [{ op: 'replace', path: '/spec/text', value: 'y' }, { op: 'remove', path: '/spec/tags' }, { op: 'move', from: '/a', path: '/b' }], 'json'),
    notes.patch('a', '{"spec":{"txt":"y"}}', 'merge'),
  ]);
}

// @ts-expect-error Note has no spec.txt
export const typo = () => notes.patch('a', { spec: { txt: 'y' } }, 'merge');
// @ts-expect-error spec.text is a string
export const wrongValue = () => notes.patch('a', { spec: { text: 1 } }, 'apply');
// @ts-expect-error no status.observedGen either, in a strategic merge patch
export const strategicTypo = () => notes.patch('a', { status: { observedGen: 1 } }, 'strategic');
// @ts-expect-error a JSON patch is a list of operations, not a merge patch
export const mergeAsJson = () => notes.patch('a', { spec: { text: 'y' } }, 'json');
// @ts-expect-error "delete" is no RFC 6902 operation
export const badOp = () => notes.patch('a', [{ op: 'delete', path: '/spec' }], 'json');
`;

test("patch bodies are typed: merge, strategic and apply as a deep partial of T, json as RFC 6902 operations", (t) => {
  if (!haveDeclarations()) return t.skip(`${DECLARATIONS} is missing: build with --declarations (npm test does)`);
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-types-patch-'));
  try {
    writeFileSync(join(dir, 'patches.ts'), PATCHES);
    const c = compileStrict(dir, ['patches.ts']);
    assert.equal(c.code, 0, c.out);
    writeFileSync(join(dir, 'patches.ts'), PATCHES.replace(/^\/\/ @ts-expect-error.*\n/gm, ''));
    const bad = compileStrict(dir, ['patches.ts']);
    const lines = new Set([...bad.out.matchAll(/^patches\.ts\((\d+),\d+\): error/gm)].map((m) => m[1]));
    assert.equal(lines.size, 5, bad.out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
