/** Go durations for --request-timeout and friends (src/cli/duration.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError } from '../../../src/core/errors.js';
import { parseDuration } from '../../../src/cli/duration.js';

test('parseDuration: Go units (µs as Go writes it, us too), sums, a bare integer in seconds', () => {
  const cases: Array<[string, number]> = [['3', 3000], ['500ms', 500], ['1m30s', 90_000], ['1.5h', 5_400_000], ['1500000us', 1500], ['1500000µs', 1500], ['2000000000ns', 2000]];
  for (const [value, want] of cases) assert.equal(parseDuration(value, 'request-timeout'), want, value);
  for (const bad of ['', 'soon', '5 s', '1x', '1µ']) {
    assert.throws(() => parseDuration(bad, 'request-timeout'), (e: Error) => e instanceof UsageError && e.message === `invalid argument "${bad}" for "--request-timeout" flag: time: invalid duration "${bad}"`, bad);
  }
});
