/** What the controller example must have done, on whichever server it ran (test/support/controller-example.ts). */
import assert from 'node:assert/strict';
import type { ControllerRun } from './controller-example.js';

export function assertControllerRun(r: ControllerRun, ns: string): void {
  assert.equal(r.run.code, 0, `the controller exited ${r.run.code}: ${r.run.err}; printed: ${r.run.out}`);
  assert.equal(r.run.err, '', 'no reconcile errors');
  const lines = r.run.out.trim().split('\n');
  assert.equal(lines[0], 'synced 2 notes');
  assert.equal(lines.at(-1), 'stopped', 'SIGTERM: drained, then stopped');
  // Each generation of each Note reconciled once: the controller's own status patch (an update)
  // does not bring the Note back (the guard on status.observedGeneration).
  const reconciled = lines.filter((l) => l.startsWith('reconciled ')).sort();
  assert.deepEqual(reconciled, [`reconciled ${ns}/n1 generation 1`, `reconciled ${ns}/n1 generation 2`, `reconciled ${ns}/n2 generation 1`, `reconciled ${ns}/n3 generation 1`], 'reconciles, each once');
  const texts = Object.fromEntries([...r.configMaps].map(([name, c]) => [name, c.text]));
  assert.deepEqual(texts, { 'n1-note': 'changed', 'n2-note': 'world', 'n3-note': 'new' });
  for (const note of r.notes) {
    const m = note.metadata!;
    const status = note.status as { configMap?: string; observedGeneration?: number } | undefined;
    assert.deepEqual(status, { configMap: `${m.name}-note`, observedGeneration: m.generation }, `${ns}/${m.name}'s status`);
    assert.equal(r.configMaps.get(`${m.name}-note`)?.owner, m.uid, `${m.name}-note is owned by its Note`);
  }
  assert.equal(r.notes.length, 3);
}
