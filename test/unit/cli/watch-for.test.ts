/** `--for` parsing and evaluation (table-driven; the end-to-end runs are in test/e2e/watch-for.test.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError } from '../../../src/core/errors.js';
import { allSatisfy, observed, parseWaitFor, satisfies } from '../../../src/cli/watch-for.js';

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
