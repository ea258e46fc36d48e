/**
 * Backoff for the transport's bounded retries (idempotent requests only): exponential with
 * jitter, or the server's Retry-After (seconds or an HTTP date), capped.
 */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff step in ms (doubled each retry). */
  baseDelayMs: number;
  /** Upper bound for any single wait, Retry-After included. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 3, baseDelayMs: 250, maxDelayMs: 10_000 };

/** Seconds from a Retry-After header, or undefined when absent or unparsable. */
export function parseRetryAfter(value: string | undefined, nowMs: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const t = Date.parse(v);
  if (Number.isNaN(t)) return undefined;
  return Math.max(0, Math.ceil((t - nowMs) / 1000));
}

/** The wait before retry number `attempt + 1` (attempt counts from 0). */
export function retryDelay(attempt: number, retryAfter: string | undefined, policy: RetryPolicy, random: () => number = Math.random): number {
  const ra = parseRetryAfter(retryAfter);
  if (ra !== undefined) return Math.min(ra * 1000, policy.maxDelayMs);
  const exp = policy.baseDelayMs * 2 ** attempt;
  // full jitter in [exp/2, exp)
  return Math.min(Math.round(exp / 2 + (exp / 2) * random()), policy.maxDelayMs);
}
