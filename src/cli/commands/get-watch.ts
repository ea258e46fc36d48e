/**
 * `kdyn get -w` / `--watch-only` / `--output-watch-events` (kubectl get --watch): the watch command
 * (./watch.ts) in get's mode, which prints as `kubectl get -w` does. ../command-runs.ts picks this
 * module for `get` when its flags ask for a watch.
 */
import type { ParsedArgs } from '../command-types.js';
import type { Context } from '../context.js';
import type { IO } from '../../core/io.js';
import { run as watch } from './watch.js';

export function run(args: ParsedArgs, ctx: Context, io: IO): Promise<number> {
  return watch(args, ctx, io, 'get');
}
