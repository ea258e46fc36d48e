import type { ParsedArgs } from '../spec.js';
import type { Context } from '../context.js';
import type { IO } from '../../core/io.js';
import { KdynError } from '../../core/errors.js';

// Placeholder until the command lands.
export async function run(_args: ParsedArgs, _ctx: Context, _io: IO): Promise<number> {
  throw new KdynError('api-resources: not implemented yet');
}
