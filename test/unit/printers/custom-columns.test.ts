// custom-columns: spec and file parsing, cell formatting, and byte-for-byte comparisons with
// `kubectl get configmaps -o custom-columns=...` against a small fixture server (skipped without kubectl).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  CustomColumnsError,
  CustomColumnsPrinter,
  parseCustomColumnsSpec,
  parseCustomColumnsTemplate,
} from '../../../src/printers/custom-columns.js';
import { hasKubectl, KubectlOracle } from '../../support/kubectl-oracle.js';

const ITEMS = [
  {
    metadata: { namespace: 'ns1', name: 'a', resourceVersion: '5', labels: { z: '1', a: '2' }, creationTimestamp: null },
    kind: 'ConfigMap',
    apiVersion: 'v1',
    data: { k: 'v', n: 'x' },
  },
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a-much-longer-name', namespace: 'ns1', creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: { list: [1, 'x', { q: null }], f: 1.5, big: 1e6, small: 0.00001 },
  },
];

function render(spec: string, items: unknown[], noHeaders = false): string {
  const p = new CustomColumnsPrinter(parseCustomColumnsSpec(spec), { noHeaders });
  p.addAll(items);
  return p.render();
}

describe('custom-columns', () => {
  test('spec parsing normalises relaxed paths', () => {
    assert.deepEqual(parseCustomColumnsSpec('NAME:metadata.name,RV:{.metadata.resourceVersion},X:'), [
      { header: 'NAME', fieldSpec: '{.metadata.name}' },
      { header: 'RV', fieldSpec: '{.metadata.resourceVersion}' },
      { header: 'X', fieldSpec: '' },
    ]);
  });

  test('bad specs fail with kubectl messages', () => {
    assert.throws(() => parseCustomColumnsSpec(''), (e: unknown) => e instanceof CustomColumnsError && e.message === 'custom-columns format specified but no custom columns given');
    assert.throws(() => parseCustomColumnsSpec('NAME'), { message: 'unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>' });
    assert.throws(() => parseCustomColumnsSpec('A:{a}{b}'), /unexpected path string/);
  });

  test('template file: header line and spec line', () => {
    assert.deepEqual(parseCustomColumnsTemplate('NAME   RV\n.metadata.name  {.metadata.resourceVersion}\n'), [
      { header: 'NAME', fieldSpec: '{.metadata.name}' },
      { header: 'RV', fieldSpec: '{.metadata.resourceVersion}' },
    ]);
    assert.throws(() => parseCustomColumnsTemplate(''), /missing header line/);
    assert.throws(() => parseCustomColumnsTemplate('NAME RV\n'), /missing spec line/);
    assert.throws(() => parseCustomColumnsTemplate('NAME RV\n.metadata.name\n'), { message: "number of headers (2) and field specifications (1) don't match" });
  });

  test('cells: <none>, Go %v values, several values joined by commas, no objects kept', () => {
    const out = render('N:.metadata.name,L:.metadata.labels,T:.metadata.creationTimestamp,X:.spec.list[*],F:.spec.small', ITEMS);
    const lines = out.split('\n');
    assert.match(lines[1]!, /^a\s+map\[a:2 z:1\]\s+<nil>\s+<none>\s+<none>$/);
    assert.match(lines[2]!, /^a-much-longer-name\s+<none>\s+2024-01-01T00:00:00Z\s+1,x,map\[q:<nil>\]\s+1e-05$/);
  });

  test('narrow columns take tabwriter minwidth 6; --no-headers drops the header', () => {
    assert.equal(render('A:.metadata.resourceVersion,B:.kind', ITEMS.slice(0, 1)), 'A     B\n5     ConfigMap\n');
    assert.equal(render('A:.metadata.resourceVersion', ITEMS.slice(0, 1), true), '5\n');
  });

  test('an empty list prints just the header, as kubectl', () => {
    assert.equal(render('A:.metadata.name', []), 'A\n');
    assert.equal(render('A:.metadata.name', [], true), '');
  });

  test('a path error names the cause and keeps the rows printed before it', () => {
    const p = new CustomColumnsPrinter(parseCustomColumnsSpec('A:.spec.list[5]'));
    p.add(ITEMS[0]);
    assert.throws(() => p.add(ITEMS[1]), (e: unknown) => e instanceof CustomColumnsError && e.message === 'array index out of bounds: index 5, length 3');
    assert.equal(p.render(), 'A\n<none>\n');
  });
});

const SPECS = [
  'N:.metadata.name,L:.metadata.labels,D:.data,T:.metadata.creationTimestamp,S:.spec.list,F:.spec.f,B:.spec.big,X:.spec.list[*],Y:.nope',
  'NAME:metadata.name,RSRC:{.metadata.resourceVersion}',
  'A:.metadata.name,B:.spec.small,C:{.spec.list[?(@ == "x")]}',
  'A:.metadata.name,EMPTY:',
  'A:{.items[}',
  'A:.spec.list[5]',
  'A',
  'A:{a}{b}',
];

describe('custom-columns against kubectl get', { skip: hasKubectl() ? false : 'kubectl not on PATH' }, () => {
  let oracle: KubectlOracle;
  before(() => {
    oracle = new KubectlOracle();
  });
  after(() => oracle.close());

  test('empty list: header only', async () => {
    const r = await oracle.get([], ['-o', 'custom-columns=NAME:.metadata.name,X:.x']);
    assert.equal(render('NAME:.metadata.name,X:.x', []), r.stdout);
    assert.equal(r.status, 0);
  });

  test('custom-columns-file', async () => {
    const file = `${oracle.dir}/columns.txt`;
    const text = 'NAME    RV   LABELS\n.metadata.name {.metadata.resourceVersion}  metadata.labels\n';
    (await import('node:fs')).writeFileSync(file, text);
    const r = await oracle.get(ITEMS, ['-o', `custom-columns-file=${file}`]);
    const p = new CustomColumnsPrinter(parseCustomColumnsTemplate(text));
    p.addAll(ITEMS);
    assert.equal(p.render(), r.stdout);
  });

  for (const spec of SPECS) {
    for (const noHeaders of [false, true]) {
      test(`${spec}${noHeaders ? ' --no-headers' : ''}`, async () => {
        const r = await oracle.get(ITEMS, ['-o', `custom-columns=${spec}`, ...(noHeaders ? ['--no-headers'] : [])]);
        let out = '';
        let err = '';
        try {
          const p = new CustomColumnsPrinter(parseCustomColumnsSpec(spec), { noHeaders });
          try {
            p.addAll(ITEMS);
          } finally {
            out = p.render();
          }
        } catch (e) {
          assert.ok(e instanceof Error);
          err = `error: ${e.message}\n`;
        }
        assert.equal(out, r.stdout);
        assert.equal(err, r.stderr);
        assert.equal(err ? 1 : 0, r.status);
      });
    }
  }
});
