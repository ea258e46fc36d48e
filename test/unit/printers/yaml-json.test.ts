// `-o yaml` / `-o json` output compared byte for byte with kubectl v1.32: `create configmap
// --dry-run=client` with awkward values, `label --local` for unstructured objects, and `get` against
// a fixture server for the List wrapper. Skipped (the kubectl parts) when kubectl is not on PATH.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { toYAML, toYAMLDocuments, resolvesToNonString, yamlV2KeyLess } from '../../../src/printers/yaml.js';
import { toJSON, goJSON, quoteGoJSON } from '../../../src/printers/json.js';
import { hasKubectl, KubectlOracle } from '../../support/kubectl-oracle.js';

// Values kdyn renders exactly as kubectl.
const AWKWARD = [
  'yes', 'no', 'on', 'off', 'y', 'n', 'Y', 'True', '123', '0x1F', '1e3', '1_000', '1:20', '~', 'null', '',
  '2024-01-01', '2024-01-01T10:00:00Z', '2001-12-14 21:59:43.10', '2024-13-01', 'a: b', '#x', 'a #b', '*', '&a', '!x',
  '%x', '@x', '`x', '-x', '- x', '-', '?', '? x', ':x', 'x:', '[a]', '{a}', 'a,b', 'a]', '"q"', "'s'",
  'multi\nline', 'multi\nline\n', 'multi\nline\n\n', 'trail \nx', ' lead', 'trail ', 'héllo 日本', '<html>&</html>',
  'tab\there', '.5', '.x', '+1', '-1', '08', '0o17', '0b101', '1.2.3', '0.1', '12:30:45', '---', '...', '--- x',
  'a\n---\nb', '  indented\nblock', '=', '<<', '\x01ctl', 'nbsp\u00a0x', 'emoji 😀', 'x'.repeat(79),
];
const AWKWARD_KEYS = ['yes', '123', 'a.b', '-x', '1_000', 'k10', 'k9', 'B', '_a', 'a_b', 'aB', '10', '9', '0'];

function configmapArgs(values: string[], keys: string[]): string[] {
  const args = ['create', 'configmap', 'x', '--dry-run=client'];
  values.forEach((v, i) => args.push(`--from-literal=k${String(i).padStart(3, '0')}=${v}`));
  for (const k of keys) args.push(`--from-literal=${k}=v`);
  return args;
}

describe('YAML and JSON printers (pure)', () => {
  test('YAML 1.1 ambiguity as yaml.v2 resolves it', () => {
    for (const s of ['yes', 'No', 'ON', '~', '', '123', '0x1F', '1e3', '1_000', '1:20', '.5', '+1', '08', '2024-01-01', '.inf']) {
      assert.equal(resolvesToNonString(s), true, s);
    }
    for (const s of ['yess', 'a: b', '<<', '=', '1.2.3', '2024-13-01', '.x', '-', 'x1']) assert.equal(resolvesToNonString(s), false, s);
  });

  test("yaml.v2 key order: digit runs by value, letters after other characters", () => {
    const keys = ['k10', 'k9', 'B', '_a', 'a', '1_000', '123'];
    const sorted = [...keys].sort((a, b) => (yamlV2KeyLess(a, b) ? -1 : yamlV2KeyLess(b, a) ? 1 : 0));
    assert.deepEqual(sorted, ['_a', '1_000', '123', 'B', 'a', 'k9', 'k10']);
  });

  test('toYAML: quoting, literal blocks, unindented sequences, Go numbers', () => {
    const y = toYAML({ b: ['yes', 'a: b', 'x'], a: 'l1\nl2\n', num: [1234567.5, 1000000, 0.5], e: '', n: 1 });
    assert.equal(y, 'a: |\n  l1\n  l2\nb:\n- "yes"\n- \'a: b\'\n- x\ne: ""\n"n": 1\nnum:\n- 1.2345675e+06\n- 1000000\n- 0.5\n');
  });

  test('toYAMLDocuments separates documents with ---', () => {
    assert.equal(toYAMLDocuments([{ a: 1 }, { b: 2 }]), 'a: 1\n---\nb: 2\n');
  });

  test("toJSON: 4-space indent, sorted keys, Go escaping, newline", () => {
    assert.equal(toJSON({ b: '<&>\u2028\u2029\b\f\x01', a: [], c: {} }),
      '{\n    "a": [],\n    "b": "\\u003c\\u0026\\u003e\\u2028\\u2029\\b\\f\\u0001",\n    "c": {}\n}\n');
    assert.equal(toJSON({ b: 1, a: 2 }, { sortKeys: false }), '{\n    "b": 1,\n    "a": 2\n}\n');
    assert.equal(goJSON({ x: [1.5, 1e21, 1e-7, -0] }), '{"x":[1.5,1e+21,1e-7,0]}');
    assert.equal(quoteGoJSON('\ud800x'), '"\\ufffdx"');
  });
});

describe('YAML and JSON against kubectl', { skip: hasKubectl() ? false : 'kubectl not on PATH' }, () => {
  let oracle: KubectlOracle;
  before(() => {
    oracle = new KubectlOracle();
  });
  after(() => oracle.close());

  test('configmap with awkward values and keys: YAML byte for byte', () => {
    const args = configmapArgs(AWKWARD, AWKWARD_KEYS);
    const y = oracle.run([...args, '-o', 'yaml']);
    const j = oracle.run([...args, '-o', 'json']);
    assert.equal(y.status, 0, y.stderr);
    assert.equal(toYAML(JSON.parse(j.stdout)), y.stdout);
    // kubectl's JSON for a typed object keeps struct field order; the data map is sorted bytewise
    // ("10" before "9"), which JavaScript objects cannot hold: compare the data section.
    const data = JSON.parse(j.stdout).data as Record<string, string>;
    const dataJSON = j.stdout.slice(j.stdout.indexOf('    "data": {') + 12, j.stdout.indexOf('\n    }', j.stdout.indexOf('"data"')) + 6);
    assert.equal(toJSON(data).replace(/\n/g, '\n    ').trimEnd(), dataJSON);
  });

  test('unstructured object: YAML and JSON byte for byte', () => {
    const obj = {
      apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'a', annotations: { 'z/k': '<b>&', 'a': 'multi\nline' } },
      spec: {
        ints: [1, -2, 1000000, 12345678901234567000], floats: [1.5, 1234567.5, 0.00001, 1e21, -0.25], b: true, n: null,
        nested: [[1, 2], [], {}, { a: [] }], list: [{ name: 'x', v: 'yes' }], unicode: 'héllo 日本 \u2028', k10: 1, k9: 2,
      },
    };
    const y = oracle.local(obj, ['-o', 'yaml']);
    const j = oracle.local(obj, ['-o', 'json']);
    assert.equal(y.status, 0, y.stderr);
    const seen = JSON.parse(j.stdout);
    assert.equal(toJSON(seen), j.stdout);
    assert.equal(toYAML(seen), y.stdout);
  });

  test('get -o json / -o yaml: the List wrapper', async () => {
    const items = [
      { metadata: { namespace: 'ns1', name: 'b', labels: { z: '1' } }, kind: 'ConfigMap', apiVersion: 'v1', data: { k: 'on' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns1' }, data: { x: '1:20' } },
    ];
    const list = { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items };
    const j = await oracle.get(items, ['-o', 'json']);
    const y = await oracle.get(items, ['-o', 'yaml']);
    assert.equal(j.status, 0, j.stderr);
    assert.equal(toJSON(list), j.stdout);
    assert.equal(toYAML(list), y.stdout);
  });
});

describe('known YAML differences from kubectl', { skip: hasKubectl() ? false : 'kubectl not on PATH' }, () => {
  // Documented: yaml.v2 folds long scalars at ~80 columns, kdyn never folds. (Also different, not
  // tested here: U+2028/U+2029 are written raw by yaml.v2 with a re-indent, double-quoted by kdyn;
  // after a BOM yaml.v2 escapes every following character.) This pins the difference.
  test('folding differs but reads back equal', async () => {
    const { load } = await import('js-yaml');
    const oracle = new KubectlOracle();
    try {
      const values = [`${'x'.repeat(100)} ${'y'.repeat(10)}`, 'a b c d e f g h i j k l m n o p q r s t u v w x y z '.repeat(3).trim()];
      const args = configmapArgs(values, []);
      const y = oracle.run([...args, '-o', 'yaml']);
      const mine = toYAML(JSON.parse(oracle.run([...args, '-o', 'json']).stdout));
      assert.notEqual(mine, y.stdout);
      assert.deepEqual(load(mine), load(y.stdout));
    } finally {
      await oracle.close();
    }
  });
});
