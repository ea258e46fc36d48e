/**
 * Which group and version names from a server may be used in URLs and cache paths. Pure.
 * Group: a DNS subdomain ('' for core); version: a DNS label. Anything else (`/`, `..`, NUL,
 * upper case, over-long) is refused, so no server answer can steer a path outside the cache root.
 */
import type { DiscoveryFailure, DiscoverySnapshot } from './types.js';

const LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const GROUP_RE = new RegExp(`^${LABEL}(\\.${LABEL})*$`);
const VERSION_RE = new RegExp(`^${LABEL}$`);

export function isSafeGroupName(group: string): boolean {
  return group === '' || (group.length <= 253 && GROUP_RE.test(group));
}

export function isSafeVersionName(version: string): boolean {
  return version.length <= 63 && VERSION_RE.test(version);
}

export function isSafeGroupVersion(group: string, version: string): boolean {
  return isSafeGroupName(group) && isSafeVersionName(version);
}

/** A printable form of a hostile name for messages (control characters escaped, length capped). */
export function printable(name: string): string {
  const s = JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}...` : name);
  return s.slice(1, -1);
}

export function invalidNameFailure(group: string, version: string): DiscoveryFailure {
  const gv = group ? `${printable(group)}/${printable(version)}` : printable(version);
  return { groupVersion: gv, reason: 'failed', message: `ignoring group-version ${JSON.stringify(gv)} from the server: not a valid group/version name` };
}

/** Drops groups and versions whose names are unsafe, reporting each as a failure. Returns a new snapshot. */
export function dropUnsafeNames(s: DiscoverySnapshot): DiscoverySnapshot {
  const out: DiscoverySnapshot = { groups: [], resources: new Map(), failures: [] };
  const dropped = new Set<string>();
  for (const g of s.groups) {
    if (!isSafeGroupName(g.name)) {
      for (const v of g.versions.length ? g.versions : ['']) out.failures.push(invalidNameFailure(g.name, v));
      for (const v of g.versions) dropped.add(g.name ? `${g.name}/${v}` : v);
      continue;
    }
    const versions = g.versions.filter((v) => {
      if (isSafeVersionName(v)) return true;
      out.failures.push(invalidNameFailure(g.name, v));
      dropped.add(g.name ? `${g.name}/${v}` : v);
      return false;
    });
    const preferredVersion = versions.includes(g.preferredVersion) ? g.preferredVersion : (versions[0] ?? '');
    out.groups.push({ name: g.name, versions, preferredVersion });
  }
  for (const [gv, list] of s.resources) if (!dropped.has(gv)) out.resources.set(gv, list);
  for (const f of s.failures) {
    const i = f.groupVersion.indexOf('/');
    const [g, v] = i < 0 ? ['', f.groupVersion] : [f.groupVersion.slice(0, i), f.groupVersion.slice(i + 1)];
    if (isSafeGroupVersion(g, v)) out.failures.push(f);
  }
  return out;
}
