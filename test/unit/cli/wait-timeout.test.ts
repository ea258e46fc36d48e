/** `--timeout` with `--for` (src/cli/wait-timeout.ts); --for itself is test/unit/wait/wait-for.test.ts. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError } from '../../../src/core/errors.js';
import { NEGATIVE_WAIT_TIMEOUT_MS, waitTimeoutMs } from '../../../src/cli/wait-timeout.js';

test('waitTimeoutMs: kubectl wait\'s --timeout (unset 30 s, 0 checks once, negative a week)', () => {
  const cases: Array<[string | undefined, number]> = [[undefined, 30_000], ['0', 0], ['0s', 0], ['2s', 2000], ['1m30s', 90_000], ['-1s', NEGATIVE_WAIT_TIMEOUT_MS], ['-5m', NEGATIVE_WAIT_TIMEOUT_MS]];
  for (const [value, want] of cases) assert.equal(waitTimeoutMs(value), want, String(value));
  assert.equal(NEGATIVE_WAIT_TIMEOUT_MS, 7 * 24 * 3600 * 1000);
  assert.throws(() => waitTimeoutMs('soon'), UsageError);
});
