/** `--for` parsing and evaluation (table-driven; the end-to-end runs are in test/e2e/watch-for.test.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError } from '../../../src/core/errors.js';
import { allSatisfy, allSatisfyAll, metLines, observed, parseWaitFor, parseWaitFors, satisfies, unmetReport, type WaitSubject } from '../../../src/wait/wait-for.js';

test('parseWaitFor: the forms kubectl wait accepts', () => {
  const cases: Array<[string, unknown]> = [
    ['delete', { kind: 'delete' }],
    ['Delete', { kind: 'delete' }],
    ['create', { kind: 'create' }],
    ['condition=Ready', { kind: 'condition', type: 'Ready', status: 'True' }],
    ['condition=Ready=False', { kind: 'condition', type: 'Ready', status: 'False' }],
    ['condition=example.com/Synced=Unknown', { kind: 'condition', type: 'example.com/Synced', status: 'Unknown' }],
    ['jsonpath={.status.phase}=Running', { kind: 'jsonpath', expr: '{.status.phase}', value: 'Running' }],
    ["jsonpath={.data['a=b']}=x=y", { kind: 'jsonpath', expr: "{.data['a=b']}", value: 'x=y' }],
    ['jsonpath={.status.readyReplicas}', { kind: 'jsonpath', expr: '{.status.readyReplicas}', value: undefined }],
    ['jsonpath=.spec.replicas=3', { kind: 'jsonpath', expr: '.spec.replicas', value: '3' }],
  ];
  for (const [spec, want] of cases) assert.deepEqual(parseWaitFor(spec), want, spec);
  for (const bad of ['ready', 'condition=', 'jsonpath=', 'jsonpath={.a', 'jsonpath={.a}x', 'jsonpath={.a[}=1']) {
    assert.throws(() => parseWaitFor(bad), UsageError, bad);
  }
});

const pod = (ready: string, phase = 'Running') => ({ metadata: { name: 'p' }, status: { phase, replicas: 3, conditions: [{ type: 'Ready', status: ready, reason: 'R' }] } });

test('satisfies / allSatisfy / observed', () => {
  const readyTrue = parseWaitFor('condition=ready');
  assert.equal(satisfies(readyTrue, pod('True')), true, 'type and status case-insensitive');
  assert.equal(satisfies(readyTrue, pod('False')), false);
  assert.equal(satisfies(parseWaitFor('condition=Ready=false'), pod('False')), true);
  assert.equal(satisfies(parseWaitFor('condition=Other'), pod('True')), false);
  const phase = parseWaitFor('jsonpath={.status.phase}=Running');
  assert.equal(satisfies(phase, pod('True')), true);
  assert.equal(satisfies(phase, pod('True', 'Pending')), false);
  assert.equal(satisfies(parseWaitFor('jsonpath={.status.replicas}=3'), pod('True')), true, 'numbers compare as kubectl prints them');
  assert.equal(satisfies(parseWaitFor('jsonpath={.status.conditions}=x'), pod('True')), false, 'a list is never equal to a value');
  assert.equal(satisfies(parseWaitFor('jsonpath={.status.nothing}'), pod('True')), false);
  assert.equal(satisfies(parseWaitFor('jsonpath={.status.phase}'), pod('True')), true);

  assert.equal(allSatisfy(phase, []), false, 'nothing to satisfy yet: keep waiting');
  assert.equal(allSatisfy(parseWaitFor('delete'), []), true);
  assert.equal(allSatisfy(parseWaitFor('delete'), [pod('True')]), false);
  assert.equal(allSatisfy(parseWaitFor('create'), [pod('False')]), true);
  assert.equal(allSatisfy(phase, [pod('True'), pod('True', 'Pending')]), false, 'every selected object');

  assert.equal(observed(phase, pod('True', 'Pending')), '{.status.phase}=Pending');
  assert.equal(observed(readyTrue, pod('False')), 'condition ready=False (R)');
  assert.equal(observed(parseWaitFor('condition=Other'), pod('False')), 'no condition Other');
});

test('parseWaitFors: several conditions, all must hold; delete combines with none', () => {
  const conds = parseWaitFors(['jsonpath={.data.a}=1', 'condition=Ready']);
  const obj = (a: string, ready: string) => ({ metadata: { name: 'x' }, data: { a }, status: { conditions: [{ type: 'Ready', status: ready }] } });
  assert.equal(allSatisfyAll(conds, [obj('1', 'True')]), true);
  assert.equal(allSatisfyAll(conds, [obj('1', 'False')]), false);
  assert.equal(allSatisfyAll(conds, [obj('2', 'True')]), false);
  assert.throws(() => parseWaitFors(['delete', 'create']), /--for delete cannot be combined/);
  assert.equal(parseWaitFors(['delete']).length, 1);
});

test('metLines / unmetReport: kubectl wait\'s words; only unmet objects named; one error with `error: `, several without', () => {
  const cm = (name: string, phase?: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: '7' }, data: phase ? { phase } : {} });
  const w3 = { apiVersion: 'group.example.com/v1', kind: 'Widget', metadata: { name: 'w3' } };
  const ready = [parseWaitFor('jsonpath={.data.phase}=Ready')];
  const cms: WaitSubject = { resource: 'configmaps', gk: { group: '', kind: 'ConfigMap' }, objects: [cm('a', 'Ready'), cm('b', 'Pending')], gone: [] };
  const widgets: WaitSubject = { resource: 'widgets', gk: { group: 'group.example.com', kind: 'Widget' }, name: 'w3', objects: [w3], gone: [] };
  const missing: WaitSubject = { resource: 'configmaps', gk: { group: '', kind: 'ConfigMap' }, name: 'later', objects: [], gone: [] };

  assert.equal(metLines(ready, [cms]), 'configmap/a condition met\n');
  assert.deepEqual(unmetReport(ready, [cms], false), { stdout: 'configmap/b: {.data.phase}=Pending\n', stderr: 'error: timed out waiting for the condition on configmaps/b\n' });
  assert.deepEqual(unmetReport(ready, [widgets, missing], false), {
    stdout: 'widget.group.example.com/w3: {.data.phase} not found\nconfigmaps/later: not found\n',
    stderr: 'timed out waiting for the condition on widgets/w3\ntimed out waiting for the condition on configmaps/later\n',
  });
  assert.equal(unmetReport(ready, [cms], true).stderr, 'error: condition not met for configmaps/b\n');

  const del = [parseWaitFor('delete')];
  const deleted: WaitSubject = { resource: 'configmaps', gk: { group: '', kind: 'ConfigMap' }, objects: [], gone: [cm('d1'), cm('d2')] };
  const neverThere: WaitSubject = { resource: 'configmaps', gk: { group: '', kind: 'ConfigMap' }, name: 'gone', objects: [], gone: [] };
  assert.equal(metLines(del, [deleted, neverThere]), 'configmap/d1 condition met\nconfigmap/d2 condition met\n', 'nothing for an object already gone');
  assert.deepEqual(unmetReport(del, [neverThere, { ...neverThere, name: 'stays', objects: [cm('stays')] }], false), {
    stdout: 'configmap/stays: still exists (resourceVersion 7)\n',
    stderr: 'error: timed out waiting for the condition on configmaps/stays\n',
  });
});
