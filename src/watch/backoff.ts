/**
 * The watcher's waits between attempts, by what failed:
 * - `server`: the server answered, but not with a working watch (429, 5xx, a broken or empty
 *   stream). It is alive and may be overloaded: client-go's Reflector policy, exponential from
 *   800 ms to 30 s with jitter (each wait is the step times 1 to 2, capped); its Retry-After
 *   (429, 500, 503) replaces the step, capped the same way.
 * - `unreachable`: nothing answered (connection refused, reset, closed before a response). The
 *   server is down or restarting, and a refused connection costs it nothing: 250 ms doubling to
 *   a 1 s step, plus up to 25% jitter (so restarted servers are not hit in step by every client),
 *   however long the outage. Events made after it comes back then arrive within a second or two;
 *   the server policy's 30 s cap delayed them by up to 30 s.
 * Each kind counts its own consecutive failures (a 503 right after an outage starts the server
 * policy at its first step); `reset()` once a watch works again.
 */
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  /** Each wait is the step times 1 to 1 + jitter (then capped at maxMs for the server policy). */
  jitter: number;
}

export const WATCH_BACKOFF: BackoffPolicy = { initialMs: 800, maxMs: 30_000, jitter: 1 };
export const UNREACHABLE_BACKOFF: BackoffPolicy = { initialMs: 250, maxMs: 1000, jitter: 0.25 };

export type FailureKind = 'server' | 'unreachable';

export class Backoff {
  private readonly failures: Record<FailureKind, number> = { server: 0, unreachable: 0 };

  constructor(
    private readonly random: () => number = Math.random,
    private readonly policies: Record<FailureKind, BackoffPolicy> = { server: WATCH_BACKOFF, unreachable: UNREACHABLE_BACKOFF },
  ) {}

  /** Consecutive failures so far, of both kinds. */
  get count(): number {
    return this.failures.server + this.failures.unreachable;
  }

  /** Records a failure; returns the wait before the next attempt (ms). */
  next(kind: FailureKind = 'server', retryAfterSeconds?: number): number {
    const n = ++this.failures[kind];
    const { initialMs, maxMs, jitter } = this.policies[kind];
    if (kind === 'server' && retryAfterSeconds !== undefined && retryAfterSeconds >= 0) return Math.min(retryAfterSeconds * 1000, maxMs);
    const step = Math.min(maxMs, initialMs * 2 ** Math.min(n - 1, 30));
    const wait = Math.round(step * (1 + jitter * this.random()));
    // The server policy's jitter stays under its cap (client-go's); the unreachable one's goes past it.
    return kind === 'server' ? Math.min(maxMs, wait) : wait;
  }

  reset(): void {
    this.failures.server = 0;
    this.failures.unreachable = 0;
  }
}
