/**
 * `apply`'s printer: per object in input order, `kind.group/name serverside-applied` (or
 * `unchanged`, with ` (server dry run)`), `-o name`, `-o jsonl`; `-o json|yaml` print at the end, one
 * object as itself and several as kubectl apply's List (./applied-list.ts). managedFields are dropped unless
 * --show-managed-fields. A client dry run prints what would be sent: its text output is the requests
 * themselves, a YAML stream that `kdyn apply -f -` would read back.
 */
import type { IO } from '../core/io.js';
import type { Unstructured } from '../core/unstructured.js';
import type { AppliedObject, ApplyOutput, ApplyPrintContext, ApplyPrinter } from './types.js';
import { appliedDocument } from './applied-list.js';

export async function createApplyPrinter(o: ApplyOutput, ctx: ApplyPrintContext, io: IO): Promise<ApplyPrinter> {
  const whole = o.format === 'json' || o.format === 'yaml' ? await appliedDocument(o.format) : undefined;
  const toYAML = ctx.clientDryRun && o.format === 'text' ? (await import('./yaml.js')).toYAML : undefined;
  const held: Unstructured[] = [];
  const dry = ctx.serverDryRun ? ' (server dry run)' : '';
  return {
    page(results) {
      if (toYAML) {
        io.stdout.write(results.map((r) => requestDocument(r.request!, toYAML(r.object))).join('---\n'));
        return;
      }
      let out = '';
      for (const { ref, unchanged, object } of results) {
        if (!ctx.clientDryRun && !o.showManagedFields && object.metadata?.managedFields !== undefined) delete object.metadata.managedFields;
        if (whole) held.push(object);
        else if (o.format === 'name') out += `${ref}\n`;
        else if (o.format === 'jsonl') out += JSON.stringify(object) + '\n';
        else out += `${ref} ${unchanged ? 'unchanged' : 'serverside-applied'}${dry}\n`;
      }
      if (out) io.stdout.write(out);
    },
    end() {
      if (whole && held.length > 0) io.stdout.write(whole(held));
    },
  };
}

/**
 * One request of a client dry run as a YAML document: `# PATCH PATH?QUERY`, then the body as YAML
 * (`where` before the method: the fleet's `context "east": `).
 */
export function requestDocument(request: NonNullable<AppliedObject['request']>, yaml: string, where = ''): string {
  return `# ${where}${request.method} ${request.path}?${new URLSearchParams(request.query).toString()}\n${yaml}`;
}
