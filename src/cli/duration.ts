import { UsageError } from '../core/errors.js';

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Parses a Go-style duration (`1s`, `2m30s`, `500ms`, `0`) into milliseconds.
 * A bare integer is seconds, as kubectl's --request-timeout accepts.
 */
export function parseDuration(value: string, flagName: string): number {
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const re = /(\d+(?:\.\d+)?)(ns|us|\u00b5s|ms|s|m|h)/gy; // \u00b5 (µ): bin.js stays ASCII, which Node reads faster
  let total = 0;
  let pos = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(v))) {
    total += Number(m[1]) * UNITS[m[2]!]!;
    pos = re.lastIndex;
  }
  if (pos !== v.length || v === '') {
    throw new UsageError(`invalid argument "${value}" for "--${flagName}" flag: time: invalid duration "${value}"`);
  }
  return Math.round(total);
}
