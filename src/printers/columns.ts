/**
 * kubectl's borderless column layout (text/tabwriter with padding 3): every column as wide as its
 * widest cell plus three spaces, the last column unpadded. ~1,000x faster than cli-table3 on 10,000
 * rows (see docs/package-choices.md, "Why not cli-table3 everywhere") and byte-identical to kubectl.
 */
export function formatColumns(rows: readonly (readonly string[])[], options: { minWidth?: number; remembered?: RememberedWidths } = {}): string {
  if (rows.length === 0) return '';
  // tabwriter's minwidth counts the padding: a cell takes max(width + 3, minWidth) columns.
  const minText = Math.max(0, (options.minWidth ?? 0) - 3);
  const widths: number[] = options.remembered ? [...options.remembered] : [];
  for (const row of rows) {
    for (let i = widths.length; i < row.length; i++) widths[i] = minText;
    for (let i = 0; i < row.length; i++) {
      const w = displayWidth(row[i]!);
      if (w > (widths[i] ?? 0)) widths[i] = w;
    }
  }
  if (options.remembered) for (let i = 0; i < widths.length; i++) options.remembered[i] = widths[i]!;
  let out = '';
  for (const row of rows) {
    let line = '';
    for (let i = 0; i < row.length; i++) {
      const cell = row[i]!;
      line += i === row.length - 1 ? cell : cell + ' '.repeat(widths[i]! - displayWidth(cell) + 3);
    }
    out += line + '\n';
  }
  return out;
}

/**
 * Column widths kept from one block of lines to the next: kubectl's tabwriter with RememberWidths
 * (`get -w` flushes after every event, yet each row stays aligned under the header).
 */
export type RememberedWidths = number[];

/** Width in terminal columns; ASCII fast path, otherwise counts code points. */
export function displayWidth(s: string): number {
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(s) ? s.length : [...s].length;
}
