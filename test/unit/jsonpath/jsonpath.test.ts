// JSONPath templates: cases from client-go's util/jsonpath/jsonpath_test.go and parser behaviour,
// with client-go's expected output (the data is unstructured JSON, as kubectl passes it).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileJSONPath, evaluatePath, formatGoValue, JSONPathError, relaxedJSONPathExpression } from '../../../src/jsonpath/index.js';

const types = {
  bools: [true, false, true, false],
  integers: [1, 2, 3, 4],
  floats: [1.5, 2.2, 3.3, 4.25],
  strings: ['one', 'two', 'three', 'four'],
  interfaces: [true, 'one', 1, 1.1],
  maps: [
    { name: 'one', value: 1 },
    { name: 'two', value: 2.02 },
    { name: 'three', value: 3.03 },
    { name: 'four', value: 4.04 },
  ],
};

const nodes = {
  kind: 'List',
  items: [
    {
      kind: 'None',
      metadata: { name: '127.0.0.1', labels: { 'kubernetes.io/hostname': '127.0.0.1' } },
      status: { capacity: { cpu: '4' }, ready: true, addresses: [{ type: 'LegacyHostIP', address: '127.0.0.1' }] },
    },
    {
      kind: 'None',
      metadata: { name: '127.0.0.2', labels: { 'kubernetes.io/hostname': '127.0.0.2' } },
      status: {
        capacity: { cpu: '8' },
        ready: false,
        addresses: [{ type: 'LegacyHostIP', address: '127.0.0.2' }, { type: 'another', address: '127.0.0.3' }],
      },
    },
  ],
  users: [{ name: 'myself', user: {} }, { name: 'e2e', user: { username: 'admin', password: 'secret' } }],
};

const points = [
  { id: 'i1', x: 4, y: -5 },
  { id: 'i2', x: -2, y: -5, z: 1 },
  { id: 'i3', x: 8, y: 3 },
  { id: 'i4', x: -6, y: -1 },
  { id: 'i5', x: 0, y: 2, z: 1 },
  { id: 'i6', x: 1, y: 4 },
];

const pods = {
  items: [
    { metadata: { name: 'pod1' }, spec: { containers: [{ name: 'foo', another: [{ name: 'value1' }, { name: 'value2' }] }, { name: 'bar', another: [{ name: 'value1' }, { name: 'value2' }] }] } },
    { metadata: { name: 'pod2' }, spec: { containers: [{ name: 'baz', another: [{ name: 'value1' }, { name: 'value2' }] }] } },
  ],
};

const containers = { spec: { containers: ['fake0', 'fake1', 'fake2', 'fake3'].map((name) => ({ name, image: 'radial/busyboxplus:curl' })) } };
const six = { spec: { containers: ['fake0', 'fake1', 'fake2', 'fake3', 'fake4', 'fake5'].map((name) => ({ name })) } };

// [name, template, data, expected output]
const cases: Array<[string, string, unknown, string]> = [
  ['bool slice', '{ .bools }', types, '[true,false,true,false]'],
  ['bool index', '{ .bools[0] }', types, 'true'],
  ['bool index -1', '{ .bools[-1] }', types, 'false'],
  ['bool sub slice', '{ .bools[0:2] }', types, 'true false'],
  ['bool first 2', '{ .bools[:2] }', types, 'true false'],
  ['bool step 2', '{ .bools[:4:2] }', types, 'true true'],
  ['int slice', '{ .integers }', types, '[1,2,3,4]'],
  ['int index -2', '{ .integers[-2] }', types, '3'],
  ['int step', '{ .integers[:4:2] }', types, '1 3'],
  ['float slice', '{ .floats }', types, '[1.5,2.2,3.3,4.25]'],
  ['float index -2', '{ .floats[-2] }', types, '3.3'],
  ['string slice', '{ .strings }', types, '["one","two","three","four"]'],
  ['string sub slice', '{ .strings[0:2] }', types, 'one two'],
  ['interfaces', '{ .interfaces }', types, '[true,"one",1,1.1]'],
  ['interfaces step', '{ .interfaces[:4:2] }', types, 'true 1'],
  ['maps', '{ .maps[0] }', types, '{"name":"one","value":1}'],
  ['maps step odd', '{ .maps[::2] }', types, '{"name":"one","value":1} {"name":"three","value":3.03}'],
  ['maps step even', '{ .maps[1::2] }', types, '{"name":"two","value":2.02} {"name":"four","value":4.04}'],
  ['plain', 'hello jsonpath', null, 'hello jsonpath'],
  ['recursive', '{..}', [1, 2, 3], '[1,2,3]'],
  ['filter', '{[?(@<5)]}', [2, 6, 3, 7], '2 3'],
  ['quote', '{"{"}', null, '{'],
  ['union', '{[1,3,4]}', [0, 1, 2, 3, 4], '1 3 4'],
  ['array', '{[0:2]}', ['Monday', 'Tudesday'], 'Monday Tudesday'],
  ['exists filter', '{[?(@.z)].id}', points, 'i2 i5'],
  ['bracket key', "{[0]['id']}", points, 'i1'],
  ['range item', '{range .items[*]}{.metadata.name}, {end}{.kind}', nodes, '127.0.0.1, 127.0.0.2, List'],
  ['range item with quote', '{range .items[*]}{.metadata.name}{"\\t"}{end}', nodes, '127.0.0.1\t127.0.0.2\t'],
  ['range addresses', '{.items[*].status.addresses[*].address}', nodes, '127.0.0.1 127.0.0.2 127.0.0.3'],
  ['double range', '{range .items[*]}{range .status.addresses[*]}{.address}, {end}{end}', nodes, '127.0.0.1, 127.0.0.2, 127.0.0.3, '],
  ['item name', '{.items[*].metadata.name}', nodes, '127.0.0.1 127.0.0.2'],
  ['union nodes capacity', "{.items[*]['metadata.name', 'status.capacity']}", nodes, '127.0.0.1 127.0.0.2 {"cpu":"4"} {"cpu":"8"}'],
  ['range nodes capacity', '{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}', nodes, '[127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] '],
  ['user password', '{.users[?(@.name=="e2e")].user.password}', nodes, 'secret'],
  ['hostname', '{.items[0].metadata.labels.kubernetes\\.io/hostname}', nodes, '127.0.0.1'],
  ['hostname filter', '{.items[?(@.metadata.labels.kubernetes\\.io/hostname=="127.0.0.1")].kind}', nodes, 'None'],
  ['bool item', '{.items[?(@..ready==true)].metadata.name}', nodes, '127.0.0.1'],
  ['empty range', '{range .items[*]}{.metadata.name}{end}', { items: [] }, ''],
  ['empty nested range', '{range .items[*]}{.metadata.name}{":"}{range @.spec.containers[*]}{.name}{","}{end}{"+"}{end}', { items: [] }, ''],
  ['nested range', '{range .items[*]}{.metadata.name}{":"}{range @.spec.containers[*]}{.name}{","}{end}{"+"}{end}', pods, 'pod1:foo,bar,+pod2:baz,+'],
  [
    'nested range in nested range',
    '{range .items[*]}{.metadata.name}{"~"}{range @.spec.containers[*]}{.name}{":"}{range @.another[*]}{.name}{","}{end}{"+"}{end}{"#"}{end}',
    pods,
    'pod1~foo:value1,value2,+bar:value1,value2,+#pod2~baz:value1,value2,+#',
  ],
  [
    'two nested ranges at the same level',
    '{range .items[*]}{.metadata.name}{"\\t"}{range @.spec.containers[*]}{.name}{" "}{end}{"\\t"}{range @.spec.containers[*]}{.name}{" "}{end}{"\\n"}{end}',
    pods,
    'pod1\tfoo bar \tfoo bar \npod2\tbaz \tbaz \n',
  ],
  [
    'filter tolerates missing annotations',
    '{.items[?(@.metadata.annotations.color=="blue")].metadata.name}',
    { items: [{ metadata: { name: 'pod1', annotations: { color: 'blue' } } }, { metadata: { name: 'pod2' } }, { metadata: { name: 'pod4', annotations: { color: 'blue' } } }] },
    'pod1 pod4',
  ],
  ['containers[0]', '{.spec.containers[0].name}', containers, 'fake0'],
  ['containers[0:0]', '{.spec.containers[0:0].name}', containers, ''],
  ['containers[0:-1]', '{.spec.containers[0:-1].name}', containers, 'fake0 fake1 fake2'],
  ['containers[-1]', '{.spec.containers[-1].name}', containers, 'fake3'],
  ['containers[-1:]', '{.spec.containers[-1:].name}', containers, 'fake3'],
  ['containers[-2:]', '{.spec.containers[-2:].name}', containers, 'fake2 fake3'],
  ['containers[-4]', '{.spec.containers[-4].name}', containers, 'fake0'],
  ['containers[5:5]', '{.spec.containers[5:5].name}', containers, ''],
  ['containers[-5:-5]', '{.spec.containers[-5:-5].name}', containers, ''],
  ['step [0:6:]', '{.spec.containers[0:6:].name}', six, 'fake0 fake1 fake2 fake3 fake4 fake5'],
  ['step [1:4:2]', '{.spec.containers[1:4:2].name}', six, 'fake1 fake3'],
  ['step [1:4:4]', '{.spec.containers[1:4:4].name}', six, 'fake1'],
  ['step [0:6:5]', '{.spec.containers[0:6:5].name}', six, 'fake0 fake5'],
  ['missing key prints nothing', 'before-{.hello}after', { a: 1 }, 'before-after'],
  ['null prints null', '{.a}', { a: null }, 'null'],
  ['html in JSON is escaped', '{.a}', { a: { b: '<x>&' } }, '{"b":"\\u003cx\\u003e\\u0026"}'],
  ['floats as Go prints them', '{.a[*]}', { a: [1e6 + 0.5, 0.00001, 1234567.5, 100000.5] }, '1.0000005e+06 1e-05 1.2345675e+06 100000.5'],
  ['integers stay integers', '{.a[*]}', { a: [1000000, -3, 0] }, '1000000 -3 0'],
  ['string bytes by wildcard', '{.a.*}', { a: 'Hé' }, '72 195 169'],
  ['root', '{$.kind}', { kind: 'X' }, 'X'],
  ['escapes in literals', '{"a\\tb\\u00e9\\x41"}', null, 'a\tbéA'],
  ['single-quoted literal', "{'x y'}", null, 'x y'],
];

describe('JSONPath (client-go cases)', () => {
  for (const [name, template, data, expected] of cases) {
    test(name, () => {
      assert.equal(compileJSONPath(template).execute(data), expected);
    });
  }
});

// [template, kubectl's message after `error: `]
const parseErrors: Array<[string, string]> = [
  ['{.items[', 'error parsing jsonpath {.items[, unterminated array'],
  ['{.a', 'error parsing jsonpath {.a, unclosed action'],
  ['{.a[?(@.x==1)}', 'error parsing jsonpath {.a[?(@.x==1)}, unclosed array expect ]'],
  ['{"abc}', 'error parsing jsonpath {"abc}, unterminated quoted string'],
  ['{.a[x]}', 'error parsing jsonpath {.a[x]}, invalid array index x'],
  ['{#}', "error parsing jsonpath {#}, unrecognized character in action: U+0023 '#'"],
  ['{.a[?(@.b]}', 'error parsing jsonpath {.a[?(@.b]}, unterminated filter'],
  ["{'a\\q'}", "error parsing jsonpath {'a\\q'}, unquote string 'a\\q' error invalid syntax"],
  ['{....Price}', 'error parsing jsonpath {....Price}, invalid multiple recursive descent'],
  ['{.a[-]}', 'error parsing jsonpath {.a[-]}, array index - is not a number'],
];

const execErrors: Array<[string, unknown, string]> = [
  ['{hello}', {}, 'unrecognized identifier hello'],
  ['{.a[0]}', { a: { b: 1 } }, 'map[string]interface {} is not array or slice'],
  ['{.a[?(@.p<>10)]}', { a: [{ p: 1 }] }, 'unrecognized filter operator <>'],
  ['{range .a.*}{@}{end}{end}', { a: { b: 1 } }, 'not in range, nothing to end'],
  ['{.a[5]}', { a: [1, 2] }, 'array index out of bounds: index 5, length 2'],
  ['{.a[-5]}', { a: [1, 2, 3, 4] }, 'array index out of bounds: index -1, length 4'],
  ['{.a[3:1]}', { a: [1, 2, 3, 4] }, 'starting index 3 is greater than ending index 1'],
  ['{.a[0:4:0]}', { a: [1, 2, 3, 4] }, 'step must be > 0'],
  ['{.a[?(@.p>1.5)]}', { a: [{ p: 2 }] }, 'incompatible types for comparison'],
  ['{.a[?(@.p=="x")]}', { a: [{ p: true }] }, 'incompatible types for comparison'],
  ['{.a[?(@.p<true)]}', { a: [{ p: false }] }, 'invalid type for comparison'],
];

describe('JSONPath errors', () => {
  for (const [template, message] of parseErrors) {
    test(`parse ${template}`, () => {
      assert.throws(() => compileJSONPath(template), (e: unknown) => e instanceof JSONPathError && e.message === message);
    });
  }
  for (const [template, data, reason] of execErrors) {
    test(`execute ${template}`, () => {
      const t = compileJSONPath(template);
      assert.throws(() => t.execute(data), (e: unknown) =>
        e instanceof JSONPathError && e.reason === reason &&
        e.message === `error executing jsonpath ${JSON.stringify(template)}: Error executing template: ${reason}`);
    });
  }
  test('allowMissingKeys false reports the missing key', () => {
    assert.throws(() => compileJSONPath('{.hello}', { allowMissingKeys: false }).execute({}), /hello is not found/);
  });
});

describe('relaxed paths, evaluatePath and Go value formatting', () => {
  test('relaxed forms all become {.a.b}', () => {
    for (const e of ['a.b', '.a.b', '{a.b}', '{.a.b}']) assert.equal(relaxedJSONPathExpression(e), '{.a.b}');
    assert.equal(relaxedJSONPathExpression(''), '');
    assert.throws(() => relaxedJSONPathExpression('{a}{b}'), /unexpected path string, expected a 'name1.name2'/);
  });
  test('evaluatePath flattens results and yields [] for missing keys', () => {
    const data = { metadata: { name: 'x', labels: { a: '1' } }, list: [1, 2] };
    assert.deepEqual(evaluatePath('.metadata.name', data), ['x']);
    assert.deepEqual(evaluatePath('{.list[*]}', data), [1, 2]);
    assert.deepEqual(evaluatePath('.nope.deeper', data), []);
  });
  test('formatGoValue prints like fmt.Sprint', () => {
    assert.equal(formatGoValue({ z: 1, a: [true, null, 'x'], m: {} }), 'map[a:[true <nil> x] m:map[] z:1]');
    assert.equal(formatGoValue(null), '<nil>');
    assert.equal(formatGoValue(1e21), '1e+21');
    assert.equal(formatGoValue(2.5), '2.5');
  });
});
