/**
 * `kdyn explain`'s argument, `TYPE[.field.path]`, read as kubectl v1.32 reads it (kubectl
 * pkg/explain/explain.go): as the JSONPath `{.ARG}` whose nodes must all be fields (so
 * `pods.spec['containers']` works), the first naming the resource type. Without --api-version
 * (SplitAndParseResourceRequestWithMatchingPrefix) every resource that name maps to is tried in
 * priority order, and the first whose `resource.group` the argument starts with takes the rest as the
 * field path (`crontabs.stable.example.com.spec`); else the highest-priority one takes every node
 * after the first (so `deploy.apps` explains the field `apps` of deployments, as kubectl does). With
 * --api-version (SplitAndParseResourceRequest) the highest-priority resource, and every node after the first.
 */
import { KdynError } from '../core/errors.js';
import { groupResource } from '../core/gvk.js';
import { JSONPathSyntaxError, parseTemplate, type JPNode } from '../jsonpath/parse.js';
import type { RESTMapper, ResourceMapping } from '../restmapper/types.js';

export interface ExplainTarget {
  mapping: ResourceMapping;
  fieldPath: string[];
}

const FIRST_FIELD = 'invalid jsonpath syntax, first node must be field node';

/** kubectl's jsonPathParse: the nodes of `{.in}` (a trailing dot dropped). */
function jsonPathNodes(input: string): JPNode[] {
  const text = `{.${input.endsWith('.') ? input.slice(0, -1) : input}}`;
  let root;
  try {
    root = parseTemplate(text);
  } catch (e) {
    if (e instanceof JSONPathSyntaxError) throw new KdynError(e.message);
    throw e;
  }
  if (root.nodes.length !== 1 || root.nodes[0]!.t !== 'list') throw new KdynError('must pass in 1 jsonpath string');
  return root.nodes[0].nodes;
}

function fieldNames(nodes: readonly JPNode[], message: string): string[] {
  return nodes.map((n) => {
    if (n.t !== 'field') throw new KdynError(message);
    return n.name;
  });
}

/** Resolves `TYPE[.field.path]` to a resource and the fields below it. */
export async function resolveExplainTarget(mapper: RESTMapper, input: string, withApiVersion: boolean): Promise<ExplainTarget> {
  const nodes = jsonPathNodes(input);
  const first = nodes[0];
  if (!first || first.t !== 'field') throw new KdynError(FIRST_FIELD);
  const mappings = await mapper.resourcesFor(first.name);
  if (withApiVersion) return { mapping: mappings[0]!, fieldPath: fieldNames(nodes.slice(1), 'invalid jsonpath syntax, all nodes must be field nodes') };
  for (const mapping of mappings) {
    const gr = groupResource(mapping.gvr.resource, mapping.gvr.group);
    if (!input.startsWith(gr)) continue;
    const suffix = input.slice(gr.length);
    return { mapping, fieldPath: suffix ? fieldNames(jsonPathNodes(suffix).slice(1), FIRST_FIELD) : [] };
  }
  return { mapping: mappings[0]!, fieldPath: fieldNames(jsonPathNodes(input).slice(1), FIRST_FIELD) };
}
