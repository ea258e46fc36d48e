/**
 * The transport's bounded retries: which answers and failures are sent again (network errors and
 * 429/503 for idempotent requests; a 429 or 5xx with Retry-After for any request, as client-go), and
 * the backoff between attempts: exponential with jitter, or the server's Retry-After (seconds or an
 * HTTP date), capped.
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import { isRetriableNetworkError, toConnectionError } from './errors.js';
import { discard, header, type Sent } from './round-trip.js';
import type { RetryCause } from './types.js';

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

/** The wait before retry number `attempt + 1` (attempt counts from 0); `retryAfterMaxMs` caps a Retry-After. */
export function retryDelay(attempt: number, retryAfter: string | undefined, policy: RetryPolicy, random: () => number = Math.random, retryAfterMaxMs = Infinity): number {
  const ra = parseRetryAfter(retryAfter);
  if (ra !== undefined) return Math.min(ra * 1000, policy.maxDelayMs, retryAfterMaxMs);
  const exp = policy.baseDelayMs * 2 ** attempt;
  // full jitter in [exp/2, exp)
  return Math.min(Math.round(exp / 2 + (exp / 2) * random()), policy.maxDelayMs);
}

/** What the retry loops need besides the request. */
export interface Retrying {
  policy: RetryPolicy;
  /** Jitter source. */
  random: () => number;
  clock: Clock;
  logger: Logger;
  /** The server's host, for connection errors. */
  host: string;
}

/** The request being retried. */
export interface RetriedRequest {
  method: string;
  url: string;
  /** GET, or a request the caller marked safe to repeat. */
  idempotent: boolean;
  signal?: AbortSignal | undefined;
  /** Caps a Retry-After wait for this request (RequestOptions.retryAfterMaxMs). */
  retryAfterMaxMs?: number | undefined;
  /** Told before each wait for a retry, with why (RequestOptions.onRetry). */
  onRetry?: ((why: RetryCause) => void) | undefined;
}

/**
 * Sends until an answer that is not sent again, at most `policy.maxRetries` more times: after a
 * network error (idempotent requests); after a 429 or 503 (idempotent requests); for other requests,
 * as client-go does (rest/with_retry.go checkWait), after a 429 or 5xx that carries Retry-After: the
 * server asks to be asked again (an overloaded server's priority-and-fairness answer), and a body of
 * bytes can be resent. Counts attempts from `from` (a request sent again after a 401 refresh
 * continues its count). Resolves with the answer and the attempt that got it; a failure rejects with
 * the signal's reason when aborted, else a ConnectionError.
 */
export async function sendWithRetries(send: () => Promise<Sent>, req: RetriedRequest, r: Retrying, from = 0): Promise<{ sent: Sent; attempt: number }> {
  const { method, url, idempotent, signal } = req;
  const { policy, logger, clock } = r;
  for (let attempt = from; ; attempt++) {
    let sent: Sent;
    try {
      sent = await send();
    } catch (e) {
      if (signal?.aborted) throw signal.reason ?? e;
      if (idempotent && attempt < policy.maxRetries && isRetriableNetworkError(e)) {
        const delay = retryDelay(attempt, undefined, policy, r.random);
        logger.info(4, `${method} ${url}: ${(e as Error).message}; retrying in ${delay}ms (attempt ${attempt + 1}/${policy.maxRetries})`, 'request.go:1');
        req.onRetry?.({ kind: 'network', error: e });
        await clock.sleep(delay, signal);
        continue;
      }
      throw toConnectionError(e, r.host, `${method} ${url}`);
    }
    const status = sent.res.statusCode;
    const retryAfter = header(sent.res.headers['retry-after']);
    const again = idempotent ? status === 429 || status === 503 : retryAfter !== undefined && (status === 429 || status >= 500);
    if (again && attempt < policy.maxRetries) {
      const delay = retryDelay(attempt, retryAfter, policy, r.random, retryAfter !== undefined ? req.retryAfterMaxMs : undefined);
      logger.info(4, `${method} ${url}: got ${status}; retrying in ${delay}ms (attempt ${attempt + 1}/${policy.maxRetries})`, 'request.go:1');
      discard(sent);
      req.onRetry?.({ kind: 'status', status });
      await clock.sleep(delay, signal);
      continue;
    }
    return { sent, attempt };
  }
}

/**
 * A whole answer: `exchange` (which has its own retries), then `read` of its body; a connection reset
 * mid-body is retried like one before the headers (idempotent requests), with a new exchange.
 * A failure rejects with the time limit's error when it fired, the signal's reason when aborted, else
 * a ConnectionError.
 */
export async function readWithRetries<T>(exchange: () => Promise<Sent>, read: (sent: Sent) => Promise<T>, req: Omit<RetriedRequest, 'url'>, r: Retrying): Promise<T> {
  const { method, idempotent, signal } = req;
  for (let attempt = 0; ; attempt++) {
    const sent = await exchange();
    try {
      const value = await read(sent);
      sent.done();
      return value;
    } catch (e) {
      sent.done();
      if (sent.timedOut) throw toConnectionError(sent.timedOut, r.host, `${method} ${sent.url}`);
      if (idempotent && attempt < r.policy.maxRetries && isRetriableNetworkError(e) && !signal?.aborted) {
        req.onRetry?.({ kind: 'network', error: e });
        await r.clock.sleep(retryDelay(attempt, undefined, r.policy, r.random), signal);
        continue;
      }
      if (signal?.aborted) throw signal.reason ?? e;
      throw toConnectionError(e, r.host, `${method} ${sent.url}`);
    }
  }
}
