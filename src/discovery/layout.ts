/**
 * kubectl's on-disk discovery layout under `<root>/discovery/<host>/`: reading what kubectl (or kdyn)
 * wrote, and writing it so that kubectl can read it. Only validated group/version names become paths.
 */
import type { DiscoverySnapshot, APIResource } from './types.js';
import { relative } from 'node:path';
import { createHash } from 'node:crypto';
import { serverResourcesFile } from './cache-dir.js';
import type { DiskStore } from './disk.js';
import { formatAPIGroupList, formatAPIResourceList, parseAPIGroupList, parseAPIResourceList } from './legacy.js';
import { isSafeGroupName, isSafeGroupVersion } from './names.js';

export interface LayoutRead {
  /** Groups from servergroups.json, with the resources of every group-version whose file was usable. */
  snapshot: DiscoverySnapshot;
  /** Group-versions listed in servergroups.json whose file is missing, expired, corrupt or wrongly typed. */
  missing: Array<{ group: string; version: string }>;
  serverGroupsMtimeMs: number;
  /** layoutDigest of servergroups.json as read. */
  serverGroupsDigest: string;
}

/** servergroups.json's content for a snapshot's groups, as kdyn writes it (only validated group names). */
export function serverGroupsText(groups: DiscoverySnapshot['groups']): string {
  return formatAPIGroupList(groups.filter((g) => isSafeGroupName(g.name)));
}

/** A digest of servergroups.json's bytes: equal digests mean kubectl rewrote the same group list. */
export function layoutDigest(serverGroupsJson: string): string {
  return createHash('sha256').update(serverGroupsJson).digest('base64');
}

/**
 * Reads servergroups.json and every serverresources.json it names. `withinTtl(mtimeMs)` decides expiry
 * (always true for `--cached`). Undefined when servergroups.json is missing, expired or invalid.
 */
export async function readLayout(store: DiskStore, kubectlDir: string, serverGroupsFile: string, withinTtl: (mtimeMs: number) => boolean): Promise<LayoutRead | undefined> {
  const sg = await store.read(serverGroupsFile);
  if (!sg || !withinTtl(sg.mtimeMs)) return undefined;
  let groups;
  try {
    groups = parseAPIGroupList(JSON.parse(sg.text));
  } catch {
    return undefined;
  }
  groups = groups.filter((g) => isSafeGroupName(g.name));
  for (const g of groups) {
    g.versions = g.versions.filter((v) => isSafeGroupVersion(g.name, v));
    if (!g.versions.includes(g.preferredVersion)) g.preferredVersion = g.versions[0] ?? '';
  }
  const snapshot: DiscoverySnapshot = { groups, resources: new Map(), failures: [] };
  const missing: LayoutRead['missing'] = [];
  const gvs = groups.flatMap((g) => g.versions.map((version) => ({ group: g.name, version })));
  const lists = await Promise.all(
    gvs.map(async ({ group, version }) => {
      const f = await store.read(serverResourcesFile(kubectlDir, group, version));
      if (!f || !withinTtl(f.mtimeMs)) return undefined;
      try {
        return parseAPIResourceList(JSON.parse(f.text), group, version);
      } catch {
        return undefined;
      }
    }),
  );
  gvs.forEach((gv, i) => {
    const list = lists[i];
    if (list) snapshot.resources.set(gv.group ? `${gv.group}/${gv.version}` : gv.version, list);
    else missing.push(gv);
  });
  return { snapshot, missing, serverGroupsMtimeMs: sg.mtimeMs, serverGroupsDigest: layoutDigest(sg.text) };
}

/** One file of kubectl's layout, relative to `<root>/discovery/<host>`. */
export interface LayoutFile {
  rel: string;
  data: string;
}

/**
 * The files of kubectl's layout for a snapshot: one serverresources.json per group-version (resources
 * of failed GVs are not written: errors are never cached), then servergroups.json (last, so a layout is
 * never newer than its index). Files whose content equals `previous` are left out. Only validated
 * group/version names become paths.
 */
export function layoutFiles(kubectlDir: string, s: DiscoverySnapshot, previous?: DiscoverySnapshot, writeServerGroups = true): LayoutFile[] {
  const files: LayoutFile[] = [];
  for (const [gv, list] of s.resources) {
    if (list.length === 0) continue; // empty answers are never cached
    const i = gv.indexOf('/');
    const group = i < 0 ? '' : gv.slice(0, i);
    const version = i < 0 ? gv : gv.slice(i + 1);
    if (!isSafeGroupVersion(group, version)) continue;
    const prev = previous?.resources.get(gv);
    if (prev && sameResources(prev, list)) continue;
    files.push({ rel: relative(kubectlDir, serverResourcesFile(kubectlDir, group, version)), data: formatAPIResourceList(gv, list) });
  }
  if (writeServerGroups) {
    files.push({ rel: 'servergroups.json', data: serverGroupsText(s.groups) });
  }
  return files;
}

/**
 * Writes `layoutFiles(...)` (see there), synchronously (see DiskStore); `stampMs` dates every file.
 */
export function writeLayout(
  store: DiskStore,
  kubectlDir: string,
  s: DiscoverySnapshot,
  previous?: DiscoverySnapshot,
  writeServerGroups = true,
  stampMs?: number,
): boolean {
  return store.writeTreeSync(kubectlDir, layoutFiles(kubectlDir, s, previous, writeServerGroups), stampMs);
}

function sameResources(a: readonly APIResource[], b: readonly APIResource[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.name !== y.name || x.kind !== y.kind || x.namespaced !== y.namespaced || x.singularName !== y.singularName) return false;
    if (x.kindGroup !== y.kindGroup || x.kindVersion !== y.kindVersion) return false;
    if (x.verbs.join(',') !== y.verbs.join(',') || x.shortNames.join(',') !== y.shortNames.join(',') || x.categories.join(',') !== y.categories.join(',')) return false;
  }
  return true;
}
