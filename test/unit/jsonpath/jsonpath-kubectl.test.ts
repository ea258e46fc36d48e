// JSONPath output compared byte for byte with kubectl v1.32 (`kubectl label --local -f FILE
// -o jsonpath=...`, which needs no server). Skipped when kubectl is not on PATH.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { compileJSONPath, JSONPathError } from '../../../src/jsonpath/index.js';
import { hasKubectl, KubectlOracle } from '../../support/kubectl-oracle.js';

const OBJECT = {
  apiVersion: 'example.com/v1',
  kind: 'Foo',
  metadata: { name: 'a', creationTimestamp: null, annotations: { 'kubernetes.io/hostname': 'h1' } },
  spec: {
    bools: [true, false, true, false],
    integers: [1, 2, 3, 4],
    floats: [1.5, 2.2, 3.3, 4.25],
    strings: ['one', 'two', 'three', 'four'],
    mixed: [true, 'one', 1, 1.1, null, { a: 1 }, [1, 2]],
    big: [1000000, 1e21, 0.00001, 1234567.5, 123456.5, -0.5, 1e-7],
    html: '<a href="x">&</a>\u2028',
    uni: 'héllo 日本',
    maps: [{ name: 'one', value: 1 }, { name: 'two', value: 2.02 }, { name: 'three', value: 3.03 }, { name: 'four', value: 4.04, z: 1 }],
    empty: [],
    emptyMap: {},
    nul: null,
    points: [{ id: 'i1', x: 4, y: -5 }, { id: 'i2', x: -2, y: -5, z: 1 }, { id: 'i3', x: 8, y: 3 }],
  },
};

// Templates whose output does not depend on Go's random map iteration order.
const TEMPLATES = [
  '{.spec.bools}', '{.spec.bools[-1]}', '{ .spec.bools[:4:2] }', '{.spec.integers[-2]}', '{.spec.floats}', '{.spec.floats[:4:2]}',
  '{.spec.strings}', '{.spec.mixed}', '{.spec.mixed[*]}', '{.spec.big}', '{.spec.big[*]}', '{.spec.html}', '{.spec}',
  '{.spec.uni} {.spec.html}', '{.spec.maps[::2]}', '{.spec.maps[1::2].name}', '{.spec.empty}', '{.spec.emptyMap}',
  '{.spec.nul}', '{.spec.nul.x}', '{.metadata.creationTimestamp}', '{.spec.empty[*]}',
  '{range .spec.maps[*]}{.name}={.value}{"\\n"}{end}', '{.spec.points[?(@.z)].id}', "{.spec.points[0]['id']}",
  '{.spec.points[?(@.x>0)].id}', '{.spec.points[?(@.x<=-2)].id}', '{.spec.points[?(@.x!=4)].id}', '{.spec.points[?(@.id=="i3")].x}',
  "{.spec.points[?(@.id=='i3')].x}", '{.spec.maps[?(@.value==1)].name}', '{.spec.maps[?(@.value>2)].name}', '{..id}', '{...id}', '{....id}',
  '{.metadata.annotations.kubernetes\\.io/hostname}', "{.spec.points[*]['id','x']}", '{.spec.points[0,2].id}', '{.spec.nope}',
  'before-{.hello}after', '{hello}', '{.metadata[0]}', '{.spec.maps[?(@.name<>1)]}', '{range .spec.maps[*]}{@}{end}{end}',
  '{range .spec.empty[*]}{.x}{end}|{.kind}', '{range .spec.empty[*]}{range .y[*]}{.z}{end}{end}|',
  '{range .spec.maps[*]}{.name}{range .spec.points[*]}x{end}+{end}', '{range .spec.maps[*]}[{.name}]',
  '{.spec.integers[5]}', '{.spec.integers[-5]}', '{.spec.integers[5:5]}', '{.spec.integers[3:1]}', '{.spec.integers[0:4:0]}',
  '{.spec.strings[0][0]}', '{.kind.*}', '{.spec.mixed[?(@==1)]}', '{.spec.strings[?(@>"p")]}', '{.spec.bools[?(@==true)]}',
  '{.spec.bools[?(@<true)]}', '{@.kind}', '{"{"}', '{"a\\tb\\u00e9\\x41"}', '{"\\q"}', '{.spec.points[?( @.x == 4 )].id}',
  '{range .spec.points[*]}{.id}', '{.spec.points[*].id} {end}', '{.spec.nul[0]}', '{.spec.maps[?(@.nope==1)].name}',
  '{.spec.maps[?(@.value==@.value)].name}', '{.spec.integers[?(@==1.0)]}', '{.spec.integers[?(@==-1)]}', '{1}', '{true}',
  '{}', 'plain text', '{.spec.points[?(!@.z)].id}', '{.spec.points[]}', '{.spec.points[-]}', '{.spec.points[1.5]}',
  '{.items[', '{.a', '{#}', '{.a[?(@.b]}', '{.a[1,2}', '{"abc}', '{.spec.floats[?(@>2.0)]}', '{.spec.integers[?(@ == 2)]}',
];

describe('JSONPath against kubectl', { skip: hasKubectl() ? false : 'kubectl not on PATH' }, () => {
  let oracle: KubectlOracle;
  let seen: unknown;
  before(() => {
    oracle = new KubectlOracle();
    seen = oracle.seen(OBJECT);
  });
  after(() => oracle.close());

  for (const template of TEMPLATES) {
    test(template, () => {
      const r = oracle.local(OBJECT, ['-o', `jsonpath=${template}`]);
      let got: string;
      try {
        got = compileJSONPath(template).execute(seen);
      } catch (e) {
        assert.ok(e instanceof JSONPathError);
        assert.notEqual(r.status, 0, `kubectl succeeded with ${JSON.stringify(r.stdout)}`);
        // kubectl adds a multi-line dump of the object after an execution error; compare the first line.
        const first = r.stderr.split('\n')[0]!.replace(/\. Printing more information for debugging the template:$/, '');
        assert.equal(`error: ${e.message}`, first);
        return;
      }
      assert.equal(r.status, 0, r.stderr);
      assert.equal(got, r.stdout);
    });
  }
});
