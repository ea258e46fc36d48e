/**
 * The two versions of one object as kubectl diff writes them (kubectl `pkg/cmd/diff/diff.go`,
 * `Differ.Diff`): the file name `group.version.Kind.namespace.name` (no `group.` for the core group),
 * managedFields removed unless asked for, a `v1` `Secret`'s `data` values masked (`***`, or
 * `*** (before)` / `*** (after)` where a key's value changes), each version as YAML (`-o yaml`'s
 * encoding). An absent live object is an empty file, except beside a Secret, where kubectl's masker
 * turns it into `null`. Pure.
 */
import { parseGroupVersion } from '../core/gvk.js';
import { withoutManagedFields, type Unstructured } from '../core/unstructured.js';
import { toYAML } from '../printers/yaml.js';

const MASK = '***';
const MASK_BEFORE = '*** (before)';
const MASK_AFTER = '*** (after)';

/** kubectl's file name of an object: `apps.v1.Deployment.ns.name`, `v1.Namespace..name`. */
export function diffFileName(apiVersion: string, kind: string, namespace: string | undefined, name: string): string {
  const { group, version } = parseGroupVersion(apiVersion);
  return `${group ? `${group}.` : ''}${version}.${kind}.${namespace ?? ''}.${name}`;
}

/** Whether kubectl masks this object: `v1` (of any group) and kind `Secret`, read from the merged object. */
export function isMaskedSecret(obj: Unstructured): boolean {
  return parseGroupVersion(String(obj.apiVersion ?? '')).version === 'v1' && obj.kind === 'Secret';
}

/**
 * kubectl's Masker: every `data` value becomes `***`; a key on both sides whose values differ
 * becomes `*** (before)` on the live side and `*** (after)` on the merged side, so the change shows.
 */
export function maskSecretData(live: Unstructured | null, merged: Unstructured): { live: Unstructured | null; merged: Unstructured } {
  const from = dataOf(live);
  const to = dataOf(merged);
  const maskedFrom: Record<string, unknown> | undefined = from ? {} : undefined;
  const maskedTo: Record<string, unknown> | undefined = to ? {} : undefined;
  for (const k of Object.keys(from ?? {})) {
    if (to && k in to) {
      if (from![k] !== to[k]) {
        maskedFrom![k] = MASK_BEFORE;
        maskedTo![k] = MASK_AFTER;
        continue;
      }
      maskedTo![k] = MASK;
    }
    maskedFrom![k] = MASK;
  }
  for (const k of Object.keys(to ?? {})) if (!from || !(k in from)) maskedTo![k] = MASK;
  return {
    live: live && maskedFrom ? { ...live, data: maskedFrom } : live,
    merged: maskedTo ? { ...merged, data: maskedTo } : merged,
  };
}

function dataOf(obj: Unstructured | null): Record<string, unknown> | undefined {
  const d = obj?.data;
  return d && typeof d === 'object' && !Array.isArray(d) ? (d as Record<string, unknown>) : undefined;
}

export interface VersionTexts {
  /** The LIVE file's content ('' for an absent object). */
  live: string;
  /** The MERGED file's content ('' for an object that would be deleted). */
  merged: string;
}

/** The two objects as kubectl writes them (managedFields removed, Secret data masked), before encoding. */
export interface PreparedVersions {
  live: Unstructured | null;
  merged: Unstructured | null;
  /** An absent live object beside a Secret: kubectl's masker writes `null`. */
  liveNull: boolean;
}

/**
 * The LIVE and MERGED objects of one object, as kubectl diff prepares them. `merged` null: the object
 * would be deleted (pruned): its live version alone, which kubectl prints as the server sent it, here
 * without managedFields and masked as any Secret.
 */
export function prepareVersions(live: Unstructured | null, merged: Unstructured | null, o: { showManagedFields?: boolean } = {}): PreparedVersions {
  let from = live && !o.showManagedFields ? withoutManagedFields(live) : live;
  let to = merged && !o.showManagedFields ? withoutManagedFields(merged) : merged;
  let liveNull = false;
  if (to && isMaskedSecret(to)) {
    ({ live: from, merged: to } = maskSecretData(from, to));
    liveNull = from === null;
  } else if (!to && from && isMaskedSecret(from)) {
    from = maskSecretData(null, from).merged;
  }
  return { live: from, merged: to, liveNull };
}

/** The LIVE and MERGED file contents. */
export function encodeVersions(v: PreparedVersions): VersionTexts {
  return { live: v.live ? toYAML(v.live) : v.liveNull ? 'null\n' : '', merged: v.merged ? toYAML(v.merged) : '' };
}

/** The LIVE and MERGED file contents of one object, as kubectl diff writes them. */
export function versionTexts(live: Unstructured | null, merged: Unstructured | null, o: { showManagedFields?: boolean } = {}): VersionTexts {
  return encodeVersions(prepareVersions(live, merged, o));
}

/**
 * Whether the two files differ, without encoding them when the objects are equal (equal objects
 * encode to equal YAML); `texts()` encodes once, on demand.
 */
export function compareVersions(v: PreparedVersions): { differs: boolean; texts: () => VersionTexts } {
  let texts: VersionTexts | undefined;
  const get = () => (texts ??= encodeVersions(v));
  const equal = v.live !== null && v.merged !== null && jsonEqual(v.live, v.merged);
  return { differs: !equal && get().live !== get().merged, texts: get };
}

/**
 * Whether two values are the same JSON, whatever the order of their objects' keys:
 * `canonicalJSON(a) === canonicalJSON(b)` without building either text (200 objects compared
 * twice made ~10 ms of garbage). As JSON.stringify: a key whose value is undefined is absent,
 * undefined in an array is null, so are NaN and the infinities.
 */
export function jsonEqual(x: unknown, y: unknown): boolean {
  // NaN and the infinities are JSON's null.
  const a = typeof x === 'number' && !Number.isFinite(x) ? null : x;
  const b = typeof y === 'number' && !Number.isFinite(y) ? null : y;
  if (a === b) return true;
  if (a === undefined || a === null || b === undefined || b === null) return false;
  // A value with its own JSON form (a Date from YAML): compared as that.
  if (typeof (a as { toJSON?: unknown }).toJSON === 'function' || typeof (b as { toJSON?: unknown }).toJSON === 'function') return canonicalJSON(a) === canonicalJSON(b);
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bs = b as unknown[];
    return a.length === bs.length && a.every((x, i) => jsonEqual(x ?? null, bs[i] ?? null));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = (o: Record<string, unknown>) => Object.keys(o).filter((k) => o[k] !== undefined);
  const ak = keys(ao);
  if (ak.length !== keys(bo).length) return false;
  return ak.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && jsonEqual(ao[k], bo[k]));
}

/** JSON with every object's keys sorted (equal values, equal text). */
export function canonicalJSON(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, (x as Record<string, unknown>)[k]])) : x)) ?? 'undefined';
}
