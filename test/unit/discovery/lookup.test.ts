/**
 * CachedDiscovery.lookup(): answers one name from the combined file's index only where snapshot()
 * would answer from the combined file alone (within the TTL, kubectl's layout not newer, nothing
 * invalidated), never asks the server, and shares its read with the snapshot() that may follow.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { startHarness, type Harness } from './harness.js';

describe('CachedDiscovery.lookup', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ discovery: 'aggregated' });
    const d = h.discovery();
    await d.snapshot();
    await d.flush();
  });
  after(() => h.close());

  test('warm: only the groups serving the name, no requests; snapshot() afterwards still complete', async () => {
    h.server.clearLog();
    const d = h.discovery();
    const part = (await d.lookup!('deploy'))!;
    assert.deepEqual(part.groups.map((g) => g.name), ['apps']);
    assert.ok(part.resources.get('apps/v1')!.some((r) => r.name === 'deployments/scale'));
    assert.deepEqual((await d.lookup!('no-such-name'))!.groups, []);
    const full = await d.snapshot();
    assert.ok(full.groups.length > 1);
    assert.deepEqual(h.discoveryRequests(), []);
    // Once a snapshot is held, lookups defer to it.
    assert.equal(await d.lookup!('deploy'), undefined);
  });

  test('expired TTL, --cache-ttl 0, or after invalidate(): undefined (the full path decides)', async () => {
    h.server.clearLog();
    const p = (await h.discovery().paths())!;
    const old = Date.now() / 1000 - 3600;
    const text = readFileSync(p.combinedFile, 'utf8');
    try {
      utimesSync(p.combinedFile, old, old);
      assert.equal(await h.discovery().lookup!('pods'), undefined);
    } finally {
      writeFileSync(p.combinedFile, text);
    }
    assert.ok(await h.discovery().lookup!('pods'));
    assert.equal(await h.discovery({ ttlMs: 0 }).lookup!('pods'), undefined);
    const d = h.discovery();
    d.invalidate();
    assert.equal(await d.lookup!('pods'), undefined);
    assert.deepEqual(h.discoveryRequests(), []);
  });

  test("kubectl's servergroups.json newer than the combined file: answers when it lists the same groups, else undefined", async () => {
    const p = (await h.discovery().paths())!;
    const original = readFileSync(p.serverGroupsFile, 'utf8');
    const future = Date.now() / 1000 + 5;
    try {
      utimesSync(p.serverGroupsFile, future, future);
      assert.ok(await h.discovery().lookup!('pods'), 'the same bytes: kubectl refreshed an unchanged group list');
      const doc = JSON.parse(original) as { groups: unknown[] };
      doc.groups.pop();
      writeFileSync(p.serverGroupsFile, JSON.stringify(doc));
      utimesSync(p.serverGroupsFile, future, future);
      assert.equal(await h.discovery().lookup!('pods'), undefined, 'another group list: the full path decides');
    } finally {
      writeFileSync(p.serverGroupsFile, original);
      const now = Date.now() / 1000 - 5;
      utimesSync(p.serverGroupsFile, now, now);
    }
    assert.ok(await h.discovery().lookup!('pods'));
  });
});
