/**
 * A terminal to draw on, injected so that a full-screen view (src/live/) is tested without a real
 * terminal or sleeps. Only src/cli builds the real one (on the process's tty); tests pass their own.
 */
export interface Screen {
  /** Writes text (ANSI escape sequences included) as it is. */
  write(text: string): void;
  /** The size now, in character cells. */
  readonly columns: number;
  readonly rows: number;
  /** Called after the size changed; returns the unregister function. */
  onResize(listener: () => void): () => void;
  /**
   * Keys as typed (raw mode: `q`, `/`, `\x03` for Ctrl-C, `\x1b` for Escape, `\r` for Enter,
   * `\x7f` for Backspace; a paste may come as one string). Returns the unregister function.
   */
  onKey(listener: (key: string) => void): () => void;
  /** Gives the terminal back as it was (cooked mode, stdin released). Idempotent. */
  close(): void;
}
