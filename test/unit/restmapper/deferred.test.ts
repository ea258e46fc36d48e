import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DeferredRESTMapper } from '../../../src/restmapper/deferred.js';
import { NoKindMatchError, NoResourceMatchError } from '../../../src/restmapper/errors.js';
import type { CachedDiscovery, DiscoverySnapshot } from '../../../src/discovery/types.js';
import { snapshot, type G } from './snapshot.js';

const CORE: G = { name: '', versions: [['v1', [{ name: 'pods', kind: 'Pod', short: ['po'] }]]] };
const CRONTABS: G = { name: 'stable.example.com', versions: [['v1', [{ name: 'crontabs', kind: 'CronTab', short: ['ct'], cats: ['all'] }]]] };
const SHADOW: G = { name: 'shadow.example.com', versions: [['v1', [{ name: 'pods', kind: 'Pod', short: ['po'] }]]] };

/**
 * An in-memory CachedDiscovery with kubectl's semantics: answers from its "disk cache" (not fresh)
 * until invalidated, then from the "server" (fresh). Counts server fetches.
 */
class MemoryDiscovery implements CachedDiscovery {
  fetches = 0;
  #cached: DiscoverySnapshot | undefined;
  #fresh = false;
  #invalidated = false;
  failNext = false;
  constructor(
    public server: DiscoverySnapshot,
    cached?: DiscoverySnapshot,
  ) {
    this.#cached = cached;
  }
  async snapshot(): Promise<DiscoverySnapshot> {
    if (this.#cached && !this.#invalidated) return this.#cached;
    if (this.failNext) {
      this.failNext = false;
      throw new Error('connection refused');
    }
    this.fetches++;
    this.#cached = this.server;
    this.#fresh = true;
    this.#invalidated = false;
    return this.server;
  }
  invalidate(): void {
    this.#invalidated = true;
  }
  fresh(): boolean {
    return this.#fresh;
  }
}

function setup(server: G[], cache?: G[]) {
  const discovery = new MemoryDiscovery(snapshot(server), cache && snapshot(cache));
  const warnings: string[] = [];
  const mapper = new DeferredRESTMapper(discovery, { warn: (m) => warnings.push(m) });
  return { discovery, mapper, warnings };
}

describe('DeferredRESTMapper', () => {
  test('is built lazily, once', async () => {
    const { discovery, mapper } = setup([CORE]);
    assert.equal(discovery.fetches, 0);
    await mapper.resourceFor('pods');
    await mapper.resourceFor('po');
    await mapper.expandCategory('all');
    assert.equal(discovery.fetches, 1);
  });

  test('a CRD created after the cache was written is found with exactly one refetch', async () => {
    const { discovery, mapper } = setup([CORE, CRONTABS], [CORE]);
    assert.equal((await mapper.resourceFor('pods')).gvr.resource, 'pods');
    assert.equal(discovery.fetches, 0, 'a hit on the cache does not refetch');
    const ct = await mapper.resourceFor('ct');
    assert.deepEqual(ct.gvr, { group: 'stable.example.com', version: 'v1', resource: 'crontabs' });
    assert.equal(discovery.fetches, 1);
    await mapper.resourceFor('crontabs');
    assert.equal(discovery.fetches, 1, 'later lookups use the rebuilt mapper');
  });

  test('a category expanded from the cache is revalidated once: a CRD of that category created since is listed', async () => {
    const GADGETS: G = { name: 'nb.example.com', versions: [['v1', [{ name: 'gadgets', kind: 'Gadget', cats: ['all'] }]]] };
    const { discovery, mapper } = setup([CORE, CRONTABS, GADGETS], [CORE, CRONTABS]);
    assert.equal(await mapper.expandCategory('pods'), undefined);
    assert.equal(discovery.fetches, 0, 'a name that is no category costs nothing');
    const all = (await mapper.expandCategory('all'))!;
    assert.ok(all.some((m) => m.startsWith('gadgets')), all.join(' '));
    assert.equal(discovery.fetches, 1);
    await mapper.expandCategory('all');
    assert.equal(discovery.fetches, 1, 'fresh now: no second refetch');
  });

  test('a miss against fresh discovery does not refetch', async () => {
    const { discovery, mapper } = setup([CORE]);
    await assert.rejects(mapper.resourceFor('nosuch'), NoResourceMatchError);
    assert.equal(discovery.fetches, 1);
  });

  test('a miss that stays a miss costs one refetch and reports the unknown name', async () => {
    const { discovery, mapper } = setup([CORE], [CORE]);
    await assert.rejects(mapper.resourceFor('nosuch'), { message: 'the server doesn\'t have a resource type "nosuch"' });
    assert.equal(discovery.fetches, 1);
    await assert.rejects(mapper.resourceFor('nosuch2'), NoResourceMatchError);
    assert.equal(discovery.fetches, 1, 'fresh now: no second refetch');
  });

  test('manifest kinds retry the same way', async () => {
    const { discovery, mapper } = setup([CORE, CRONTABS], [CORE]);
    assert.equal((await mapper.mappingForKind('stable.example.com', 'v1', 'CronTab')).gvr.resource, 'crontabs');
    assert.equal(discovery.fetches, 1);
    await assert.rejects(mapper.mappingForKind('stable.example.com', 'v2', 'CronTab'), NoKindMatchError);
  });

  test('warnings come only from the answer returned', async () => {
    // The cached snapshot lacks `ct` entirely; the server has two resources claiming `po`.
    const { mapper, warnings } = setup([CORE, SHADOW, CRONTABS], [CORE, SHADOW]);
    await mapper.resourceFor('po');
    await mapper.resourceFor('ct');
    assert.deepEqual(warnings, ['short name "po" could also match lower priority resource pods.shadow.example.com']);
  });

  test('refresh(): a CRD deleted since the cache was written becomes an unknown name', async () => {
    const { discovery, mapper } = setup([CORE], [CORE, CRONTABS]);
    const stale = await mapper.resourceFor('crontabs');
    assert.equal(stale.gvr.group, 'stable.example.com', 'the stale cache still maps it');
    assert.equal(discovery.fetches, 0);
    // The caller saw a 404 on the collection: refresh and resolve again.
    await mapper.refresh();
    assert.equal(discovery.fetches, 1);
    await assert.rejects(mapper.resourceFor('crontabs'), NoResourceMatchError);
    assert.equal(discovery.fetches, 1);
  });

  test('refresh() keeps names that still exist', async () => {
    const { discovery, mapper } = setup([CORE], [CORE]);
    await mapper.refresh();
    assert.equal((await mapper.resourceFor('po')).gvr.resource, 'pods');
    assert.equal(discovery.fetches, 1);
  });

  test('a failed discovery read is not remembered', async () => {
    const { discovery, mapper } = setup([CORE]);
    discovery.failNext = true;
    await assert.rejects(mapper.resourceFor('pods'), /connection refused/);
    assert.equal((await mapper.resourceFor('pods')).gvr.resource, 'pods');
  });
});
