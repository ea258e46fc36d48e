import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findCondition, hasCondition, statusConditions } from '../../../src/wait/conditions.js';

const obj = {
  apiVersion: 'v1',
  kind: 'Thing',
  metadata: { name: 't' },
  status: { conditions: [null, 'x', { type: 'Ready', status: 'True' }, { type: 'available', status: 'false', reason: 'R' }] },
};

test('statusConditions skips entries that are not objects', () => {
  assert.equal(statusConditions(obj).length, 2);
  assert.deepEqual(statusConditions({ apiVersion: 'v1', kind: 'X', status: { conditions: 'no' } }), []);
  assert.deepEqual(statusConditions({ apiVersion: 'v1', kind: 'X' }), []);
});

test('exact (kubectl rollout status) and fold (kubectl wait, strings.EqualFold)', () => {
  const cases: Array<[string, string, 'exact' | 'fold', boolean]> = [
    ['Ready', 'True', 'exact', true],
    ['ready', 'True', 'exact', false],
    ['Ready', 'true', 'exact', false],
    ['ready', 'true', 'fold', true],
    ['Available', 'False', 'exact', false],
    ['Available', 'False', 'fold', true],
    ['Missing', 'True', 'fold', false],
  ];
  for (const [type, status, match, want] of cases) assert.equal(hasCondition(obj, type, status, match), want, `${type}=${status} ${match}`);
  assert.equal(findCondition(obj, 'AVAILABLE', 'fold')?.reason, 'R');
  assert.equal(findCondition(obj, 'AVAILABLE'), undefined);
});
