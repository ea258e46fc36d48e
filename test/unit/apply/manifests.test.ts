/**
 * Manifest decoding (pure): multi-document YAML, JSON, `kind: List`, empty documents, and the
 * problems that refuse the whole input (syntax errors with line and column from js-yaml's mark,
 * missing fields by document index). Reading sources: files, directories with -R, stdin.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, YAMLException } from 'js-yaml';
import { decodeManifests, describeOrigin, ManifestError } from '../../../src/apply/manifests.js';
import { decodeSources, readSources } from '../../../src/apply/sources.js';
import { UsageError } from '../../../src/core/errors.js';

const cm = (name: string, extra = '') => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${extra}`;

test('multi-document YAML: objects in order, empty and null documents skipped but counted', () => {
  const text = `---\n${cm('a')}---\n---\n# only a comment\n---\nnull\n---\n${cm('b', 'data:\n  k: v\n')}`;
  const { manifests, problems } = decodeManifests(text, 'm.yaml');
  assert.deepEqual(problems, []);
  assert.deepEqual(manifests.map((m) => [m.object.metadata?.name, m.document]), [['a', 1], ['b', 5]]);
  assert.deepEqual(manifests[1]!.object.data, { k: 'v' });
});

test('JSON: one object, or a List whose items are flattened', () => {
  const one = decodeManifests(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'j' } }), 'x.json');
  assert.deepEqual(one.manifests.map((m) => m.object.metadata?.name), ['j']);
  const list = decodeManifests(
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'i1' } }, null, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'i2' } }] }),
    'l.json',
  );
  assert.deepEqual(list.problems, []);
  assert.deepEqual(list.manifests.map((m) => [m.object.kind, m.object.metadata?.name, m.document, m.item]), [['ConfigMap', 'i1', 1, 1], ['Secret', 'i2', 1, 3]]);
});

test('a typed list (ConfigMapList) gives its items apiVersion and kind', () => {
  const { manifests } = decodeManifests('apiVersion: v1\nkind: ConfigMapList\nitems:\n- metadata:\n    name: t1\n', 'l.yaml');
  assert.equal(manifests[0]!.object.kind, 'ConfigMap');
  assert.equal(manifests[0]!.object.apiVersion, 'v1');
});

test('a syntax error names the file, line and column of js-yaml\'s mark', () => {
  const text = `${cm('a')}---\n${cm('b')}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n data: x: y\n`;
  const { manifests, problems } = decodeManifests(text, 'bad.yaml');
  assert.equal(manifests.length, 0, 'nothing from a source with a syntax error');
  assert.equal(problems.length, 1);
  // The reference: js-yaml itself, on the same text.
  let mark: { line: number; column: number } | undefined;
  try {
    load(text.split('---\n')[2]!);
  } catch (e) {
    mark = (e as YAMLException).mark;
  }
  assert.ok(mark);
  const line = mark.line + 1 + 10; // the third document starts on line 11
  assert.match(problems[0]!, new RegExp(`^error parsing "bad\\.yaml" \\(line ${line}, column ${mark.column + 1}\\): `));
});

test('a JSON syntax error is located too', () => {
  const { problems } = decodeManifests('{"apiVersion": "v1",\n "kind": }', 'bad.json');
  assert.match(problems[0]!, /^error parsing "bad\.json" \(line 2, column \d+\): /);
});

test('missing apiVersion, kind or metadata.name: named by file and document index, every one', () => {
  const text = `${cm('ok')}---\nkind: ConfigMap\nmetadata:\n  name: x\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: g-\n---\n- a\n- b\n---\n${cm('a/b')}`;
  const { manifests, problems } = decodeManifests(text, 'm.yaml');
  assert.equal(manifests.length, 1);
  assert.deepEqual(problems, [
    'error validating "m.yaml" document 2: apiVersion not set',
    'error validating "m.yaml" document 3: metadata.name not set (generateName cannot be applied)',
    'error validating "m.yaml" document 4: not a Kubernetes object (a list)',
    'error validating "m.yaml" document 5: invalid metadata.name "a/b": may not contain \'/\'',
  ]);
  assert.equal(describeOrigin({ source: 'STDIN', document: 2, item: 4 }), '"STDIN" document 2, item 4');
});

test('readSources: files, directories (-R), extensions, lexical order, stdin once, URLs refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-sources-'));
  try {
    mkdirSync(join(dir, 'd', 'sub'), { recursive: true });
    writeFileSync(join(dir, 'd', 'b.yaml'), cm('b'));
    writeFileSync(join(dir, 'd', 'a.yml'), cm('a'));
    writeFileSync(join(dir, 'd', 'c.json'), JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }));
    writeFileSync(join(dir, 'd', 'notes.txt'), 'not a manifest');
    writeFileSync(join(dir, 'd', 'sub', 'z.yaml'), cm('z'));
    writeFileSync(join(dir, 'single.txt'), cm('s'));
    const names = async (paths: string[], recursive = false) =>
      decodeSources(await readSources(paths, { cwd: dir, recursive, stdin: async () => cm('in') })).map((m) => `${m.source}:${m.object.metadata?.name}`);
    assert.deepEqual(await names(['d']), ['d/a.yml:a', 'd/b.yaml:b', 'd/c.json:c']);
    assert.deepEqual(await names(['d'], true), ['d/a.yml:a', 'd/b.yaml:b', 'd/c.json:c', 'd/sub/z.yaml:z']);
    assert.deepEqual(await names(['single.txt', '-', 'd/sub']), ['single.txt:s', 'STDIN:in', 'd/sub/z.yaml:z']);
    await assert.rejects(readSources(['-', '-'], { cwd: dir, stdin: async () => '' }), UsageError);
    await assert.rejects(readSources(['https://example.com/m.yaml'], { cwd: dir }), /URLs are not supported/);
    await assert.rejects(readSources(['nope.yaml'], { cwd: dir }), (e) => e instanceof ManifestError && e.message === 'the path "nope.yaml" does not exist');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('jsonErrorOffset agrees with JSON.parse (the reference) on what is JSON, and with its offsets where V8 gives one', async () => {
  const { jsonErrorOffset } = await import('../../../src/apply/json-locate.js');
  const samples = ['{"a": 1}', '{"a": 1,\n "k": }', '[1, 2,]', '{"a": tru}', '{"a": "x\\q"}', '{"a": "\\u12"}', ' [ {"b": [null, false, -0.5e+3]} ] ', '{"a" 1}', '01', '"\u0001"', '{"a":1}x', '', '{'];
  // Random mutations of a valid document: every one either parses or gets an offset.
  const base = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { a: 'b' } }, data: { k: 'v\n"q"', n: '1' }, list: [1, 2.5, true, null] });
  let seed = 7;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  for (let k = 0; k < 400; k++) {
    const p = rnd(base.length);
    samples.push(base.slice(0, p) + '{}[],:"x1 '[rnd(11)] + base.slice(p + rnd(2)));
  }
  for (const s of samples) {
    let ok = true;
    let v8: number | undefined;
    try {
      JSON.parse(s);
    } catch (e) {
      ok = false;
      const m = /at position (\d+)/.exec((e as Error).message);
      if (m && !/after JSON/.test((e as Error).message)) v8 = Number(m[1]);
    }
    const off = jsonErrorOffset(s);
    assert.equal(off === -1, ok, `${JSON.stringify(s)}: ${off}`);
    if (v8 !== undefined) assert.equal(off, v8, JSON.stringify(s));
  }
});

test('a JSON stream (first non-space char `{`, as kubectl): values in a row; a syntax error at its line and column, per value', () => {
  const v = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
  const ok = decodeManifests(`  ${v('a')}\n${v('b')} ${v('c')}\n\n`, 'm');
  assert.deepEqual(ok.problems, []);
  assert.deepEqual(ok.manifests.map((m) => [m.object.metadata?.name, m.document]), [['a', 1], ['b', 2], ['c', 3]]);
  const bad = '{"apiVersion": "v1", "kind": "ConfigMap",}';
  // The reference: V8's own offset for the bad value alone.
  let at = -1;
  try {
    JSON.parse(bad);
  } catch (e) {
    at = Number(/at position (\d+)/.exec((e as Error).message)![1]);
  }
  for (let k = 0; k < 3; k++) {
    const values = [v('a'), v('b'), v('c')];
    values[k] = bad;
    const { manifests, problems } = decodeManifests(values.join('\n'), 'm');
    assert.equal(manifests.length, 0);
    assert.deepEqual(problems, [`error parsing "m" (line ${k + 1}, column ${at + 1}): Expected double-quoted property name`]);
  }
  // YAML's flow style at the top level is not JSON: an error, as kubectl's JSON decoder gives.
  assert.match(decodeManifests('{apiVersion: v1, kind: ConfigMap, metadata: {name: x}}', 'f.yaml').problems[0]!, /^error parsing "f\.yaml" \(line 1, column 2\): /);
  // A document that starts with `[` (or anything else) is YAML.
  assert.deepEqual(decodeManifests(`[${v('l')}]`, 'l.yaml').problems, ['error validating "l.yaml" document 1: not a Kubernetes object (a list)']);
});

test('duplicate keys in JSON are refused where they are, as js-yaml (the reference) refuses them', () => {
  const dup = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","name":"b"}}';
  assert.deepEqual(decodeManifests(`${dup}\n`, 'm').problems, ['error parsing "m" (line 1, column 62): duplicated mapping key "name" (document 1)']);
  const second = decodeManifests(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}\n{"apiVersion":"v1","kind":"ConfigMap",\n "metadata":{"name":"b"},"data":{"k":"1","\\u006b":"2"}}`, 'm');
  assert.deepEqual(second.problems, ['error parsing "m" (line 3, column 42): duplicated mapping key "k" (document 2)']);
  // Random objects with few key names: kdyn refuses exactly those js-yaml refuses.
  let seed = 11;
  const rnd = (n: number) => ((seed = (seed * 48271) % 2147483647), seed % n);
  const scalars = ['"v"', '"a\\":"', '1', 'null', '[]', '["a", {"a": 1}]'];
  const obj = (depth: number): string => {
    const keys = Array.from({ length: rnd(4) }, () => `"${'abc'[rnd(3)]}":${depth > 0 && rnd(2) ? obj(depth - 1) : scalars[rnd(scalars.length)]}`);
    return `{${keys.join(rnd(2) ? ',\n' : ',')}}`;
  };
  const seen = { dup: 0, clean: 0 };
  for (let k = 0; k < 300; k++) {
    const text = obj(3);
    let mark: { line: number } | undefined;
    try {
      load(text);
    } catch (e) {
      mark = (e as YAMLException).mark;
    }
    const { problems } = decodeManifests(text, 'r');
    const mine = problems.find((p) => p.includes('duplicated mapping key'));
    assert.equal(mine !== undefined, mark !== undefined, `${text}\n${problems.join('\n')}`);
    // js-yaml marks the end of the repeated key's value; kdyn the key itself: never after it.
    if (mark) assert.ok(Number(/\(line (\d+),/.exec(mine!)![1]) <= mark.line + 1, `${text}\n${mine}`);
    seen[mark ? 'dup' : 'clean']++;
  }
  assert.ok(seen.dup > 20 && seen.clean > 20, JSON.stringify(seen));
});

test('apiVersion, kind or metadata.name of another type than string: "isn\'t string type" (kubectl\'s wording), not "not set"', () => {
  const { problems } = decodeManifests('apiVersion: 1\nkind: [ConfigMap]\nmetadata:\n  name: {a: 1}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 7\n---\napiVersion: ""\nkind: ~\nmetadata:\n  name: ""\n', 'm');
  assert.deepEqual(problems, [
    'error validating "m" document 1: apiVersion isn\'t string type, kind isn\'t string type, metadata.name isn\'t string type',
    'error validating "m" document 2: metadata.name isn\'t string type',
    'error validating "m" document 3: apiVersion not set, kind not set, metadata.name not set',
  ]);
});

test('no objects: a directory without manifest files is named', async () => {
  const { noObjectsError } = await import('../../../src/apply/sources.js');
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-sources-'));
  try {
    mkdirSync(join(dir, 'd', 'sub'), { recursive: true });
    writeFileSync(join(dir, 'd', 'README.txt'), 'hi');
    writeFileSync(join(dir, 'd', 'sub', 'x.yaml'), cm('x'));
    writeFileSync(join(dir, 'empty.yaml'), '# nothing\n');
    const sources = await readSources(['d', 'empty.yaml'], { cwd: dir });
    assert.deepEqual(decodeSources(sources), []);
    assert.equal(noObjectsError(sources).message, 'no objects passed to apply: no .yaml .yml .json files in "d"');
    assert.equal(noObjectsError(await readSources(['empty.yaml'], { cwd: dir })).message, 'no objects passed to apply');
    // With -R the file in d/sub is found.
    assert.equal(decodeSources(await readSources(['d'], { cwd: dir, recursive: true })).length, 1);
    await assert.rejects(readSources(['d/README.txt/x.yaml'], { cwd: dir }), /does not exist/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
