/**
 * `kdyn applyset [RESOURCE[.GROUP]/]NAME`: the members of an ApplySet (../../applyset/run.ts
 * readApplySet), as a table (NAMESPACE, NAME), `-o name`, or a List (`-o json|yaml`). The set's
 * parent, ID and tooling go to stderr first, so stdout stays the members alone.
 */
import type { ParsedArgs } from '../command-types.js';
import type { Context } from '../context.js';
import type { IO } from '../../core/io.js';
import { readApplySet } from '../../applyset/run.js';
import { memberRef } from '../../applyset/prune.js';
import { formatColumns } from '../../printers/columns.js';

export async function run(args: ParsedArgs, ctx: Context, io: IO): Promise<number> {
  const output = typeof args.flags.output === 'string' ? args.flags.output : '';
  await ctx.preconnect();
  const [mapper, client] = await Promise.all([ctx.mapper(), ctx.dynamic()]);
  // As apply: the parent's namespace is -n, else the context's.
  const set = await readApplySet({ client, mapper }, { parent: args.args[0]!, parentNamespace: await ctx.namespace() });
  if (output === 'json' || output === 'yaml') {
    const list = { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items: set.members.map((m) => m.object) };
    for (const o of list.items) delete o.metadata?.managedFields;
    io.stdout.write(output === 'json' ? JSON.stringify(list, null, 4) + '\n' : (await import('../../printers/yaml.js')).toYAML(list));
    return 0;
  }
  if (output === 'name') {
    io.stdout.write(set.members.map((m) => `${memberRef(m)}\n`).join(''));
    return 0;
  }
  const where = set.parent.namespace ? ` in namespace ${set.parent.namespace}` : '';
  io.stderr.write(`ApplySet ${set.parent.ref}${where} (${set.parent.id}), tooling ${set.tooling || '(none)'}: ${set.members.length} member${set.members.length === 1 ? '' : 's'}\n`);
  if (set.members.length > 0) io.stdout.write(formatColumns([['NAMESPACE', 'NAME'], ...set.members.map((m) => [m.namespace, memberRef(m)])]));
  return 0;
}
