/**
 * The watcher's waits between attempts, as client-go's Reflector: exponential from 800 ms to 30 s
 * with jitter (each wait is the step times 1 to 2, capped), reset once a watch works again.
 * A server's Retry-After (429, 500, 503) replaces the step, capped the same way.
 */
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
}

export const WATCH_BACKOFF: BackoffPolicy = { initialMs: 800, maxMs: 30_000 };

export class Backoff {
  private failures = 0;

  constructor(
    private readonly random: () => number = Math.random,
    private readonly policy: BackoffPolicy = WATCH_BACKOFF,
  ) {}

  /** Consecutive failures so far. */
  get count(): number {
    return this.failures;
  }

  /** Records a failure; returns the wait before the next attempt (ms). */
  next(retryAfterSeconds?: number): number {
    this.failures++;
    const { initialMs, maxMs } = this.policy;
    if (retryAfterSeconds !== undefined && retryAfterSeconds >= 0) return Math.min(retryAfterSeconds * 1000, maxMs);
    const step = Math.min(maxMs, initialMs * 2 ** Math.min(this.failures - 1, 30));
    return Math.min(maxMs, Math.round(step * (1 + this.random())));
  }

  reset(): void {
    this.failures = 0;
  }
}
