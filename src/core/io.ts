import type { Screen } from './screen.js';

/** Where a command's output goes and what it may read from its environment. Only src/cli builds the real one. */
export interface Output {
  write(chunk: string): unknown;
}

export interface IO {
  stdout: Output;
  stderr: Output;
  /** Standard input, for `-f -`. */
  stdin?: NodeJS.ReadableStream;
  /** Whether stdin is a terminal (exec plugins' interactiveMode), known without opening the stream. */
  stdinIsTTY?: boolean;
  /** Whether stdout is a terminal (the live view's default), known without opening anything. */
  stdoutIsTTY?: boolean;
  /**
   * The terminal on stdout as a Screen for a full-screen view (keys in raw mode until `close()`);
   * `restore` is written if the process exits with it still open.
   */
  openScreen?(restore: string): Promise<Screen>;
  env: Record<string, string | undefined>;
  cwd: string;
  /**
   * Lets a long-running command (a watch) end cleanly on SIGINT/SIGTERM instead of being killed:
   * while a listener is registered the process does not exit on those signals. Returns the
   * unregister function. Absent in tests that have no process signals.
   */
  onSignal?(listener: (signal: 'SIGINT' | 'SIGTERM') => void): () => void;
  /**
   * The process exits as soon as the command settles (a CLI run, ../startup/process.ts), taking its
   * connections with it: nothing needs tearing down first. Absent in tests that run main() in-process.
   */
  exitsAfterRun?: boolean;
}
