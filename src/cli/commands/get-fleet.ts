/**
 * `kdyn get` over several contexts (`--context a,b`, `--context 'prod-*'`, `--all-contexts`) or
 * several namespaces (`-n a,b`): flags -> ../../fleet/get.ts -> stdout; one stderr line per failed
 * context, after the others' output; exit 1 if any failed.
 */
import type { ParsedArgs } from '../command-types.js';
import type { Context } from '../context.js';
import type { GetOutput } from '../../printers/index.js';
import { fleetRequest } from '../fleet.js';
import { fleetGet } from '../../fleet/get.js';
import type { GetOptions } from '../get-options.js';

export async function runFleet(args: ParsedArgs, ctx: Context, opts: GetOptions, output: GetOutput): Promise<number> {
  const fleet = await fleetRequest(args, ctx, { namespaces: true });
  const failures = await fleetGet(fleet.contexts, fleet.open, {
    ...opts,
    output,
    args: args.args,
    prog: args.prog,
    showContext: fleet.showContext,
    namespaces: fleet.namespaces,
    concurrency: fleet.concurrency,
    stdout: ctx.io.stdout,
    stderr: ctx.io.stderr,
    onError: fleet.report,
  });
  return failures > 0 ? 1 : 0;
}
