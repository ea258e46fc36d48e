/**
 * The live view's header line: the context, the objects per kind, and the connection state of the
 * watches, from the watcher's hooks (src/watch/watcher.ts: onRetry before each wait after a failure,
 * onResume when a request is answered again, onRelist after 410 Expired, and the end of each list):
 * `listing`, `watching`, `reconnecting in Ns` (with the error and how long it has lasted) or
 * `relisting`. Where the appending output prints a stderr line at an outage and at its end, the
 * header shows the state for as long as it lasts.
 */
import type { RetryInfo } from '../watch/types.js';

type Connection =
  | { state: 'listing' | 'watching' | 'relisting' }
  | { state: 'reconnecting'; retryAt: number; since: number; error: string; next: RetryInfo['next'] }
  | { state: 'gone'; message: string };

export class ConnectionStates {
  private readonly states: Connection[];

  constructor(private readonly labels: readonly string[]) {
    this.states = labels.map(() => ({ state: 'listing' }));
  }

  retry(source: number, r: RetryInfo, now: number): void {
    const prev = this.states[source]!;
    this.states[source] = { state: 'reconnecting', retryAt: now + r.delayMs, since: prev.state === 'reconnecting' ? prev.since : now, error: firstLine(r.error), next: r.next };
  }

  /** A request answered again: a list under way, or watching. */
  resume(source: number): void {
    const prev = this.states[source]!;
    if (prev.state === 'reconnecting') this.states[source] = { state: prev.next === 'list' ? 'relisting' : 'watching' };
  }

  relist(source: number): void {
    this.states[source] = { state: 'relisting' };
  }

  /** A (re)list completed: watching. */
  listed(source: number): void {
    if (this.states[source]!.state !== 'gone') this.states[source] = { state: 'watching' };
  }

  gone(source: number, message: string): void {
    this.states[source] = { state: 'gone', message };
  }

  /** Whether a countdown is shown (the header changes every second). */
  get counting(): boolean {
    return this.states.some((s) => s.state === 'reconnecting');
  }

  /** The state in words: the worst of the sources' (an outage first), naming the source when there are several. */
  describe(now: number): string {
    const named = (i: number, text: string) => (this.labels.length > 1 ? `${this.labels[i]}: ${text}` : text);
    const parts: string[] = [];
    this.states.forEach((s, i) => {
      if (s.state === 'reconnecting') {
        const wait = Math.max(0, Math.ceil((s.retryAt - now) / 1000));
        const down = Math.floor((now - s.since) / 1000);
        parts.push(named(i, `${wait > 0 ? `reconnecting in ${wait}s` : 'reconnecting'} (${down}s: ${s.error})`));
      }
    });
    this.states.forEach((s, i) => {
      if (s.state === 'gone') parts.push(named(i, `ended: ${s.message}`));
    });
    if (parts.length > 0) return parts.join('; ');
    for (const state of ['relisting', 'listing'] as const) if (this.states.some((s) => s.state === state)) return state;
    return 'watching';
  }
}

function firstLine(e: unknown): string {
  return e instanceof Error ? e.message.split('\n')[0]! : String(e);
}
