/**
 * The watch printer on its own (kubectl's byte-for-byte comparison is in test/e2e/watch-for.test.ts,
 * skipped where kubectl is missing): remembered column widths across events, the EVENT column,
 * the initial list as one block, kind/name with several kinds, and the object formats.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Table } from '../../../src/core/table.js';
import { createWatchPrinter, type PrintedEvent } from '../../../src/printers/watch.js';

const columns = [
  { name: 'Name', type: 'string', format: 'name', priority: 0 },
  { name: 'Data', type: 'integer', format: '', priority: 0 },
  { name: 'Extra', type: 'string', format: '', priority: 1 },
];
const gk = { group: '', kind: 'ConfigMap' };
function row(name: string, data: number, first = false): Table {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: {},
    columnDefinitions: first ? columns : (null as unknown as Table['columnDefinitions']),
    rows: [{ cells: [name, data, 'x'], object: { metadata: { name, namespace: 'ns' } } }],
  };
}
const ev = (type: string, t: Table, kind = gk): PrintedEvent => ({ type, object: t, gk: kind });

test('table: the initial list as one block, later rows keep the widths above them, EVENT first', async () => {
  const p = await createWatchPrinter({ format: 'table', events: true });
  const first = p.printBlock([ev('ADDED', row('a', 1, true)), ev('ADDED', row('bb', 2, true))]);
  assert.equal(first, 'EVENT      NAME   DATA\nADDED      a      1\nADDED      bb     2\n');
  // A longer name widens its column from here on; a shorter one keeps the remembered width.
  assert.equal(p.print(ev('MODIFIED', row('a-much-longer-name', 10))), 'MODIFIED   a-much-longer-name   10\n');
  assert.equal(p.print(ev('DELETED', row('a', 1))), 'DELETED    a                    1\n');
});

test('table: wide, -A and no events (kubectl get -w)', async () => {
  const p = await createWatchPrinter({ format: 'wide', events: false, withNamespace: true });
  assert.equal(p.printBlock([ev('ADDED', row('a', 1, true))]), 'NAMESPACE   NAME   DATA   EXTRA\nns          a      1      x\n');
});

test('table: several kinds name rows kind/name and start a header per kind', async () => {
  const p = await createWatchPrinter({ format: 'table', events: true, withKind: true });
  const out = p.print(ev('ADDED', row('a', 1, true))) + p.print(ev('ADDED', row('s', 1, true), { group: 'apps', kind: 'Deployment' }));
  assert.equal(out, 'EVENT      NAME          DATA\nADDED      configmap/a   1\nEVENT      NAME                DATA\nADDED      deployment.apps/s   1\n');
});

test('object formats: jsonl always as events, json and yaml as kubectl prints them', async () => {
  const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', managedFields: [{ manager: 'm' }] }, data: { k: '<v>' } };
  const e = { type: 'ADDED', object: obj, gk };
  assert.equal((await createWatchPrinter({ format: 'jsonl', events: true })).print(e), '{"type":"ADDED","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"<v>"}}}\n');
  assert.equal((await createWatchPrinter({ format: 'name', events: true })).print(e), 'configmap/a\n');
  const jsonEvents = (await createWatchPrinter({ format: 'json', events: true })).print(e);
  assert.equal(jsonEvents, '{"type":"ADDED","object":{"apiVersion":"v1","data":{"k":"\\u003cv\\u003e"},"kind":"ConfigMap","metadata":{"managedFields":[{"manager":"m"}],"name":"a"}}}\n');
  const json = (await createWatchPrinter({ format: 'json', events: false })).print(e);
  assert.ok(json.startsWith('{\n    "apiVersion": "v1",') && !json.includes('managedFields'), json);
  const y = await createWatchPrinter({ format: 'yaml', events: false });
  assert.equal(y.print(e) + y.print(e), 'apiVersion: v1\ndata:\n  k: <v>\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\ndata:\n  k: <v>\nkind: ConfigMap\nmetadata:\n  name: a\n');
});
