/**
 * `get`'s resource arguments, as kubectl's resource builder reads them (cli-runtime resource/builder.go
 * ResourceTypeOrNameArgs, normalizeMultipleResourcesArgs, hasCombinedTypeArgs, splitResourceTypeName,
 * SplitResourceArgument, ReplaceAliases, resourceMappings, resourceTupleMappings):
 * - `TYPE`, `TYPE1,TYPE2`, `CATEGORY` -> one request per type, de-duplicated by GVK;
 * - `TYPE NAME...` -> one request with the names (a single type only);
 * - `a,b x y` -> `a/x a/y b/x b/y`;
 * - `TYPE/NAME...` -> only when every argument has a slash; categories are not expanded there.
 */
import { UsageError } from '../core/errors.js';
import { NoResourceMatchError } from './errors.js';
import type { RESTMapper, ResourceMapping } from './types.js';

/**
 * Malformed `get` arguments (kubectl's resource builder errors, worded as kubectl's). A usage error
 * found before any request: exit 2 (kubectl exits 1).
 */
export class ResourceArgumentError extends UsageError {}

/** One unit of work for `get`: a resolved type and the names asked for ([] = list the collection). */
export interface GetRequest {
  readonly mapping: ResourceMapping;
  readonly names: readonly string[];
  /** The type as the user wrote it (after category expansion), for messages and re-resolution. */
  readonly arg: string;
}

export interface GetPlan {
  /** In kubectl's order: types in argument order (categories expanded in place), de-duplicated by GVK. */
  readonly requests: readonly GetRequest[];
  /** `TYPE NAME`/`TYPE/NAME` naming exactly one object: kubectl prints that object, not a List. */
  readonly singleItemImplied: boolean;
  /** Which argument form was used. */
  readonly form: 'types' | 'type-name';
}

/** Argument forms before any lookup. */
export type GetArgs =
  | { readonly form: 'types'; readonly types: string; readonly names: readonly string[] }
  | { readonly form: 'type-name'; readonly tuples: ReadonlyArray<{ readonly type: string; readonly name: string }> };

/**
 * kubectl's SplitResourceArgument: split at commas, drop repeats. Empty names are kept, as kubectl
 * keeps them (`get pods,` fails with `the server doesn't have a resource type ""`).
 */
export function splitResourceArgument(arg: string): string[] {
  const out: string[] = [];
  for (const s of arg.split(',')) if (!out.includes(s)) out.push(s);
  return out;
}

/** Pure: classifies the positional arguments. Throws ResourceArgumentError with kubectl's wording. */
export function parseGetArgs(args: readonly string[], command = 'kdyn'): GetArgs {
  if (args.length === 0) {
    // kubectl prints `You must specify the type of resource to get...` on stdout, then `error: Required resource not specified.`
    throw new ResourceArgumentError(`Required resource not specified. Use "${command} api-resources" for a complete list of supported resources.`);
  }
  let normalized: readonly string[] = args;
  if (args.length >= 2) {
    const types = splitResourceArgument(args[0]!);
    if (types.length > 1) normalized = types.flatMap((t) => args.slice(1).map((n) => `${t}/${n}`));
  }
  const slashes = normalized.filter((a) => a.includes('/')).length;
  if (slashes > 0 && slashes !== normalized.length) {
    throw new ResourceArgumentError(
      `there is no need to specify a resource type as a separate argument when passing arguments in resource/name form ` +
        `(e.g. '${command} get resource/<resource_name>' instead of '${command} get resource resource/<resource_name>'`,
    );
  }
  if (slashes > 0) {
    return {
      form: 'type-name',
      tuples: normalized.map((a) => {
        const seg = a.split('/');
        if (seg.length !== 2) throw new ResourceArgumentError('arguments in resource/name form may not have more than one slash');
        const [type, name] = seg as [string, string];
        if (!type || !name || splitResourceArgument(type).length !== 1) {
          throw new ResourceArgumentError('arguments in resource/name form must have a single resource and name');
        }
        return { type, name };
      }),
    };
  }
  return { form: 'types', types: normalized[0]!, names: normalized.slice(1) };
}

/**
 * Resolves `get`'s arguments into requests in kubectl's order. Every type is mapped before anything
 * is returned; the first unknown type throws (kubectl lists nothing then either).
 */
export async function resolveGetArgs(args: readonly string[], mapper: RESTMapper, command = 'kdyn'): Promise<GetPlan> {
  const parsed = parseGetArgs(args, command);
  if (parsed.form === 'type-name') {
    const mappings = new Map<string, ResourceMapping>();
    for (const { type } of parsed.tuples) {
      if (!mappings.has(type)) mappings.set(type, await mapper.resourceFor(type));
    }
    const requests: Array<{ mapping: ResourceMapping; names: string[]; arg: string }> = [];
    for (const { type, name } of parsed.tuples) {
      const mapping = mappings.get(type)!;
      const last = requests[requests.length - 1];
      // Consecutive names of the same resource share a request; order is kept, nothing is dropped.
      if (last && sameResource(last.mapping, mapping)) last.names.push(name);
      else requests.push({ mapping, names: [name], arg: type });
    }
    return { requests, singleItemImplied: parsed.tuples.length === 1, form: 'type-name' };
  }

  const types = await expandCategories(parsed.types, mapper);
  if (types.length === 0) throw new NoResourceMatchError(parsed.types, ''); // `get ,`: kubectl says the same
  if (parsed.names.length > 0 && types.length > 1) throw new ResourceArgumentError('you must specify only one resource');
  const requests: GetRequest[] = [];
  for (const type of types) {
    for (const { mapping, arg } of await resolveType(type, mapper)) {
      if (requests.some((r) => sameKind(r.mapping, mapping))) continue;
      requests.push({ mapping, names: parsed.names, arg });
    }
  }
  return { requests, singleItemImplied: parsed.names.length === 1, form: 'types' };
}

interface TypeRef {
  readonly type: string;
  /** True for what the user typed, false for a category's member. */
  readonly typed: boolean;
}

/** kubectl's ReplaceAliases then SplitResourceArgument. */
async function expandCategories(arg: string, mapper: RESTMapper): Promise<TypeRef[]> {
  const out: TypeRef[] = [];
  const seen = new Set<string>();
  for (const part of arg.split(',')) {
    // An empty name (`get pods,`) is kept, as kubectl keeps it, and fails in its turn (resolveType).
    const members = part ? await mapper.expandCategory(part) : undefined;
    for (const type of members ?? [part]) {
      if (seen.has(type)) continue;
      seen.add(type);
      out.push({ type, typed: !members });
    }
  }
  return out;
}

/**
 * Maps one type. A typed name that misses is looked up as a category once more: the miss made the
 * mapper refetch discovery, so a category a CRD created a moment ago is found (kubectl misses it).
 */
async function resolveType(ref: TypeRef, mapper: RESTMapper): Promise<Array<{ mapping: ResourceMapping; arg: string }>> {
  if (ref.type === '') throw new NoResourceMatchError('', ''); // kubectl: the server doesn't have a resource type ""
  try {
    return [{ mapping: await mapper.resourceFor(ref.type), arg: ref.type }];
  } catch (e) {
    if (!(e instanceof NoResourceMatchError) || !ref.typed) throw e;
    const members = await mapper.expandCategory(ref.type);
    if (!members) throw e;
    const out: Array<{ mapping: ResourceMapping; arg: string }> = [];
    for (const m of members) out.push({ mapping: await mapper.resourceFor(m), arg: m });
    return out;
  }
}

function sameKind(a: ResourceMapping, b: ResourceMapping): boolean {
  return a.gvk.group === b.gvk.group && a.gvk.version === b.gvk.version && a.gvk.kind === b.gvk.kind;
}

function sameResource(a: ResourceMapping, b: ResourceMapping): boolean {
  return a.gvr.group === b.gvr.group && a.gvr.version === b.gvr.version && a.gvr.resource === b.gvr.resource;
}
