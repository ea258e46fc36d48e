/**
 * printers/index.ts: -o parsing; printers/objects.ts: the streamed List wrapper for json/yaml being byte-identical to
 * formatting the whole List at once (kubectl's output), page boundaries anywhere.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseOutputFormat } from '../../../src/cli/print-flags.js';
import { createObjectPrinter, listWrapper } from '../../../src/printers/objects.js';
import { toJSON } from '../../../src/printers/json.js';
import { UsageError } from '../../../src/core/errors.js';
import type { Unstructured } from '../../../src/core/unstructured.js';

const gk = { group: '', kind: 'ConfigMap' };
const items = (n: number): Unstructured[] =>
  Array.from({ length: n }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: 'ns', labels: { 'a/b': 'x' } },
    data: { text: 'line1\nline2 <&>', empty: '', n: String(i) },
  }));

test('parseOutputFormat', () => {
  assert.deepEqual(parseOutputFormat(undefined), { type: 'table', wide: false });
  assert.deepEqual(parseOutputFormat('wide'), { type: 'table', wide: true });
  assert.deepEqual(parseOutputFormat('jsonl'), { type: 'jsonl' });
  assert.deepEqual(parseOutputFormat('jsonpath={.a}={b}'), { type: 'jsonpath', template: '{.a}={b}' });
  assert.deepEqual(parseOutputFormat('jsonpath-file=x.txt'), { type: 'jsonpath', file: 'x.txt' });
  assert.deepEqual(parseOutputFormat('custom-columns=A:.a'), { type: 'custom-columns', spec: 'A:.a' });
  assert.deepEqual(parseOutputFormat('custom-columns-file=c'), { type: 'custom-columns', file: 'c' });
  assert.throws(() => parseOutputFormat('xml'), (e: unknown) => e instanceof UsageError && /output format "xml"/.test((e as Error).message));
  assert.throws(() => parseOutputFormat('jsonpath='), UsageError);
});

for (const fmt of ['json', 'yaml'] as const) {
  test(`-o ${fmt}: streamed pages equal the whole List formatted at once`, async () => {
    const all = items(7);
    const whole = await createObjectPrinter({ type: fmt });
    const expected = whole.page(all, gk) + whole.end();
    for (const split of [[7], [1, 6], [3, 0, 4], [1, 1, 1, 1, 1, 1, 1]]) {
      const p = await createObjectPrinter({ type: fmt });
      let out = '';
      let at = 0;
      for (const n of split) {
        out += p.page(all.slice(at, at + n), gk);
        at += n;
      }
      out += p.end();
      assert.equal(out, expected, `pages ${split.join('+')}`);
    }
    if (fmt === 'json') assert.equal(expected, toJSON(listWrapper(all)));
  });

  test(`-o ${fmt}: empty List, nothing with --ignore-not-found, the object for one named object`, async () => {
    const empty = await createObjectPrinter({ type: fmt });
    const e = empty.page([], gk) + empty.end();
    assert.match(e, fmt === 'json' ? /"items": \[\],/ : /^items: \[\]$/m);
    const ignored = await createObjectPrinter({ type: fmt }, { ignoreNotFound: true });
    assert.equal(ignored.page([], gk) + ignored.end(), '');
    const one = await createObjectPrinter({ type: fmt }, { singleItemImplied: true });
    const text = one.page(items(1), gk) + one.end();
    assert.doesNotMatch(text, /List/);
    assert.match(text, /cm-0/);
  });
}

test('-o name and -o jsonl write each page at once, keep nothing', async () => {
  const name = await createObjectPrinter({ type: 'name' });
  assert.equal(name.page(items(2), gk), 'configmap/cm-0\nconfigmap/cm-1\n');
  assert.equal(name.page([{ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'ct1' } }], gk), 'crontab.stable.example.com/ct1\n');
  assert.equal(name.end(), '');
  const jsonl = await createObjectPrinter({ type: 'jsonl' });
  const lines = jsonl.page(items(3), gk).split('\n');
  assert.equal(lines.length, 4);
  assert.deepEqual(JSON.parse(lines[2]!), items(3)[2]);
});

test('jsonpath runs once over the List; custom-columns aligns all pages', async () => {
  const jp = await createObjectPrinter({ type: 'jsonpath', template: '{.kind}:{.items[*].metadata.name}' });
  assert.equal(jp.page(items(2), gk), '');
  assert.equal(jp.page(items(3).slice(2), gk), '');
  assert.equal(jp.end(), 'List:cm-0 cm-1 cm-2');
  const cc = await createObjectPrinter({ type: 'custom-columns', spec: 'NAME:.metadata.name,N:.data.n' });
  cc.page(items(1), gk);
  cc.page([{ metadata: { name: 'a-much-longer-name' }, data: { n: '9' } }], gk);
  assert.equal(cc.end(), 'NAME                 N\ncm-0                 0\na-much-longer-name   9\n');
});

test('-o custom-columns: a row that fails still prints the header and the rows before it, then the error', async () => {
  const p = await createObjectPrinter({ type: 'custom-columns', spec: 'A:.spec.list[1]' });
  const ok = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, spec: { list: ['x', 'y'] } };
  const bad = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' }, spec: { list: ['x'] } };
  let out = p.page([ok], gk);
  out += p.page([bad, ok], gk);
  out += p.page([ok], gk); // nothing more after the failure
  assert.equal(out, 'A\ny\n');
  assert.throws(() => p.end(), /array index out of bounds: index 1, length 1/);
});
