/**
 * The part of a group-version's OpenAPI v3 document that explaining one resource reads: the paths
 * the template searches for the resource's kind, every component schema tagged with a kind those
 * paths name, and every schema those reach through `$ref`s. renderExplain gives the same text from it
 * as from the whole document (test/unit/explain/slim.test.ts), so it is what the cache keeps per
 * resource: a warm `explain pods` parses ~0.3 MB instead of the core group's 1.4 MB.
 */
import type { GroupVersionResource } from '../core/gvk.js';

type JsonMap = Record<string, unknown>;
const isMap = (v: unknown): v is JsonMap => typeof v === 'object' && v !== null && !Array.isArray(v);
const SCHEMA_REF = '#/components/schemas/';

/** The paths renderExplain searches for `gvr` (the same four, in its order). */
export function searchPaths(gvr: GroupVersionResource): string[] {
  const base = `${gvr.group ? `/apis/${gvr.group}` : '/api'}/${gvr.version}`;
  return [`${base}/${gvr.resource}`, `${base}/${gvr.resource}/{name}`, `${base}/namespaces/{namespace}/${gvr.resource}`, `${base}/namespaces/{namespace}/${gvr.resource}/{name}`];
}

/** A kind tag as a key independent of its keys' order (the template compares them as values). */
function tagKey(tag: unknown): string {
  return isMap(tag) ? JSON.stringify(Object.keys(tag).sort().map((k) => [k, tag[k]])) : JSON.stringify(tag);
}

/** Every `$ref` string inside `v`. */
function collectRefs(v: unknown, out: string[]): void {
  if (Array.isArray(v)) for (const x of v) collectRefs(x, out);
  else if (isMap(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string') out.push(x);
      else collectRefs(x, out);
    }
  }
}

/**
 * The slim document for `gvr`, or undefined when the document is not of the usual shape (a `$ref`
 * that does not point at a component schema: the whole document is used then).
 */
export function slimDocument(doc: unknown, gvr: GroupVersionResource): JsonMap | undefined {
  if (!isMap(doc)) return undefined;
  const allPaths = isMap(doc.paths) ? doc.paths : {};
  const schemas = isMap(doc.components) && isMap(doc.components.schemas) ? doc.components.schemas : {};
  const paths: JsonMap = {};
  const kinds: string[] = [];
  for (const p of searchPaths(gvr)) {
    if (!(p in allPaths)) continue;
    paths[p] = allPaths[p];
    const element = allPaths[p];
    if (isMap(element)) for (const op of Object.values(element)) if (isMap(op) && op['x-kubernetes-group-version-kind'] !== undefined) kinds.push(tagKey(op['x-kubernetes-group-version-kind']));
  }
  const wanted = new Set(kinds);
  const kept: JsonMap = {};
  const todo: string[] = [];
  for (const [name, s] of Object.entries(schemas)) {
    const tags = isMap(s) ? s['x-kubernetes-group-version-kind'] : undefined;
    if (Array.isArray(tags) && tags.some((t) => wanted.has(tagKey(t)))) todo.push(name);
  }
  while (todo.length) {
    const name = todo.pop()!;
    if (name in kept || !(name in schemas)) continue;
    kept[name] = schemas[name];
    const refs: string[] = [];
    collectRefs(schemas[name], refs);
    for (const ref of refs) {
      if (!ref.startsWith(SCHEMA_REF) || ref.slice(SCHEMA_REF.length).includes('/') || ref.includes('%') || ref.includes('~')) return undefined;
      todo.push(ref.slice(SCHEMA_REF.length));
    }
  }
  return { paths, components: { schemas: kept } };
}
