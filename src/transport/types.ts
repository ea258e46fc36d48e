import type { IncomingHttpHeaders } from 'node:http';

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute API path, e.g. `/apis/apps/v1/namespaces/x/deployments`. */
  path: string;
  query?: Query;
  /** Accept, Content-Type, If-None-Match, ... (User-Agent and Authorization are added by the transport). */
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /** Overrides `--request-timeout` for this request (ms, 0 = none). Watches pass 0. */
  timeoutMs?: number;
  /**
   * The time limit when neither `timeoutMs` nor `--request-timeout` gives one (ms): discovery's 32 s,
   * as kubectl. Whatever limit applies is also sent as `?timeout=` (Go duration), as client-go does.
   */
  fallbackTimeoutMs?: number;
  /** The largest body `request` reads (bytes); a larger one fails with ResponseTooLargeError. */
  maxBodyBytes?: number;
  /**
   * The longest wait on a Retry-After before the request is sent again (ms): a watch coming back
   * after a restart asks sooner than a starting server's `503 Retry-After: 5` (src/watch/failures.ts).
   */
  retryAfterMaxMs?: number;
  /**
   * Told each time the transport sends this request again (its bounded retries: ./retry.ts), with
   * why, before the wait. A watch counts these with its own failures: a 403 that follows a refused
   * connection the transport retried is still a restarting server's answer (src/watch/failures.ts).
   */
  onRetry?: (why: RetryCause) => void;
}

/** Why the transport sends a request again: a network failure, or the status the server answered (429, 503, a 5xx with Retry-After). */
export type RetryCause = { kind: 'network'; error: unknown } | { kind: 'status'; status: number };

export interface Response {
  status: number;
  /** Lower-cased header names, as node:http gives them. */
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The full URL that was requested (for messages; never contains credentials). */
  url: string;
}

export interface StreamResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as it arrives. Ending the iteration early (or `close()`) aborts the request. */
  body: AsyncIterable<Buffer>;
  url: string;
  close(): void;
}

/**
 * An authenticated HTTP connection to one cluster. `request` resolves for every HTTP status
 * (4xx/5xx included: use `ensureOk`/`statusError` from ./status.js); it rejects only with a
 * `ConnectionError` (refused, TLS failure, timeout, reset after retries).
 */
export interface Transport {
  /** The cluster's server URL, without a trailing slash (e.g. `https://127.0.0.1:6443`). */
  readonly server: string;
  request(options: RequestOptions): Promise<Response>;
  stream(options: RequestOptions): Promise<StreamResponse>;
  /**
   * Opens a connection ahead of the first request (TCP and TLS handshakes run while the caller does
   * other work); a failure surfaces from the request that uses it. Optional for other transports.
   */
  preconnect?(): void;
  /** Releases pooled connections so the process can exit. */
  close(): void;
}
