// -o custom-columns over several contexts (src/printers/context-tables.ts): CONTEXT then the user's
// columns, one header, and a path failing on an object ending that context's rows. Pure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContextColumns, renderContextColumns } from '../../../src/printers/context-tables.js';
import { compileTemplate } from '../../../src/printers/template.js';

const cm = (name: string, data?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

async function columns(spec: string) {
  const t = await compileTemplate({ type: 'custom-columns', spec }, spec, true);
  assert.equal(t.type, 'columns');
  return t as Extract<typeof t, { type: 'columns' }>;
}

test('one table over every context: CONTEXT first, one header; --no-headers leaves it out', async () => {
  const t = await columns('NAME:.metadata.name,K:.data.k');
  const east = new ContextColumns(t);
  east.add([cm('a', { k: '1' }), cm('bb')]);
  const west = new ContextColumns(t);
  west.add([cm('c', { k: '3' })]);
  const parts = [east.rows('east'), west.rows('west')];
  assert.equal(renderContextColumns(t, parts, false), 'CONTEXT   NAME   K\neast      a      1\neast      bb     <none>\nwest      c      3\n');
  assert.equal(renderContextColumns(t, parts, true), 'east   a     1\neast   bb    <none>\nwest   c     3\n');
  assert.equal(renderContextColumns(t, [new ContextColumns(t).rows('east')], false), 'CONTEXT   NAME   K\n', 'the header alone, as a single-context get with no objects');
});

test('a path that fails on an object: the rows before it kept, the failure recorded, nothing added after', async () => {
  const t = await columns('NAME:.metadata.name,N:.spec.n[0]');
  const c = new ContextColumns(t);
  c.add([cm('a'), { ...cm('b'), spec: { n: 1 } }, cm('c')]);
  c.add([cm('d')]);
  assert.match(String((c.failure as Error).message), /int64 is not array or slice/);
  assert.deepEqual(c.rows('east'), [['east', 'a', '<none>']]);
});
