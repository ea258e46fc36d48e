/**
 * A small terminal emulator for tests of full-screen output (src/live/): applies the escape
 * sequences the live view writes (cursor position, erase line/screen, SGR attributes, alternate
 * screen, cursor visibility) to a grid of cells, wrapping like a terminal when a line overflows,
 * so a test compares what a person would see, not the bytes.
 */
export class VirtualTerminal {
  private main: Cell[][];
  private alt: Cell[][] | undefined;
  row = 0;
  col = 0;
  private attr = '';
  cursorVisible = true;

  constructor(
    public columns: number,
    public rows: number,
  ) {
    this.main = blank(columns, rows);
  }

  get altScreen(): boolean {
    return this.alt !== undefined;
  }

  private get grid(): Cell[][] {
    return this.alt ?? this.main;
  }

  resize(columns: number, rows: number): void {
    this.columns = columns;
    this.rows = rows;
    const fit = (g: Cell[][]) => blank(columns, rows).map((line, r) => line.map((c, i) => g[r]?.[i] ?? c));
    this.main = fit(this.main);
    if (this.alt) this.alt = fit(this.alt);
  }

  write(text: string): void {
    for (let i = 0; i < text.length; ) {
      const ch = text[i]!;
      if (ch === '\x1b' && text[i + 1] === '[') {
        const m = /^\x1b\[([?]?)([\d;]*)([A-Za-z])/.exec(text.slice(i, i + 32));
        if (!m) throw new Error(`unknown escape sequence at ${JSON.stringify(text.slice(i, i + 12))}`);
        this.csi(m[1]!, m[2]!, m[3]!);
        i += m[0].length;
        continue;
      }
      if (ch === '\r') this.col = 0;
      else if (ch === '\n') this.row = Math.min(this.rows - 1, this.row + 1);
      else if (ch < ' ') throw new Error(`control character ${JSON.stringify(ch)} written`);
      else {
        if (this.col >= this.columns) {
          // A line longer than the screen: the terminal wraps it.
          this.col = 0;
          this.row = Math.min(this.rows - 1, this.row + 1);
        }
        this.grid[this.row]![this.col] = { ch, attr: this.attr };
        this.col++;
      }
      i++;
    }
  }

  private csi(priv: string, params: string, cmd: string): void {
    const n = params.split(';').map((p) => (p === '' ? undefined : Number(p)));
    if (priv === '?') {
      const on = cmd === 'h';
      if (n[0] === 1049) this.alt = on ? blank(this.columns, this.rows) : undefined;
      else if (n[0] === 25) this.cursorVisible = on;
      else throw new Error(`unknown private mode ${params}${cmd}`);
      return;
    }
    switch (cmd) {
      case 'H':
        this.row = Math.min(this.rows - 1, (n[0] ?? 1) - 1);
        this.col = Math.min(this.columns - 1, (n[1] ?? 1) - 1);
        return;
      case 'K':
        for (let c = Math.min(this.col, this.columns - 1); c < this.columns; c++) this.grid[this.row]![c] = { ch: ' ', attr: '' };
        return;
      case 'J':
        if (n[0] !== 2) throw new Error(`unsupported erase ${params}J`);
        for (const line of this.grid) line.fill({ ch: ' ', attr: '' });
        return;
      case 'm':
        this.attr = n.every((p) => !p) ? '' : this.attr + n.join(';');
        return;
      default:
        throw new Error(`unknown sequence CSI ${params}${cmd}`);
    }
  }

  /** The screen as text, trailing spaces trimmed per line, trailing blank lines dropped. */
  text(): string {
    const lines = this.grid.map((l) => l.map((c) => c.ch).join('').trimEnd());
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines.join('\n');
  }

  /** The attribute (SGR parameters) of the first character of `row` ('' for none). */
  attrAt(row: number): string {
    const cell = this.grid[row]!.find((c) => c.ch !== ' ');
    return cell?.attr ?? '';
  }
}

interface Cell {
  ch: string;
  attr: string;
}

function blank(columns: number, rows: number): Cell[][] {
  return Array.from({ length: rows }, () => Array.from({ length: columns }, () => ({ ch: ' ', attr: '' })));
}
