/**
 * `kdyn explain TYPE[.field.path]`: kubectl v1.32's `explain` (kubectl pkg/cmd/explain): flags ->
 * src/explain (the RESTMapper, the OpenAPI v3 document, the plaintext rendering) -> stdout. Where
 * kubectl prints the header before failing (an unknown field), so does this; the error follows on
 * stderr, worded as kubectl's, exit 1.
 */
import type { ParsedArgs } from '../command-types.js';
import type { Context } from '../context.js';
import type { IO } from '../../core/io.js';
import { UsageError } from '../../core/errors.js';
import { explain, ExplainError, parseGroupVersion } from '../../explain/index.js';
import { NoResourceMatchError } from '../../restmapper/errors.js';

export async function run(args: ParsedArgs, ctx: Context, io: IO): Promise<number> {
  const f = args.flags;
  const prog = args.prog ?? 'kdyn';
  if (args.args.length === 0) throw new UsageError(`You must specify the type of resource to explain. Use "${prog} api-resources" for a complete list of supported resources.`);
  if (args.args.length > 1) throw new UsageError('We accept only this format: explain RESOURCE');
  const output = String(f.output ?? 'plaintext');
  if (output === 'plaintext-openapiv2') throw new UsageError('--output plaintext-openapiv2 (OpenAPI v2) is not supported by kdyn: the plaintext output reads OpenAPI v3');
  if (output !== 'plaintext') throw new UsageError(`unrecognized format: ${output}`);
  const apiVersion = typeof f['api-version'] === 'string' && f['api-version'] ? f['api-version'] : undefined;
  if (apiVersion) {
    try {
      parseGroupVersion(apiVersion);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }

  await ctx.preconnect(); // the handshake while discovery resolves the type
  const [mapper, openapi] = await Promise.all([ctx.mapper(), ctx.openapi()]);
  try {
    io.stdout.write(await explain({ mapper, openapi }, args.args[0]!, { recursive: f.recursive === true, apiVersion }));
  } catch (e) {
    if (e instanceof ExplainError && e.output) io.stdout.write(e.output);
    // kubectl prints a name it cannot map without its `error: ` prefix.
    if (e instanceof NoResourceMatchError) {
      io.stderr.write(`${e.message}\n`);
      return 1;
    }
    throw e;
  } finally {
    await ctx.flush();
  }
  return 0;
}
