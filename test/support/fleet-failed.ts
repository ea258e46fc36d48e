/**
 * The fleet-failed-contexts checks shared by the local-server and real-server tests (issue 35): every
 * output format of `get`, and what a fleet with failed contexts must print: exactly the good
 * context's output, one `error: context "C": ...` line per failed context, exit 1.
 */
import assert from 'node:assert/strict';
import type { Run } from './cli.js';

export const FLEET_FORMATS: string[][] = [
  [],
  ['-o', 'wide'],
  ['-o', 'name'],
  ['-o', 'jsonl'],
  ['-o', 'json'],
  ['-o', 'yaml'],
  ['-o', 'jsonpath={.context}{": "}{range .items[*]}{.metadata.name}{" "}{end}{"\\n"}'],
  ['-o', 'go-template={{.context}}: {{range .items}}{{.metadata.name}} {{end}}{{"\\n"}}'],
  ['-o', 'custom-columns=NAME:.metadata.name'],
];

export const formatLabel = (format: string[]): string => (format.length ? format.join(' ').slice(0, 40) : 'table');

/**
 * `r` (the whole fleet) printed what `alone` (the good context, as a fleet) printed, and one error line
 * per failed context, in order. `sameOut` compares the two stdouts (default: byte for byte; on a real
 * server, whose AGE cells follow its clock, `assertSameTables`).
 */
export function assertOnlyGood(r: Run, alone: Run, good: string, failed: readonly string[], sameOut: (actual: string, expected: string, message?: string) => void = assert.equal): string[] {
  assert.equal(alone.code, 0, alone.err);
  assert.ok(alone.out.includes(good), alone.out);
  assert.equal(r.code, 1, r.err);
  sameOut(r.out, alone.out, 'the fleet\'s stdout is the good context\'s');
  const errs = r.err.split('\n').filter(Boolean);
  assert.deepEqual(errs.map((l) => /^error: context "([^"]+)": /.exec(l)?.[1]), failed, r.err);
  return errs;
}
