/**
 * The live view: `kdyn watch` on a terminal keeps one table of the current objects up to date in
 * place (./rows.ts; AGE counting up: ./age.ts), under a header line (the context, the namespaces,
 * the objects per kind, the connection state: ./status.ts), drawn on the alternate screen with the
 * smallest update per frame (./frame.ts).
 *
 * Frames: a change asks for one at the next turn of the event loop, and at most one per
 * `minFrameMs` (100 ms: at most ~10 redraws a second under a storm of events); marks and deleted
 * rows that expire, and the countdown of a reconnect, ask for one when they are due. A resize
 * redraws the whole screen. Keys: `q` quits, Ctrl-C (a key in raw mode) interrupts, `/` edits a
 * name filter (Enter keeps it, Escape clears it). The screen and the clock are injected (the real
 * terminal is src/cli/terminal.ts), so every frame is testable without a terminal or sleeps.
 */
import type { Clock } from '../core/clock.js';
import type { Screen } from '../core/screen.js';
import { ENTER, LEAVE } from './ansi.js';
import { diff, layout, type Frame, type Line } from './frame.js';
import { LiveRows, type LiveRowsOptions, type RowEvent } from './rows.js';
import { ConnectionStates, type Retry } from './status.js';

export interface LiveViewOptions extends LiveRowsOptions {
  screen: Screen;
  clock: Clock;
  /** The kubeconfig context (shown first in the header). */
  context?: string;
  /** Which namespaces are watched, for the header: `namespace demo`, `all namespaces`. */
  namespaces?: string;
  /** One label per watched source (`configmaps`, `deployments.apps`), for connection states. */
  sources: readonly string[];
  /** Several contexts: the header states each (their sources come with `addSource`), no `context`. */
  contexts?: readonly string[];
  /** `q` (quit) or Ctrl-C (interrupt) was pressed. */
  onQuit: (how: 'quit' | 'interrupt') => void;
  /** Minimum time between two frames (ms, default 100). */
  minFrameMs?: number;
}

export interface LiveViewStats {
  frames: number;
  /** Bytes written to the screen. */
  bytes: number;
  /** The longest time a change waited to be on the screen (ms), initial lists left out. */
  maxLagMs: number;
  /** The longest time an initial list (or a frame with one) waited to be on the screen (ms). */
  maxInitialMs: number;
  /** Frames by that wait, in 10 ms steps (the last counts 1 s and more), for percentiles. */
  lagHistogram: number[];
}

const MIN_FRAME_MS = 100;

export class LiveView {
  private readonly rows: LiveRows;
  private readonly conn: ConnectionStates;
  private readonly minFrameMs: number;
  private frame: Frame | undefined;
  private lastFrameAt = -Infinity;
  /** When the first change not yet drawn happened (undefined: the screen is up to date). */
  private dirtySince: number | undefined;
  /** The changes not yet drawn include an initial list (its lag is counted apart). */
  private initialPending = false;
  private timer: { at: number; ac: AbortController } | undefined;
  private filter = '';
  private editing = false;
  private message: string | undefined;
  private closed = false;
  private readonly unlisten: Array<() => void> = [];
  readonly stats: LiveViewStats = { frames: 0, bytes: 0, maxLagMs: 0, maxInitialMs: 0, lagHistogram: new Array<number>(101).fill(0) };

  constructor(private readonly o: LiveViewOptions) {
    this.rows = new LiveRows(o);
    this.conn = new ConnectionStates(o.sources, o.contexts);
    this.minFrameMs = o.minFrameMs ?? MIN_FRAME_MS;
  }

  /** Takes the screen (alternate screen, cursor hidden) and draws the first frame. */
  start(): void {
    this.write(ENTER);
    this.unlisten.push(
      this.o.screen.onResize(() => {
        this.frame = undefined;
        this.changed();
      }),
      this.o.screen.onKey((k) => this.key(k)),
    );
    this.draw();
  }

  /** Events of one batch; `initial`: a first list (its rows are not marked as changes). */
  apply(events: readonly RowEvent[], initial = false): void {
    const now = this.o.clock.now();
    for (const ev of events) this.rows.apply(ev, now, initial);
    if (initial && events.length > 0) this.initialPending = true;
    this.changed();
  }

  /** A source of one of `contexts` (known once its arguments are resolved there); its index. */
  addSource(label: string, context: string): number {
    return this.conn.add(label, context);
  }

  /** A context whose watch ended with an error: its state in the header, its rows stay. */
  failed(context: string, message: string): void {
    this.conn.fail(context, message);
    this.changed();
  }

  retry(source: number, r: Retry): void {
    this.conn.retry(source, r, this.o.clock.now());
    this.changed();
  }

  resume(source: number): void {
    this.conn.resume(source);
    this.changed();
  }

  relist(source: number): void {
    this.conn.relist(source);
    this.changed();
  }

  listed(source: number): void {
    this.conn.listed(source);
    this.changed();
  }

  gone(source: number, message: string): void {
    this.conn.gone(source, message);
    this.changed();
  }

  /** A line under the header (a warning that the appending output prints on stderr). */
  notice(text: string): void {
    this.message = text;
    this.changed();
  }

  /** Gives the screen back (the shell's screen as it was); safe to call more than once. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.timer?.ac.abort();
    for (const u of this.unlisten.splice(0)) u();
    this.write(LEAVE);
    this.o.screen.close();
  }

  /** Something changed: a frame at the next turn, or when the last one is `minFrameMs` old. */
  private changed(): void {
    if (this.closed) return;
    this.dirtySince ??= this.o.clock.now();
    this.wakeAt(Math.max(this.o.clock.now(), this.lastFrameAt + this.minFrameMs));
  }

  private wakeAt(at: number): void {
    if (this.timer && this.timer.at <= at) return;
    this.timer?.ac.abort();
    const timer = { at, ac: new AbortController() };
    this.timer = timer;
    this.o.clock.sleep(Math.max(0, at - this.o.clock.now()), timer.ac.signal).then(
      () => {
        if (this.timer === timer) this.timer = undefined;
        this.draw();
      },
      () => undefined,
    );
  }

  /** Draws the frame for now: the header, the table, only the lines that changed. */
  private draw(): void {
    if (this.closed) return;
    const { clock, screen } = this.o;
    const now = clock.now();
    this.rows.expire(now);
    this.rows.ages(now);
    const columns = screen.columns;
    const height = screen.rows;
    const head = this.header(now);
    const table = this.rows.render(Math.max(0, height - head.length), this.filter || undefined);
    const next = layout([...head, ...table.lines], columns, height, this.o.styles ?? true);
    const text = diff(this.frame, next);
    this.frame = next;
    if (text) this.write(text);
    this.stats.frames++;
    if (this.dirtySince !== undefined) {
      const lag = now - this.dirtySince;
      if (this.initialPending) this.stats.maxInitialMs = Math.max(this.stats.maxInitialMs, lag);
      else {
        this.stats.lagHistogram[Math.min(100, Math.floor(lag / 10))]!++;
        if (lag > this.stats.maxLagMs) this.stats.maxLagMs = lag;
      }
    }
    this.dirtySince = undefined;
    this.initialPending = false;
    this.lastFrameAt = now;
    // The next frame that time alone brings: a mark or deleted row due, the countdown's next second,
    // an AGE's next step.
    let due = this.rows.nextExpiry();
    if (this.conn.counting) due = Math.min(due ?? Infinity, now + 1000 - (now % 1000));
    const age = this.rows.nextAgeChange();
    if (age !== undefined) due = Math.min(due ?? Infinity, age);
    if (due !== undefined) this.wakeAt(Math.max(due, now + this.minFrameMs));
  }

  private header(now: number): Line[] {
    const counts = this.rows.counts();
    const total = counts.reduce((n, c) => n + c.count, 0);
    const parts: string[] = [];
    if (this.o.context) parts.push(this.o.context);
    if (this.o.namespaces) parts.push(this.o.namespaces);
    parts.push(this.conn.describe(now));
    parts.push(counts.length > 1 ? `${total} objects (${counts.map((c) => `${c.kind} ${c.count}`).join(', ')})` : `${total} ${total === 1 ? 'object' : 'objects'}`);
    if (this.filter || this.editing) parts.push(`filter /${this.filter}${this.editing ? '_' : ''}`);
    const lines: Line[] = [{ text: parts.join(' | '), style: 'bold' }];
    const notes = [this.message, this.rows.sortError && `--sort-by: ${this.rows.sortError}`].filter((m): m is string => !!m);
    for (const m of notes) lines.push({ text: m });
    lines.push({ text: this.editing ? 'filter by name: type, Enter to keep, Esc to clear' : 'q quit | / filter by name', style: 'dim' });
    return lines;
  }

  private key(input: string): void {
    // An escape sequence (an arrow key, a function key) as a whole: nothing to do with it.
    if (input.length > 1 && input.startsWith('\x1b')) return;
    for (const k of input) {
      if (k === '\x03') return this.o.onQuit('interrupt');
      if (this.editing) {
        if (k === '\r' || k === '\n') this.editing = false;
        else if (k === '\x1b') {
          this.editing = false;
          this.filter = '';
        } else if (k === '\x7f' || k === '\b') this.filter = this.filter.slice(0, -1);
        else if (k >= ' ') this.filter += k;
      } else if (k === 'q') return this.o.onQuit('quit');
      else if (k === '/') {
        // A new filter, as a new search in less or vim.
        this.editing = true;
        this.filter = '';
      }
      else if (k === '\x1b') this.filter = '';
      else continue;
      this.changed();
    }
  }

  private write(text: string): void {
    this.stats.bytes += text.length;
    this.o.screen.write(text);
  }
}
