/**
 * Injected faults for transport tests: a matching request is answered with a canned response
 * (or a reset connection, or a delay) before authentication and routing; watch streams can be cut
 * short; the server can "restart" (same objects, watch history gone).
 */
import type { WatchFaults } from './watch.js';

export interface FaultSpec {
  /** Only requests with this method (any when unset). */
  method?: string;
  /** Exact path (without query) or a RegExp tested against path + '?' + query. */
  path: string | RegExp;
  /** Status to answer with (default 500 when neither reset nor delay-only). */
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** How many matching requests to affect (default: unlimited). */
  times?: number;
  /** Destroy the socket instead of answering. */
  reset?: boolean;
  /**
   * Wait this long first (on the server's clock: with a FakeClock the test advances it); with no
   * status and no reset, the request then proceeds normally.
   */
  delayMs?: number;
}

export interface Fault extends FaultSpec {
  /** Requests this fault has affected so far. */
  hits: number;
}

export class Faults {
  private list: Fault[] = [];
  /** Applies to watch streams started from now on; `{}` = none. */
  watch: WatchFaults = {};
  private onRestart: () => void;

  constructor(onRestart: () => void = () => {}) {
    this.onRestart = onRestart;
  }

  /** Close each watch stream started from now on after `n` events (bookmarks included). */
  closeWatchesAfterEvents(n: number): void {
    this.watch = { ...this.watch, closeAfterEvents: n };
  }

  /** Close each watch stream started from now on `ms` after it started (server clock). */
  closeWatchesAfterMs(ms: number): void {
    this.watch = { ...this.watch, closeAfterMs: ms };
  }

  /**
   * As an API server restart: open watch streams end, the objects stay, the watch history is gone
   * (a watch from an older resourceVersion gets 410 Expired).
   */
  restart(): void {
    this.onRestart();
  }

  add(spec: FaultSpec): Fault {
    const f: Fault = { ...spec, hits: 0 };
    this.list.push(f);
    return f;
  }

  clear(): void {
    this.list = [];
    this.watch = {};
  }

  get active(): readonly Fault[] {
    return this.list;
  }

  /** The first fault matching the request (counting it as used), if any. */
  take(method: string, path: string, query: string): Fault | undefined {
    for (const f of this.list) {
      if (f.times !== undefined && f.hits >= f.times) continue;
      if (f.method && f.method.toUpperCase() !== method.toUpperCase()) continue;
      const ok = typeof f.path === 'string' ? f.path === path : f.path.test(query ? `${path}?${query}` : path);
      if (!ok) continue;
      f.hits++;
      return f;
    }
    return undefined;
  }
}
