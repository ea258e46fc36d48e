/**
 * When `kdyn watch` draws the live view (src/cli/watch-live.ts): a table on a terminal that can move
 * its cursor, without -v; never for `get -w`, a pipe, TERM=dumb, other formats or --for; `--live`
 * insists (usage errors where it cannot be), `--no-live` appends; --sort-by needs the view.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IO } from '../../../src/core/io.js';
import { UsageError } from '../../../src/core/errors.js';
import { wantsLive } from '../../../src/cli/watch-live.js';
import type { WatchOptions } from '../../../src/cli/watch-options.js';

const sink = { write: () => true };
const io = (tty: boolean, env: Record<string, string> = { TERM: 'xterm' }): IO => ({ stdout: sink, stderr: sink, env, cwd: '/', stdoutIsTTY: tty, openScreen: async () => { throw new Error('not here'); } });
type Shape = { format?: string; waitFor?: unknown[]; sortBy?: string };
const opts = (o: Shape = {}) => ({ output: { format: o.format ?? 'table' }, waitFor: o.waitFor, sortBy: o.sortBy }) as unknown as WatchOptions;
const flags = (f: Record<string, unknown> = {}) => ({ flags: f as never });

test('default: live for a table on a terminal, else appending', () => {
  assert.equal(wantsLive(flags(), opts(), 'watch', io(true)), true);
  assert.equal(wantsLive(flags(), opts({ format: 'wide' }), 'watch', io(true)), true);
  assert.equal(wantsLive(flags(), opts(), 'watch', io(false)), false, 'a pipe or a file');
  assert.equal(wantsLive(flags(), opts(), 'get', io(true)), false, 'get -w stays kubectl');
  assert.equal(wantsLive(flags(), opts(), 'watch', io(true, { TERM: 'dumb' })), false);
  assert.equal(wantsLive(flags(), opts(), 'watch', io(true, {})), false, 'no TERM');
  assert.equal(wantsLive(flags(), opts({ format: 'jsonl' }), 'watch', io(true)), false);
  assert.equal(wantsLive(flags(), opts({ waitFor: [] }), 'watch', io(true)), false, '--for');
  assert.equal(wantsLive(flags({ v: 3 }), opts(), 'watch', io(true)), false, '-v logs would draw over it');
  assert.equal(wantsLive(flags({ 'no-live': true }), opts(), 'watch', io(true)), false);
});

test('--live insists, with a usage error where it cannot be; --sort-by needs the view', () => {
  assert.equal(wantsLive(flags({ live: true, v: 2 }), opts(), 'watch', io(true)), true);
  const usage = (f: Record<string, unknown>, o: Shape, tty: boolean, env?: Record<string, string>, re?: RegExp) =>
    assert.throws(() => wantsLive(flags(f), opts(o), 'watch', io(tty, env)), (e: unknown) => e instanceof UsageError && (!re || re.test(e.message)));
  usage({ live: true }, { format: 'json' }, true, undefined, /--live shows a table: it cannot be used with -o json/);
  usage({ live: true }, { waitFor: [] }, true, undefined, /--live cannot be used with --for/);
  usage({ live: true }, {}, false, undefined, /--live needs a terminal on stdout/);
  usage({ live: true }, {}, true, { TERM: 'dumb' }, /TERM is dumb/);
  usage({ live: true, 'no-live': true }, {}, true, undefined, /together/);
  // Several contexts or namespaces (issue 24): one view, with a CONTEXT column; appending into a pipe.
  assert.equal(wantsLive(flags({ live: true, context: 'a,b' }), opts(), 'watch', io(true)), true);
  assert.equal(wantsLive(flags({ 'all-contexts': true }), opts(), 'watch', io(true)), true);
  assert.equal(wantsLive(flags({ namespace: 'a,b' }), opts({ sortBy: '{.metadata.name}' }), 'watch', io(true)), true);
  assert.equal(wantsLive(flags({ 'all-contexts': true }), opts(), 'watch', io(false)), false, 'a fleet into a pipe appends, with its CONTEXT column');
  assert.equal(wantsLive(flags({ 'all-contexts': true }), opts(), 'get', io(true)), false);
  usage({}, { sortBy: '{.metadata.name}' }, false, undefined, /--sort-by sorts the live view only/);
  assert.equal(wantsLive(flags(), opts({ sortBy: '{.metadata.name}' }), 'watch', io(true)), true);
  assert.equal(wantsLive(flags(), opts({ sortBy: '{.metadata.name}' }), 'get', io(true)), false, "get -w: get's own --sort-by, as before");
});
