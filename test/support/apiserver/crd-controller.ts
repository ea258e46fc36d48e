/**
 * What apiextensions-apiserver's controllers do for CustomResourceDefinitions: validate names,
 * establish a new CRD (NamesAccepted + Established, acceptedNames) after a configurable delay and
 * tell the Catalog; on delete, remove every instance (watches see them DELETED), end the resource's
 * watch streams (its storage is gone) and tell the Catalog.
 */
import type { Clock } from './clock.js';
import type { Catalog, Obj } from './types.js';
import type { Store } from './storage.js';
import type { Target } from './objects.js';
import type { Watches } from './watch.js';
import { invalidError } from './objects.js';
import { normalizeForStorage, rfc3339 } from './meta.js';
import { updateManagedFields } from './managed-fields.js';

const GROUP = 'apiextensions.k8s.io';
const RESOURCE = 'customresourcedefinitions';

export interface CrdControllerOptions {
  store: Store;
  catalog: Catalog;
  clock: Clock;
  establishDelayMs: number;
  /** The open watch streams: those of a deleted CRD's resource end. */
  watches?: Pick<Watches, 'closeResource'>;
}

export class CrdController {
  private pending = new Map<string, AbortController>();

  constructor(private readonly o: CrdControllerOptions) {}

  /** 422 for the mistakes the real validation rejects most often. */
  validate(crd: Obj, t: Target): void {
    const spec = crd.spec ?? {};
    const names = spec.names ?? {};
    const name = String(crd.metadata?.name ?? '');
    const fail = (field: string, reason: string, message: string) => invalidError(t, 'CustomResourceDefinition', name, field, reason, message);
    if (!spec.group) throw fail('spec.group', 'FieldValueRequired', 'Required value');
    if (!names.plural) throw fail('spec.names.plural', 'FieldValueRequired', 'Required value');
    if (!names.kind) throw fail('spec.names.kind', 'FieldValueRequired', 'Required value');
    if (name !== `${names.plural}.${spec.group}`) throw fail('metadata.name', 'FieldValueInvalid', `Invalid value: "${name}": must be spec.names.plural+"."+spec.group`);
    if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') throw fail('spec.scope', 'FieldValueNotSupported', `Unsupported value: "${spec.scope ?? ''}": supported values: "Cluster", "Namespaced"`);
    const versions: Obj[] = spec.versions ?? [];
    if (!versions.length) throw fail('spec.versions', 'FieldValueInvalid', 'Invalid value: null: must have exactly one version marked as storage version');
    if (versions.filter((v) => v.storage).length !== 1) throw fail('spec.versions', 'FieldValueInvalid', `Invalid value: ${JSON.stringify(versions.map((v) => v.name))}: must have exactly one version marked as storage version`);
  }

  /** A stored CRD was created: establish it now or after the delay. */
  created(crd: Obj): void {
    const name = crd.metadata.name;
    if (this.o.establishDelayMs <= 0) {
      this.establish(name);
      return;
    }
    const ac = new AbortController();
    this.pending.set(name, ac);
    this.o.clock.sleep(this.o.establishDelayMs, ac.signal).then(
      () => {
        this.pending.delete(name);
        this.establish(name);
      },
      () => {},
    );
  }

  /** A stored CRD changed: if established, the Catalog serves the new spec. */
  updated(crd: Obj): void {
    if (isEstablished(crd)) this.o.catalog.crdChanged(crd, false);
  }

  /** A CRD was removed from storage: drop its instances and its discovery. */
  deleted(crd: Obj): void {
    this.pending.get(crd.metadata.name)?.abort();
    this.pending.delete(crd.metadata.name);
    this.o.store.deleteAll(crd.spec.group, crd.spec.names.plural);
    this.o.watches?.closeResource(crd.spec.group, crd.spec.names.plural);
    this.o.catalog.crdChanged(crd, true);
  }

  /** The CRD as a DELETE answers it (recording 48): terminating, with the cleanup finalizer. */
  terminatingView(crd: Obj, now: string): Obj {
    const conditions = [...(crd.status?.conditions ?? [])];
    conditions.push({
      type: 'Terminating',
      status: 'True',
      lastTransitionTime: now,
      reason: 'InstanceDeletionPending',
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    });
    return {
      ...crd,
      metadata: { ...crd.metadata, deletionTimestamp: now, finalizers: ['customresourcecleanup.apiextensions.k8s.io'] },
      status: { ...crd.status, conditions },
    };
  }

  /** Establishes a stored CRD now (also used by seeding, which skips the delay). */
  establish(name: string): Obj | undefined {
    const { store, catalog, clock } = this.o;
    const cur = store.get(GROUP, RESOURCE, '', name);
    if (!cur || isEstablished(cur)) return cur;
    const now = rfc3339(clock.now());
    const names = cur.spec.names;
    const acceptedNames: Obj = { plural: names.plural, singular: names.singular ?? String(names.kind).toLowerCase() };
    if (names.shortNames?.length) acceptedNames.shortNames = names.shortNames;
    acceptedNames.kind = names.kind;
    acceptedNames.listKind = names.listKind ?? `${names.kind}List`;
    if (names.categories?.length) acceptedNames.categories = names.categories;
    const next: Obj = structuredClone(cur);
    next.status = {
      conditions: [
        { type: 'NamesAccepted', status: 'True', lastTransitionTime: now, reason: 'NoConflicts', message: 'no conflicts found' },
        { type: 'Established', status: 'True', lastTransitionTime: now, reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
      ],
      acceptedNames,
      storedVersions: cur.status?.storedVersions?.length ? cur.status.storedVersions : [(cur.spec.versions ?? []).find((v: Obj) => v.storage)?.name].filter(Boolean),
    };
    next.metadata.managedFields = updateManagedFields(cur, next, {
      manager: 'kube-apiserver',
      apiVersion: `${GROUP}/v1`,
      time: now,
      subresource: 'status',
      custom: false,
    });
    const stored = store.update(GROUP, RESOURCE, normalizeForStorage(next, { group: GROUP } as never));
    catalog.crdChanged(stored, false);
    return stored;
  }

  stop(): void {
    for (const ac of this.pending.values()) ac.abort();
    this.pending.clear();
  }
}

export function isEstablished(crd: Obj): boolean {
  return (crd.status?.conditions ?? []).some((c: Obj) => c.type === 'Established' && c.status === 'True');
}
