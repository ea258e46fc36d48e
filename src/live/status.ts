/**
 * The live view's header line: the context, the objects per kind, and the connection state of the
 * watches, from the watcher's hooks (src/watch/watcher.ts: onRetry before each wait after a failure,
 * onResume when a request is answered again, onRelist after 410 Expired, and the end of each list):
 * `listing`, `watching`, `reconnecting in Ns` (with the error and how long it has lasted) or
 * `relisting`. Where the appending output prints a stderr line at an outage and at its end, the
 * header shows the state for as long as it lasts.
 */
/** A failed attempt, as the watcher reports it (src/watch/types.ts RetryInfo has more). */
export interface Retry {
  error: unknown;
  /** The wait before the next attempt (ms). */
  delayMs: number;
}

type Steady = 'listing' | 'watching' | 'relisting';

type Connection =
  | { state: Steady }
  /** `before`: the state the failures interrupted, back when a request is answered again. */
  | { state: 'reconnecting'; retryAt: number; since: number; error: string; before: Steady }
  | { state: 'gone'; message: string };

export class ConnectionStates {
  private readonly labels: string[];
  private readonly states: Connection[];
  /** Several contexts: each source's context, and the contexts in the header's order. */
  private readonly groupOf: string[] = [];
  private readonly groups: string[] | undefined;
  /** Contexts whose watch failed for good (before or after their sources were known). */
  private readonly failed = new Map<string, string>();

  /**
   * `labels`: one per source known from the start. `groups`: several contexts, each stated on its
   * own (`east watching, west reconnecting in 3s`); their sources come with `add` as each
   * context's arguments are resolved.
   */
  constructor(labels: readonly string[], groups?: readonly string[]) {
    this.labels = [...labels];
    this.states = labels.map(() => ({ state: 'listing' }));
    this.groups = groups && [...groups];
  }

  /** A source of context `group` (labelled by its type); its index. */
  add(label: string, group: string): number {
    this.labels.push(label);
    this.groupOf.push(group);
    this.states.push({ state: 'listing' });
    return this.states.length - 1;
  }

  /** A context whose watch ended with an error (the others go on). */
  fail(group: string, message: string): void {
    this.failed.set(group, message);
  }

  retry(source: number, r: Retry, now: number): void {
    const prev = this.states[source]!;
    if (prev.state === 'gone') return;
    const again = prev.state === 'reconnecting';
    this.states[source] = { state: 'reconnecting', retryAt: now + r.delayMs, since: again ? prev.since : now, error: firstLine(r.error), before: again ? prev.before : prev.state };
  }

  /** A request answered again: back to what the failures interrupted (a list under way, or watching). */
  resume(source: number): void {
    const prev = this.states[source]!;
    if (prev.state === 'reconnecting') this.states[source] = { state: prev.before };
  }

  relist(source: number): void {
    const prev = this.states[source]!;
    if (prev.state === 'reconnecting') prev.before = 'relisting';
    else if (prev.state !== 'gone') this.states[source] = { state: 'relisting' };
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

  /**
   * The state in words, the worst first: an outage (the sources in it named unless it is all of
   * them: the soonest retry, the longest outage, its error), types gone, relisting, listing, watching.
   */
  describe(now: number): string {
    if (!this.groups) return this.describeSome(this.states.map((_, i) => i), now);
    return this.groups
      .map((g) => {
        const failed = this.failed.get(g);
        if (failed !== undefined) return `${g} failed: ${failed}`;
        const some = this.groupOf.flatMap((x, i) => (x === g ? [i] : []));
        return `${g} ${some.length > 0 ? this.describeSome(some, now) : 'listing'}`;
      })
      .join(', ');
  }

  private describeSome(some: readonly number[], now: number): string {
    if (some.length === 0) return 'listing';
    const several = some.length > 1;
    const parts: string[] = [];
    const down = some.flatMap((i) => {
      const s = this.states[i]!;
      return s.state === 'reconnecting' ? [{ s, i }] : [];
    });
    if (down.length > 0) {
      const wait = Math.max(0, Math.ceil(Math.min(...down.map((d) => d.s.retryAt - now)) / 1000));
      const first = down.reduce((a, b) => (b.s.since < a.s.since ? b : a));
      const names = several && down.length < some.length ? `${down.map((d) => this.labels[d.i]).join(', ')}: ` : '';
      parts.push(`${names}${wait > 0 ? `reconnecting in ${wait}s` : 'reconnecting'} (${Math.floor((now - first.s.since) / 1000)}s: ${first.s.error})`);
    }
    for (const i of some) {
      const s = this.states[i]!;
      if (s.state === 'gone') parts.push(several ? `${this.labels[i]}: ended: ${s.message}` : `ended: ${s.message}`);
    }
    if (parts.length > 0) return parts.join('; ');
    for (const state of ['relisting', 'listing'] as const) if (some.some((i) => this.states[i]!.state === state)) return state;
    return 'watching';
  }
}

function firstLine(e: unknown): string {
  return e instanceof Error ? e.message.split('\n')[0]! : String(e);
}
