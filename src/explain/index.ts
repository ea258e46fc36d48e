/**
 * `explain` as a library call: `TYPE[.field.path]` -> the resource (through the RESTMapper, as
 * `kubectl explain` resolves it) -> its group-version's OpenAPI v3 document (src/openapi: the index
 * fetched each run, the document read from the disk cache while its hash is unchanged, as kubectl's
 * client does) -> kubectl v1.32's plaintext explanation (./render.ts).
 *
 * What is kept on disk next to the document, each valid only while the index names the same document
 * URL (hash), so never staler than the document: per resource, the part of the document explain reads
 * (./slim.ts), and per question (resource, field path, --recursive) the explanation itself. A warm run
 * reads that text and parses nothing; a new question is rendered from the resource's part.
 */
import { createHash } from 'node:crypto';
import { KdynError } from '../core/errors.js';
import type { GroupVersionResource } from '../core/gvk.js';
import { BUILD_ID } from '../core/version.js';
import { documentKey, type OpenApiV3 } from '../openapi/v3.js';
import type { RESTMapper } from '../restmapper/types.js';
import { resolveExplainTarget } from './argument.js';
import { ExplainError, gvrString, renderExplain } from './render.js';
import { slimDocument } from './slim.js';

export { ExplainError, renderExplain, type RenderInput } from './render.js';
export { resolveExplainTarget, type ExplainTarget } from './argument.js';

export interface ExplainDeps {
  mapper: RESTMapper;
  openapi: OpenApiV3;
}

export interface ExplainOptions {
  /** Every field below, nested, without descriptions (`--recursive`). */
  recursive?: boolean;
  /** Explain the resource in this group-version (`apps/v1`, `v1`) instead of the one it maps to. */
  apiVersion?: string;
}

/** apimachinery's schema.ParseGroupVersion: `v1`, `apps/v1`, or '' (none). */
export function parseGroupVersion(gv: string): { group: string; version: string } {
  if (gv === '' || gv === '/') return { group: '', version: '' };
  const parts = gv.split('/');
  if (parts.length === 1) return { group: '', version: gv };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  throw new KdynError(`unexpected GroupVersion string: ${gv}`);
}

/**
 * The explanation of a resource type or one of its fields, as `kubectl explain TYPE[.field.path]`
 * prints it (plaintext). Throws the RESTMapper's errors for an unknown type, and ExplainError (with
 * the output kubectl prints before it, in `output`) for an unknown field.
 */
export async function explain(deps: ExplainDeps, type: string, options: ExplainOptions = {}): Promise<string> {
  const apiVersion = options.apiVersion ? parseGroupVersion(options.apiVersion) : undefined;
  // The index is fetched on every run: asked for at once, while the name is resolved from discovery's
  // cache (a failure of either is reported in kubectl's order: the name first).
  const paths = deps.openapi.paths();
  paths.catch(() => undefined);
  const { mapping, fieldPath } = await resolveExplainTarget(deps.mapper, type, apiVersion !== undefined);
  const gvr: GroupVersionResource = apiVersion ? { ...mapping.gvr, ...apiVersion } : mapping.gvr;
  const gv = gvr.group ? `${gvr.group}/${gvr.version}` : gvr.version;
  const recursive = options.recursive === true;
  // Both kept files carry the build's id: a part or an explanation made by another kdyn is never read.
  const part = `explain-${gvr.resource.toLowerCase()}.${BUILD_ID}`;
  // The kept explanation is read while the index is in flight (it says whether that copy is current).
  const text = deps.openapi.kept(gv, `${part}.${questionName(fieldPath, recursive)}`, async () => {
    const document = await deps.openapi.derived(gv, part, (doc) => slimDocument(doc, gvr));
    return renderExplain({ document, gvr, fieldPath, recursive });
  });
  text.catch(() => undefined);
  if (!(await paths).has(documentKey(gv))) throw new ExplainError(`couldn't find resource for "${gvrString(gvr)}"`);
  return (await text)!;
}

/**
 * The file name part of one question about a resource: a digest of its field path and --recursive
 * (the build's id is in the part name before it, see explain).
 */
export function questionName(fieldPath: readonly string[], recursive: boolean): string {
  const digest = createHash('sha256').update(JSON.stringify([fieldPath, recursive])).digest('hex');
  return `q-${digest.slice(0, 24)}`;
}
