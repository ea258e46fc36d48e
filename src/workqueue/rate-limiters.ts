/**
 * How long an item waits before it is queued again (client-go's `util/workqueue/default_rate_limiters.go`):
 * - `exponentialRateLimiter`: per item, `baseMs * 2^failures`, capped at `maxMs`; `forget(item)`
 *   (after a success) starts it over;
 * - `tokenBucketRateLimiter`: one bucket for the whole queue (`qps` tokens a second, `burst` at most):
 *   each retry takes a token, and waits for one when the bucket is empty (golang.org/x/time/rate's
 *   Reserve: the bucket may go below zero, the wait is what refills it);
 * - `maxOfRateLimiter`: the longest wait of several; `defaultControllerRateLimiter` is client-go's
 *   DefaultTypedControllerRateLimiter (5 ms doubling to 1000 s per item, and 10 qps / 100 burst overall).
 * Items are keyed as the queue keys them (its `key` option, else the item itself).
 */
import { systemClock, type Clock } from '../core/clock.js';

export interface RateLimiter {
  /** The wait (ms) before `key` is queued again; counts one more failure of it. */
  when(key: unknown): number;
  /** `key` succeeded: its failures are forgotten. */
  forget(key: unknown): void;
  /** How many times `key` failed since it was last forgotten. */
  numRequeues(key: unknown): number;
}

export interface ExponentialOptions {
  /** The first wait (default 5 ms). */
  baseMs?: number;
  /** The longest wait (default 1000 s). */
  maxMs?: number;
}

export function exponentialRateLimiter(o: ExponentialOptions = {}): RateLimiter {
  const baseMs = o.baseMs ?? 5;
  const maxMs = o.maxMs ?? 1_000_000;
  const failures = new Map<unknown, number>();
  return {
    when(key) {
      const n = failures.get(key) ?? 0;
      failures.set(key, n + 1);
      return Math.min(maxMs, baseMs * 2 ** Math.min(n, 60));
    },
    forget: (key) => void failures.delete(key),
    numRequeues: (key) => failures.get(key) ?? 0,
  };
}

export interface TokenBucketOptions {
  /** Tokens added per second (default 10). */
  qps?: number;
  /** The bucket's size, and its content at the start (default 100). */
  burst?: number;
  clock?: Clock;
}

export function tokenBucketRateLimiter(o: TokenBucketOptions = {}): RateLimiter {
  const qps = o.qps ?? 10;
  const burst = o.burst ?? 100;
  const clock = o.clock ?? systemClock;
  let tokens = burst;
  let last = clock.now();
  return {
    when() {
      const now = clock.now();
      tokens = Math.min(burst, tokens + ((now - last) * qps) / 1000);
      last = now;
      tokens -= 1;
      return tokens >= 0 ? 0 : Math.ceil((-tokens * 1000) / qps);
    },
    forget: () => undefined,
    numRequeues: () => 0,
  };
}

export function maxOfRateLimiter(...limiters: RateLimiter[]): RateLimiter {
  return {
    when: (key) => Math.max(0, ...limiters.map((l) => l.when(key))),
    forget: (key) => limiters.forEach((l) => l.forget(key)),
    numRequeues: (key) => Math.max(0, ...limiters.map((l) => l.numRequeues(key))),
  };
}

export function defaultControllerRateLimiter(clock: Clock = systemClock): RateLimiter {
  return maxOfRateLimiter(exponentialRateLimiter(), tokenBucketRateLimiter({ clock }));
}
