/** `kdyn completion bash|zsh`: prints the shell completion script (see ../completion.ts). */
import type { ParsedArgs } from '../command-types.js';
import type { Context } from '../context.js';
import type { IO } from '../../core/io.js';
import { UsageError } from '../../core/errors.js';
import { completionScript, SHELLS, type Shell } from '../completion.js';

export async function run(args: ParsedArgs, _ctx: Context, io: IO): Promise<number> {
  const shell = args.args[0];
  if (shell === undefined) throw new UsageError(`Shell not specified. One of: ${SHELLS.join(', ')}`);
  if (!(SHELLS as readonly string[]).includes(shell)) throw new UsageError(`Unsupported shell type "${shell}".`);
  io.stdout.write(completionScript(shell as Shell));
  return 0;
}
