import type { Output } from './io.js';

/**
 * klog-style levelled logging to stderr, as kubectl's `-v=N`.
 * Level 6 prints one line per HTTP request (`GET URL 200 OK in 5 milliseconds`), 9 adds stack traces.
 */
export interface Logger {
  readonly level: number;
  enabled(level: number): boolean;
  /** Logs `msg` if `level` <= the configured verbosity. `source` mimics klog's `file.go:line]`. */
  info(level: number, msg: string, source?: string): void;
  warn(msg: string): void;
}

export function createLogger(level: number, out: Output, now: () => Date = () => new Date()): Logger {
  const line = (sev: 'I' | 'W', msg: string, source: string) => {
    const d = now();
    const p2 = (n: number) => String(n).padStart(2, '0');
    const stamp = `${p2(d.getMonth() + 1)}${p2(d.getDate())} ${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}.${String(d.getMilliseconds() * 1000).padStart(6, '0')}`;
    out.write(`${sev}${stamp} ${String(process.pid).padStart(7)} ${source}] ${msg}\n`);
  };
  return {
    level,
    enabled: (l) => l <= level,
    info(l, msg, source = 'kdyn') {
      if (l <= level) line('I', msg, source);
    },
    warn(msg) {
      line('W', msg, 'kdyn');
    },
  };
}

export const silentLogger: Logger = { level: 0, enabled: () => false, info() {}, warn() {} };
