/**
 * The server-Table printer on the recorded v1.32 Table responses (recordings 17-20), checked against
 * the text kubectl v1.32 prints for them (tableprinter.go: upper-cased headers, tabwriter minwidth 6
 * and padding 3, NAMESPACE from the row's PartialObjectMetadata).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { loadExchange } from '../../support/exchanges.js';
import type { Table } from '../../../src/core/table.js';
import { TableAccumulator, printTable, formatCell, formatLabels, labelHeader } from '../../../src/printers/table.js';

const table = (n: number): Table => structuredClone(loadExchange(n).json) as Table;

describe('recorded tables', () => {
  test('17: CRD printer columns (crontabs)', () => {
    assert.equal(
      printTable(table(17)),
      ['NAME   SPEC          REPLICAS   AGE', 'ct1    */1 * * * *   1          1s', 'ct2    */2 * * * *   2          1s', 'ct3    */3 * * * *   3          1s', ''].join('\n'),
    );
  });

  test('18: includeObject=Object prints the same cells', () => {
    assert.equal(printTable(table(18)), printTable(table(17)));
  });

  test('19: namespaces (cluster-scoped)', () => {
    assert.equal(
      printTable(table(19)),
      [
        'NAME              STATUS   AGE',
        'capture           Active   5s',
        'default           Active   99s',
        'demo              Active   66s',
        'kube-node-lease   Active   99s',
        'kube-public       Active   99s',
        'kube-system       Active   99s',
        '',
      ].join('\n'),
    );
  });

  test('20: -A adds NAMESPACE from each row\'s metadata', () => {
    const lines = printTable(table(20), { withNamespace: true }).split('\n');
    assert.equal(lines[0], 'NAMESPACE     NAME                                                   DATA   AGE');
    assert.equal(lines[1], 'demo          cm1                                                    1      66s');
    assert.equal(lines[21], 'kube-system   kube-apiserver-legacy-service-account-token-tracking   1      99s');
    assert.equal(lines.length, 23); // header + 21 rows + trailing ''
  });

  test('--no-headers keeps tabwriter\'s minimum cell width of 6', () => {
    const out = printTable(table(17), { noHeaders: true });
    // REPLICAS cells are one character: kubectl still pads them to 6 columns ("1" + 5 spaces).
    assert.equal(out.split('\n')[0], 'ct1   */1 * * * *   1     1s');
  });

  test('kind prefix (several kinds or --show-kind)', () => {
    const out = printTable(table(17), { kindPrefix: 'crontab.stable.example.com' });
    assert.equal(out.split('\n')[0], 'NAME                             SPEC          REPLICAS   AGE');
    assert.equal(out.split('\n')[1], 'crontab.stable.example.com/ct1   */1 * * * *   1          1s');
  });

  test('--show-labels and -L from the row metadata', () => {
    const out = printTable(table(17), { showLabels: true, labelColumns: ['app', 'example.com/tier'] });
    const lines = out.split('\n');
    assert.equal(lines[0], 'NAME   SPEC          REPLICAS   AGE   APP   TIER   LABELS');
    // A missing label is an empty cell (trailing padding as tabwriter leaves it).
    assert.equal(lines[1], 'ct1    */1 * * * *   1          1s    a1           app=a1');
  });
});

describe('cells and columns', () => {
  const base = (): Table => ({
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: {},
    columnDefinitions: [
      { name: 'Name', type: 'string', format: 'name', priority: 0 },
      { name: 'Note', type: 'string', format: '', priority: 0 },
      { name: 'Node', type: 'string', format: '', priority: 1 },
      { name: 'Count', type: 'integer', format: '', priority: 0 },
    ],
    rows: [
      { cells: ['a', 'first line\nsecond line', 'node-1', 3] },
      { cells: ['b', null, 'node-2', 2.5] },
      { cells: ['c', 'esc\x1b[31mred', null, true] },
    ],
  });

  test('priority != 0 columns only when wide', () => {
    assert.deepEqual(printTable(base()).split('\n')[0]!.split(/\s+/), ['NAME', 'NOTE', 'COUNT']);
    assert.deepEqual(printTable(base(), { wide: true }).split('\n')[0]!.split(/\s+/), ['NAME', 'NOTE', 'NODE', 'COUNT']);
  });

  test('strings cut at the first newline with ..., nil empty, terminal escapes defused', () => {
    assert.equal(
      printTable(base()),
      ['NAME   NOTE            COUNT', 'a      first line...   3', 'b                      2.5', 'c      esc^[[31mred    true', ''].join('\n'),
    );
  });

  test('an empty table prints nothing, not even headers', () => {
    assert.equal(printTable({ ...base(), rows: [] }), '');
  });

  test('pages of one list: one header, columns aligned over all pages', () => {
    const acc = new TableAccumulator();
    const t1 = base();
    const t2 = base();
    t2.rows = [{ cells: ['a-much-longer-name', 'x', 'n', 1] }];
    acc.add(t1);
    acc.add(t2);
    const lines = acc.render().split('\n');
    assert.equal(lines.filter((l) => l.startsWith('NAME')).length, 1);
    assert.equal(lines[1]!.indexOf('first'), lines[4]!.indexOf('x'));
  });

  test('a later page without column definitions reuses the last ones', () => {
    const acc = new TableAccumulator();
    acc.add(base());
    acc.add({ ...base(), columnDefinitions: [], rows: [{ cells: ['d', 'n', 'x', 0] }] });
    assert.match(acc.render(), /\nd +n +0\n$/);
  });

  test('formatCell, formatLabels, labelHeader', () => {
    assert.equal(formatCell(undefined), '');
    assert.equal(formatCell(1e21), '1e+21');
    assert.equal(formatCell(['a', 1]), '[a 1]');
    assert.equal(formatCell({ b: 1, a: 'x' }), 'map[a:x b:1]');
    assert.equal(formatCell('a\rb'), 'a...');
    assert.equal(formatLabels({ b: '2', a: '1' }), 'a=1,b=2');
    assert.equal(formatLabels({}), '<none>');
    assert.equal(labelHeader('app.kubernetes.io/name'), 'NAME');
  });
});
