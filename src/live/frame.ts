/**
 * The live view's pure renderer: lines of text (each with an optional style) laid on a screen of a
 * given size, and the smallest update from the previous frame to the next: only the lines that
 * differ are rewritten (cursor to the line, its text, erase the rest of the line), lines no longer
 * used are erased, and the screen is cleared only when its size changed. No line ever wraps: each
 * is cut to the screen's width, so line i of the frame is row i of the screen.
 */
import { displayWidth } from '../printers/columns.js';
import { CLEAR, ERASE_LINE, moveTo, styled, type Style } from './ansi.js';

export interface Line {
  text: string;
  style?: Style;
}

/** What is on the screen: one string per row (escape sequences included), and the size it was drawn for. */
export interface Frame {
  readonly columns: number;
  readonly rows: number;
  readonly lines: readonly string[];
  /** Per line: whether it fills the width (no erase after it: the cursor sits on the last column). */
  readonly full: readonly boolean[];
}

/** Lays `lines` on a `columns` x `rows` screen: at most `rows` lines, each cut to `columns`; styles only with `styles`. */
export function layout(lines: readonly Line[], columns: number, rows: number, styles: boolean): Frame {
  const out: string[] = [];
  const full: boolean[] = [];
  for (const line of lines.slice(0, Math.max(0, rows))) {
    const text = fit(line.text, columns);
    out.push(styles ? styled(text, line.style) : text);
    full.push(displayWidth(text) >= columns);
  }
  return { columns, rows, lines: out, full };
}

/** The ANSI text that turns the screen showing `prev` (undefined: unknown) into `next`. */
export function diff(prev: Frame | undefined, next: Frame): string {
  const redraw = !prev || prev.columns !== next.columns || prev.rows !== next.rows;
  let out = redraw ? CLEAR : '';
  const count = Math.max(next.lines.length, redraw ? 0 : prev!.lines.length);
  for (let i = 0; i < count; i++) {
    const line = next.lines[i];
    const before = redraw ? undefined : prev!.lines[i];
    if (line === before) continue;
    if (line === undefined) {
      out += moveTo(i) + ERASE_LINE;
      continue;
    }
    if (redraw && line === '') continue;
    out += moveTo(i) + line + (next.full[i] || redraw ? '' : ERASE_LINE);
  }
  return out;
}

/** `text` cut to `columns` cells (code points; tabs and other controls are shown as spaces). */
export function fit(text: string, columns: number): string {
  // eslint-disable-next-line no-control-regex
  const clean = /[\x00-\x1f\x7f]/.test(text) ? text.replace(/[\x00-\x1f\x7f]/g, ' ') : text;
  if (displayWidth(clean) <= columns) return clean;
  return [...clean].slice(0, Math.max(0, columns)).join('');
}
