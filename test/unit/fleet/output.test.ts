// The fleet output envelopes (src/printers/envelopes.ts) and the merge of tables over contexts
// (src/printers/context-tables.ts mergeRows). Table-driven, pure.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Table } from '../../../src/core/table.js';
import { contextErrorLine, contextList, jsonlEvent, jsonlRecord, prefixLines, withLeadingColumns } from '../../../src/printers/envelopes.js';
import { mergeRows } from '../../../src/printers/context-tables.js';
import { printTable } from '../../../src/printers/table.js';

const TABLE: Table = {
  kind: 'Table',
  apiVersion: 'meta.k8s.io/v1',
  metadata: {},
  columnDefinitions: [
    { name: 'Name', type: 'string', format: 'name', priority: 0 },
    { name: 'Data', type: 'integer', format: '', priority: 0 },
  ],
  rows: [
    { cells: ['a', 1], object: { metadata: { name: 'a', namespace: 'demo' } } },
    { cells: ['b', 2], object: { metadata: { name: 'b' } } },
  ],
};

describe('withLeadingColumns', () => {
  test('CONTEXT then NAMESPACE, before the server\'s columns; the input untouched', () => {
    const before = JSON.stringify(TABLE);
    const t = withLeadingColumns(TABLE, { context: 'east', withNamespace: true });
    assert.equal(printTable(t), 'CONTEXT   NAMESPACE   NAME   DATA\neast      demo        a      1\neast                  b      2\n');
    assert.equal(JSON.stringify(TABLE), before);
  });
  test('the name column keeps its kind prefix', () => {
    assert.match(printTable(withLeadingColumns(TABLE, { context: 'east' }), { kindPrefix: 'configmap' }), /\neast +configmap\/a +1\n/);
  });
  test('a Table without column definitions (a later watch event) gets the cells only', () => {
    const t = withLeadingColumns({ ...TABLE, columnDefinitions: [] }, { context: 'east' });
    assert.deepEqual(t.columnDefinitions, []);
    assert.deepEqual(t.rows[0]!.cells, ['east', 'a', 1]);
  });
  test('nothing asked: the same Table', () => assert.equal(withLeadingColumns(TABLE, {}), TABLE));
});

describe('machine formats', () => {
  test('-o name lines get CONTEXT/ (a context with / stays readable: the last two fields are kind and name)', () => {
    assert.equal(prefixLines('configmap/a\ndeployment.apps/b\n', 'arn:x/prod'), 'arn:x/prod/configmap/a\narn:x/prod/deployment.apps/b\n');
    assert.equal(prefixLines('', 'east'), '');
  });
  test('jsonl records: context first, the object as is', () => {
    assert.equal(jsonlRecord('east', { kind: 'ConfigMap', metadata: { name: 'a' } }), '{"context":"east","object":{"kind":"ConfigMap","metadata":{"name":"a"}}}\n');
    assert.equal(jsonlEvent('east', 'ADDED', { kind: 'X' }), '{"context":"east","type":"ADDED","object":{"kind":"X"}}\n');
  });
  test('a List per context', () => {
    assert.deepEqual(contextList('east', []), { apiVersion: 'v1', context: 'east', items: [], kind: 'List', metadata: { resourceVersion: '' } });
  });
  test('error lines: one, naming the context, without a second "error:"', () => {
    assert.equal(contextErrorLine('east', 'error: boom\nmore\n'), 'error: context "east": boom\n');
    assert.equal(contextErrorLine('west', 'Error from server (Forbidden): no\n'), 'error: context "west": Error from server (Forbidden): no\n');
  });
});

describe('mergeRows', () => {
  const h = ['CONTEXT', 'NAME'];
  test('a repeated header is dropped, a different one kept', () => {
    assert.deepEqual(mergeRows([[h, ['a', 'x']], [h, ['b', 'y']], [['CONTEXT', 'NAME', 'NEW'], ['c', 'z', '1']]], false), [h, ['a', 'x'], ['b', 'y'], ['CONTEXT', 'NAME', 'NEW'], ['c', 'z', '1']]);
  });
  test('--no-headers: the rows; empty contexts skipped', () => {
    assert.deepEqual(mergeRows([[['a', 'x']], [], [['b', 'y']]], true), [['a', 'x'], ['b', 'y']]);
  });
});
