import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSorter, goStringLess, parseQuantity } from '../../../src/printers/sort.js';
import { loadExchange } from '../../support/exchanges.js';
import type { Table } from '../../../src/core/table.js';
import type { Unstructured } from '../../../src/core/unstructured.js';

test('goStringLess is Go\'s bytewise string order (kubectl v1.32), not natural order', () => {
  const names = ['cm10', 'cm2', 'cm1', 'cm01', 'a', 'cm', '10', '9', '\u{1F600}', '\uff01'];
  assert.deepEqual([...names].sort((a, b) => (goStringLess(a, b) ? -1 : goStringLess(b, a) ? 1 : 0)), ['10', '9', 'a', 'cm', 'cm01', 'cm1', 'cm10', 'cm2', '\uff01', '\u{1F600}']);
});

test('parseQuantity', () => {
  assert.equal(parseQuantity('100m'), 0.1);
  assert.equal(parseQuantity('1Gi'), 2 ** 30);
  assert.equal(parseQuantity('2'), 2);
  assert.equal(parseQuantity('cm1'), undefined);
});

const obj = (name: string, spec: Record<string, unknown>): Unstructured => ({ apiVersion: 'v1', kind: 'X', metadata: { name }, spec });

test('sorts objects by number, quantity, and puts objects without the field first', () => {
  const s = createSorter('.spec.n');
  const objs = [obj('a', { n: 10 }), obj('b', { n: 9 }), obj('c', {}), obj('d', { n: 100 })];
  s.sortObjects(objs);
  assert.deepEqual(objs.map((o) => o.metadata!.name), ['c', 'b', 'a', 'd']);
  const q = createSorter('{.spec.cpu}');
  const qs = [obj('a', { cpu: '1' }), obj('b', { cpu: '500m' }), obj('c', { cpu: '2' })];
  q.sortObjects(qs);
  assert.deepEqual(qs.map((o) => o.metadata!.name), ['b', 'a', 'c']);
});

test('errors as kubectl when no object has the field', () => {
  assert.throws(() => createSorter('.spec.nope').sortObjects([obj('a', {})]), /couldn't find any field with path "\{\.spec\.nope\}" in the list of objects/);
});

test('sorts Table rows by their included objects (recording 18)', () => {
  const t = loadExchange(18).json as Table;
  createSorter('.metadata.labels.app').sortTable(t);
  assert.deepEqual(t.rows.map((r) => r.cells[0]), ['ct2', 'ct1', 'ct3']);
  createSorter('.spec.replicas').sortTable(t);
  assert.deepEqual(t.rows.map((r) => r.cells[0]), ['ct1', 'ct2', 'ct3']);
});
