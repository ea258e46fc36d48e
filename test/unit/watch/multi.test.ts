// MultiWatch (src/watch/multi.ts), the loop behind `kdyn watch` and `get -w`, as a library user
// sees it, against the scripted server: the initial block, stop reasons, gone objects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MultiWatch, type MultiWatchEvent, type MultiWatchTarget } from '../../../src/watch/multi.js';
import type { Unstructured } from '../../../src/core/unstructured.js';
import { clientFor, cm, listPage, startScripted, stream, virtualClock } from './helpers.js';

const GVR = { group: '', version: 'v1', resource: 'configmaps' };

function target(url: string, clock: ReturnType<typeof virtualClock>): MultiWatchTarget {
  const handle = clientFor(url, clock).resource(GVR, { namespaced: true }).namespace('ns');
  return { handle, gk: { group: '', kind: 'ConfigMap' }, type: 'configmaps', resource: 'configmaps' };
}

const names = (batch: MultiWatchEvent[]) => batch.map((e) => `${e.type} ${(e.object as Unstructured).metadata?.name}`);

test('initial list as one batch, then one event a batch; maxEvents stops with done; gone() lists what was deleted', async () => {
  const s = await startScripted();
  try {
    const clock = virtualClock();
    s.answer(listPage([cm('a', 5), cm('b', 6)], 10), stream([{ type: 'MODIFIED', object: cm('a', 11) }, { type: 'DELETED', object: cm('b', 12) }], { hold: true }));
    const multi = new MultiWatch([target(s.url, clock)], { initialBlock: true, maxEvents: 4, trackGone: true, clock });
    const batches: string[][] = [];
    const r = await multi.run((events) => batches.push(names(events)));
    assert.deepEqual(batches, [['ADDED a', 'ADDED b'], ['MODIFIED a'], ['DELETED b']]);
    assert.equal(r.reason, 'done');
    assert.equal(r.error, undefined);
    const [src] = r.sources;
    assert.ok(src!.synced && src!.listed);
    assert.deepEqual(src!.objects().map((o) => o.metadata?.name), ['a']);
    assert.deepEqual(src!.gone().map((o) => o.metadata?.name), ['b']);
  } finally {
    await s.stop();
  }
});

test('until: checked once every target is synced; the first stop reason wins', async () => {
  const s = await startScripted();
  try {
    const clock = virtualClock();
    s.answer(listPage([cm('a', 5)], 10), stream([{ type: 'MODIFIED', object: cm('a', 11, { ready: 'yes' }) }], { hold: true }));
    const until = (sources: readonly { objects(): Unstructured[] }[]) => sources.every((x) => x.objects().every((o) => (o.data as Record<string, string>)?.ready === 'yes'));
    const multi = new MultiWatch([target(s.url, clock)], { until, clock });
    const seen: string[] = [];
    const r = await multi.run((events) => seen.push(...names(events)));
    assert.deepEqual(seen, ['ADDED a', 'MODIFIED a']);
    assert.equal(r.reason, 'done');
    assert.equal(multi.stop('SIGINT'), false, 'stopped already: the reason stays');
  } finally {
    await s.stop();
  }
});

test('stop() from outside: the caller\'s reason; checkOnce with nothing to wait for: timeout once synced', async () => {
  const s = await startScripted();
  try {
    const clock = virtualClock();
    s.answer(listPage([cm('a', 5)], 10), stream([], { hold: true }));
    const multi = new MultiWatch([target(s.url, clock)], { clock });
    const r = multi.run(() => setImmediate(() => multi.stop('SIGINT')));
    assert.equal((await r).reason, 'SIGINT');

    s.answer(listPage([cm('a', 5)], 10), stream([], { hold: true }));
    const once = new MultiWatch([target(s.url, clock)], { checkOnce: true, until: () => false, clock });
    assert.equal((await once.run(() => undefined)).reason, 'timeout');
  } finally {
    await s.stop();
  }
});
