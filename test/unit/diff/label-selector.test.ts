/** `-l` selectors as apimachinery's labels.Parse reads them (src/core/label-selector.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLabelSelector } from '../../../src/core/label-selector.js';
import { UsageError } from '../../../src/core/errors.js';

test('each requirement form, and all must hold', () => {
  const labels = { app: 'web', tier: 'front', 'example.com/x': 'y' };
  const cases: Array<[string, boolean]> = [
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app!=web', false],
    ['app!=api', true],
    ['missing!=x', true],
    ['app in (api, web)', true],
    ['app notin (api,web)', false],
    ['missing notin (a)', true],
    ['tier', true],
    ['!tier', false],
    ['!missing', true],
    ['example.com/x=y', true],
    ['app=web,tier=back', false],
    ['app=web,tier in (front,back),!missing', true],
  ];
  for (const [s, want] of cases) assert.equal(parseLabelSelector(s)(labels), want, s);
  assert.equal(parseLabelSelector('app=web')(undefined), false);
  assert.equal(parseLabelSelector('app!=web')(undefined), true);
});

test('a selector that cannot be read: a usage error naming it', () => {
  assert.throws(() => parseLabelSelector('a b'), (e: unknown) => e instanceof UsageError && e.message === 'the provided selector "a b" is not valid: unable to parse requirement: "a b"');
  assert.throws(() => parseLabelSelector('app in (a b)'), UsageError);
});
