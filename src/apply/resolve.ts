/**
 * From a manifest to where it goes: its kind mapped to a resource through the RESTMapper (each
 * group/version/kind once), then kubectl's namespace rules with that mapping's scope. A kind the
 * server does not serve yet but one of the input's CRDs declares resolves to that declaration (its
 * scope and plural), so namespace mistakes are found before anything is sent.
 */
import { KdynError } from '../core/errors.js';
import { parseGroupVersion } from '../core/gvk.js';
import type { Unstructured } from '../core/unstructured.js';
import type { RESTMapper, ResourceMapping } from '../restmapper/types.js';
import { NoKindMatchError, NoResourceMatchError } from '../restmapper/errors.js';
import { describeOrigin, ManifestError, type Manifest } from './manifests.js';
import { kindKey, placeNamespace, type DeclaredKind, type NamespaceRule } from './plan.js';

/** A manifest's kind maps to nothing on the server. */
export class MappingError extends KdynError {}

export interface Target {
  /** The object as it will be sent (namespace filled in or removed). */
  object: Unstructured;
  /** Its namespace (undefined: cluster-scoped). */
  namespace: string | undefined;
  /** The server's mapping, when the kind maps. */
  mapping?: ResourceMapping;
  /** Else the input's own CRD that declares the kind. */
  declared?: DeclaredKind;
}

export type Resolved = Target | { error: Error };

/** Maps kinds through the RESTMapper, each group/version/kind once (until `reset`). */
export class KindCache {
  #cache = new Map<string, Promise<ResourceMapping>>();
  constructor(private readonly mapper: RESTMapper) {}

  mapping(obj: Unstructured): Promise<ResourceMapping> {
    const apiVersion = String(obj.apiVersion);
    const kind = String(obj.kind);
    const key = `${apiVersion}/${kind}`;
    let p = this.#cache.get(key);
    if (!p) {
      const gv = parseGroupVersion(apiVersion);
      p = this.mapper.mappingForKind(gv.group, gv.version, kind);
      p.catch(() => undefined);
      this.#cache.set(key, p);
    }
    return p;
  }

  /** Forget every answer (after discovery was refreshed). */
  reset(): void {
    this.#cache.clear();
  }
}

/**
 * Resolves one manifest. A kind that maps to nothing and is not declared by the input gives
 * kubectl's `resource mapping not found ...` error; a namespace conflict with `-n` gives kubectl's
 * message. Other mapper errors (discovery unreachable) are thrown.
 */
export async function resolveManifest(m: Manifest, kinds: KindCache, declared: ReadonlyMap<string, DeclaredKind>, rule: NamespaceRule): Promise<Resolved> {
  let mapping: ResourceMapping | undefined;
  let decl: DeclaredKind | undefined;
  try {
    mapping = await kinds.mapping(m.object);
  } catch (e) {
    if (!(e instanceof NoKindMatchError || e instanceof NoResourceMatchError)) throw e;
    const gv = parseGroupVersion(String(m.object.apiVersion));
    decl = declared.get(kindKey(gv.group, String(m.object.kind)));
    if (!decl || !decl.versions.includes(gv.version)) return { error: mappingError(m, e) };
  }
  const placed = placeNamespace(m.object, mapping ? mapping.namespaced : decl!.namespaced, rule);
  if ('error' in placed) return { error: new KdynError(`${describeOrigin(m)}: ${placed.error}`) };
  return { object: placed.object, namespace: placed.namespace, ...(mapping ? { mapping } : { declared: decl }) };
}

/** kubectl's `CR/pkg/resource/mapper.go` wording, on one line, with an optional reason why. */
export function mappingError(m: Manifest, cause: Error, why = 'ensure CRDs are installed first'): MappingError {
  const ns = typeof m.object.metadata?.namespace === 'string' ? m.object.metadata.namespace : '';
  return new MappingError(
    `resource mapping not found for name: ${JSON.stringify(String(m.object.metadata?.name ?? ''))} namespace: ${JSON.stringify(ns)} from ${describeOrigin(m)}: ${cause.message}; ${why}`,
    { cause },
  );
}

/**
 * Resolves the given manifests (by index into `manifests`; all by default). A namespace conflict is
 * bad input: ManifestError naming every one, before anything is written. So is a kind that maps to
 * nothing and that no CRD of the input declares, unless `unmapped: 'keep'`: it then stays a
 * per-manifest error (MappingError).
 */
export async function resolveAll(
  manifests: readonly Manifest[],
  kinds: KindCache,
  declared: ReadonlyMap<string, DeclaredKind>,
  rule: NamespaceRule,
  indexes: readonly number[] = manifests.map((_, i) => i),
  unmapped: 'refuse' | 'keep' = 'refuse',
): Promise<Resolved[]> {
  const out: Resolved[] = [];
  await Promise.all(indexes.map(async (i) => (out[i] = await resolveManifest(manifests[i]!, kinds, declared, rule))));
  const bad = indexes.flatMap((i) => {
    const r = out[i]!;
    return 'error' in r && (unmapped === 'refuse' || !(r.error instanceof MappingError)) ? [r.error.message] : [];
  });
  if (bad.length) throw new ManifestError(bad);
  return out;
}
