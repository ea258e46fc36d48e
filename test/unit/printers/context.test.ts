// The printer decorator of `get` (src/printers/context.ts): with one context and no fleet selector
// the pages print as get's own printer prints them (kubectl's output); with the context shown, each
// format says where an object lives (the CONTEXT column, `context/` names, `{context, object}`
// records, a List per context), `-o name|jsonl` leave as soon as their context is done, Lists keep
// the contexts' order, a failed context prints nothing. In-process, pure: pages are given by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Table } from '../../../src/core/table.js';
import type { Unstructured } from '../../../src/core/unstructured.js';
import { createPrinter, prepareOutput, type ContextStart, type GetPrintContext, type PrintedResource } from '../../../src/printers/index.js';
import { createGetPrinter } from '../../../src/printers/get.js';
import { getPrintOptions } from '../../../src/cli/print-flags.js';
import { memoryIO } from '../../support/io.js';

const cm: PrintedResource = { mapping: { gvk: { group: '', kind: 'ConfigMap' }, gvr: { group: '', resource: 'configmaps' }, namespaced: true } };
const obj = (name: string, ns = 'demo'): Unstructured => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns, managedFields: [{ manager: 'kubectl' }] },
  data: { k: name },
});
const plan = (o: Partial<ContextStart> = {}): ContextStart => ({ singleItemImplied: false, namespace: 'demo', withNamespace: false, resources: [cm], ...o });
const table = (...names: string[]): Table => ({
  kind: 'Table',
  apiVersion: 'meta.k8s.io/v1',
  metadata: {},
  columnDefinitions: [
    { name: 'Name', type: 'string', format: 'name', description: '', priority: 0 },
    { name: 'Data', type: 'integer', format: '', description: '', priority: 0 },
  ],
  rows: names.map((n) => ({ cells: [n, 1], object: { metadata: { name: n, namespace: 'demo' } } as Unstructured })),
});

async function printer(flags: Parameters<typeof getPrintOptions>[0], c: Partial<GetPrintContext> = {}) {
  const io = memoryIO();
  const output = await prepareOutput(getPrintOptions(flags), io);
  const errors: unknown[] = [];
  const p = await createPrinter(output, { showContext: true, severalNamespaces: false, ignoreNotFound: false, allNamespaces: false, errors, ...c }, io);
  return { io, p, output, errors };
}

/** Each context in turn: start, its pages, done, settle; then end. */
async function run(p: Awaited<ReturnType<typeof printer>>['p'], contexts: Array<[string, Array<Unstructured[] | Table>, boolean?]>): Promise<unknown[]> {
  const errors: unknown[] = [];
  for (const [context, pages] of contexts) {
    await p.start(context, plan());
    for (const page of pages) p.page(context, page, cm);
  }
  for (const [context, , failed] of contexts) p.done(context, failed === true);
  for (const [context, , failed] of contexts) errors.push(...p.settle(context, failed === true));
  p.end();
  return errors;
}

test('one context without a selector: byte for byte what get\'s own printer prints, managedFields dropped from json', async () => {
  for (const output of ['json', 'yaml', 'name', 'jsonl', 'jsonpath={.items[*].metadata.name}', 'custom-columns=N:.metadata.name', '']) {
    const { io, p } = await printer({ output }, { showContext: false });
    const pages = output === '' ? [table('a', 'b')] : [[obj('a'), obj('b')]];
    await run(p, [['only', pages]]);
    const direct = memoryIO();
    const o = await prepareOutput(getPrintOptions({ output }), direct);
    const single = await createGetPrinter(o, { singleItemImplied: false, ignoreNotFound: false, allNamespaces: false, namespace: 'demo', errors: [] }, direct);
    for (const page of output === '' ? [table('a', 'b')] : [[obj('a'), obj('b')].map((x) => (delete x.metadata!.managedFields, x))]) single.page(page, cm);
    single.end();
    assert.equal(io.out(), direct.out(), output);
    assert.ok(!io.out().includes('managedFields'), output);
  }
});

test('-o name and -o jsonl: each line names its context, written as soon as the context is done', async () => {
  const { io, p } = await printer({ output: 'name' });
  await p.start('east', plan());
  await p.start('west', plan());
  p.page('west', [obj('w')], cm);
  p.done('west', false);
  assert.equal(io.out(), 'west/configmap/w\n'); // before east, which is not done yet
  p.page('east', [obj('e')], cm);
  p.done('east', false);
  p.settle('east', false);
  p.settle('west', false);
  p.end();
  assert.equal(io.out(), 'west/configmap/w\neast/configmap/e\n');

  const jsonl = await printer({ output: 'jsonl' });
  await run(jsonl.p, [['east', [[obj('e')]]]]);
  assert.deepEqual(JSON.parse(jsonl.io.out()), { context: 'east', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'e', namespace: 'demo' }, data: { k: 'e' } } });
});

test('-o json and yaml: one List per context with its context, in the contexts\' order; a failed context has no document', async () => {
  const { io, p } = await printer({ output: 'json' });
  await run(p, [['east', [[obj('a')]]], ['down', [], true], ['west', [[obj('b'), obj('c')]]]]);
  const docs = io.out().split(/\n(?=\{)/).map((d) => JSON.parse(d) as { context: string; kind: string; items: Unstructured[] });
  assert.deepEqual(docs.map((d) => [d.context, d.kind, d.items.map((i) => i.metadata?.name)]), [['east', 'List', ['a']], ['west', 'List', ['b', 'c']]]);
  const yaml = await printer({ output: 'yaml' });
  await run(yaml.p, [['east', [[obj('a')]]], ['west', [[obj('b')]]]]);
  assert.equal(yaml.io.out().split('\n---\n').length, 2);
  assert.match(yaml.io.out(), /^apiVersion: v1\ncontext: east\nitems:/);
});

test('tables: CONTEXT first, one header over the contexts; nothing and no errors: No resources found', async () => {
  const { io, p } = await printer({});
  await run(p, [['east', [table('a')]], ['west', [table('b')]], ['down', [table('x')], true]]);
  assert.equal(io.out(), 'CONTEXT   NAME   DATA\neast      a      1\nwest      b      1\n');
  const empty = await printer({});
  await run(empty.p, [['east', []]]);
  assert.deepEqual([empty.io.out(), empty.io.err()], ['', 'No resources found\n']);
});

test('one context, several namespaces: no CONTEXT, the NAMESPACE column of -A in tables, the objects as one context prints them', async () => {
  const { io, p } = await printer({}, { showContext: false, severalNamespaces: true });
  await p.start('only', plan({ withNamespace: true, namespace: undefined }));
  p.page('only', table('a'), cm);
  p.done('only', false);
  p.settle('only', false);
  p.end();
  assert.equal(io.out(), 'NAMESPACE   NAME   DATA\ndemo        a      1\n');
  const names = await printer({ output: 'name' }, { showContext: false, severalNamespaces: true });
  await run(names.p, [['only', [[obj('a')], [obj('b', 'team-a')]]]]);
  assert.equal(names.io.out(), 'configmap/a\nconfigmap/b\n');
});

test('custom-columns: CONTEXT then the user\'s columns; a path that fails ends that context\'s rows and is its error', async () => {
  const { io, p } = await printer({ output: 'custom-columns=N:.metadata.name,K:.data.k[0]' });
  const bad = { ...obj('bad'), data: { k: 'x' } };
  const errors = await run(p, [['east', [[{ ...obj('a'), data: { k: ['1'] } } as unknown as Unstructured, bad]]], ['west', [[{ ...obj('b'), data: { k: ['2'] } } as unknown as Unstructured]]]]);
  assert.equal(io.out(), 'CONTEXT   N     K\neast      a     1\nwest      b     2\n');
  assert.equal(errors.length, 1);
});
