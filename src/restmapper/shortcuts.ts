/**
 * Short-name expansion, as client-go restmapper/shortcut.go expandResourceShortcut:
 * 1. a name that is some resource's plural or served singular (in the requested group, if any) is left alone;
 * 2. otherwise the first short-name match in discovery order wins, and every other resource claiming
 *    that short name gets a warning `short name "x" could also match lower priority resource r.g`;
 * 3. otherwise, with a group given, a short name in a group that starts with it (`cj.bat`).
 * Pure: warnings are appended to the caller's array.
 */
import type { Catalog, Hit } from './catalog.js';
import { groupResource } from '../core/gvk.js';

export interface PartialResource {
  /** '' = any group. */
  readonly group: string;
  /** '' = any version. */
  readonly version: string;
  /** Lowercased. */
  readonly resource: string;
}

export function expandShortcut(catalog: Catalog, input: PartialResource, warnings: string[]): PartialResource {
  if (isExactName(catalog, input)) return input;

  const candidates = catalog.shortcuts.get(input.resource);
  if (!candidates) return input;

  let found: Hit | undefined;
  const warned = new Set<string>();
  for (const c of candidates) {
    if (input.group && c.gv.group !== input.group) continue;
    if (!found) {
      found = c;
      continue;
    }
    // The same group/resource in another version is not an ambiguity.
    if (c.gv.group === found.gv.group && c.res.name === found.res.name) continue;
    const gr = groupResource(c.res.name, c.gv.group);
    if (!warned.has(gr)) {
      warned.add(gr);
      warnings.push(`short name "${input.resource}" could also match lower priority resource ${gr}`);
    }
  }
  // client-go drops the version here (`deploy.v1beta1.apps` would resolve to apps/v1); kdyn keeps it,
  // so an explicit version is honoured or reported as missing.
  if (found) return { group: found.gv.group, version: input.version, resource: found.res.name.toLowerCase() };

  if (!input.group) return input;
  for (const c of candidates) {
    if (c.gv.group.startsWith(input.group)) return { group: c.gv.group, version: input.version, resource: c.res.name.toLowerCase() };
  }
  return input;
}

/** shortcut.go's "exact match to a full resource name": a plural or *served* singular, in the group if one is given. */
function isExactName(catalog: Catalog, input: PartialResource): boolean {
  for (const h of catalog.byName(input.resource)) {
    if (input.group && h.gv.group !== input.group) continue;
    if (h.res.name.toLowerCase() === input.resource || h.res.singularName.toLowerCase() === input.resource) return true;
  }
  return false;
}
