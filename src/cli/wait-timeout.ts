/**
 * `--timeout` with `--for` (`kdyn watch --for`), read as kubectl wait reads it. The waiting itself is
 * library code: src/wait/wait-for.ts.
 */
import { parseDuration } from './duration.js';

/** kubectl wait's default --timeout. */
export const DEFAULT_WAIT_TIMEOUT_MS = 30_000;
/** What kubectl wait makes of a negative --timeout: a week. */
export const NEGATIVE_WAIT_TIMEOUT_MS = 7 * 24 * 3600_000;

/** --timeout with --for, as kubectl wait: unset 30 s, `0` checks once (returns 0), negative a week. */
export function waitTimeoutMs(value: string | undefined): number {
  if (value === undefined) return DEFAULT_WAIT_TIMEOUT_MS;
  const negative = value.trim().startsWith('-');
  const ms = parseDuration(negative ? value.trim().slice(1) : value, 'timeout');
  return negative && ms > 0 ? NEGATIVE_WAIT_TIMEOUT_MS : ms;
}
