/**
 * The live view driven by events, connection hooks and keys on a virtual terminal
 * (test/support/vt.ts) and a fake clock: the screen shows the current objects sorted, with the
 * header's counts and connection state; changed rows are marked and deleted rows dimmed until their
 * time is up; frames are throttled; resizes redraw; the screen is given back on close.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Table } from '../../../src/core/table.js';
import { FakeClock } from '../../../src/core/clock.js';
import type { Screen } from '../../../src/core/screen.js';
import { LiveView, type LiveViewOptions } from '../../../src/live/view.js';
import { createSorter } from '../../../src/printers/sort.js';
import { VirtualTerminal } from '../../support/vt.js';

const columns = [
  { name: 'Name', type: 'string', format: 'name', priority: 0 },
  { name: 'Data', type: 'integer', format: '', priority: 0 },
];
const gk = { group: '', kind: 'ConfigMap' };

function row(name: string, data: number, extra: Record<string, unknown> = {}): Table {
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: {}, columnDefinitions: columns, rows: [{ cells: [name, data], object: { metadata: { name, namespace: 'ns', ...extra } } }] };
}
const ev = (type: string, name: string, data = 0, extra?: Record<string, unknown>) => ({ type, object: row(name, data, extra), gk });

class FakeScreen implements Screen {
  readonly vt: VirtualTerminal;
  writes: string[] = [];
  closed = false;
  private resize = new Set<() => void>();
  private keys = new Set<(k: string) => void>();
  constructor(columns = 60, rows = 10) {
    this.vt = new VirtualTerminal(columns, rows);
  }
  get columns() {
    return this.vt.columns;
  }
  get rows() {
    return this.vt.rows;
  }
  write(text: string) {
    this.writes.push(text);
    this.vt.write(text);
  }
  onResize(l: () => void) {
    this.resize.add(l);
    return () => this.resize.delete(l);
  }
  onKey(l: (k: string) => void) {
    this.keys.add(l);
    return () => this.keys.delete(l);
  }
  close() {
    this.closed = true;
  }
  press(k: string) {
    for (const l of this.keys) l(k);
  }
  setSize(c: number, r: number) {
    this.vt.resize(c, r);
    for (const l of this.resize) l();
  }
}

const tick = () => new Promise((r) => setImmediate(r));

function setup(opts: Partial<LiveViewOptions> = {}, size?: [number, number]) {
  const screen = new FakeScreen(...(size ?? []));
  const clock = new FakeClock();
  const quits: string[] = [];
  const view = new LiveView({ screen, clock, context: 'kind-dev', sources: ['configmaps'], onQuit: (h) => quits.push(h), ...opts });
  view.start();
  /** Lets `ms` pass and the frames due meanwhile be drawn. */
  const pass = async (ms = 0) => {
    await tick();
    clock.advance(ms);
    await tick();
  };
  return { screen, clock, view, quits, pass };
}

test('the initial list sorted by name under the header; a change marks its row until its time is up', async () => {
  const { screen, view, pass } = setup();
  await pass(100);
  assert.deepEqual(screen.vt.text().split('\n'), ['kind-dev | listing | 0 objects', 'q quit | / filter by name', 'No resources found.']);
  view.apply([ev('ADDED', 'b', 2), ev('ADDED', 'a', 1), ev('ADDED', 'c-long-name', 3)], true);
  view.listed(0);
  await pass(100);
  assert.equal(screen.vt.text(), ['kind-dev | watching | 3 objects', 'q quit | / filter by name', 'NAME          DATA', 'a             1', 'b             2', 'c-long-name   3'].join('\n'));
  assert.equal(screen.vt.attrAt(3), '', 'initial rows are not marked');
  assert.ok(screen.vt.altScreen && !screen.vt.cursorVisible);

  view.apply([ev('MODIFIED', 'b', 20)]);
  await pass(100);
  assert.match(screen.vt.text(), /\nb             20\n/);
  assert.equal(screen.vt.attrAt(4), '7', 'the changed row in reverse video');
  await pass(2000);
  assert.equal(screen.vt.attrAt(4), '', 'the mark ends after 2 s, with no event');
});

test('a deleted row stays dimmed for 5 s, then goes; a new one is marked; counts follow', async () => {
  const { screen, view, pass } = setup();
  view.apply([ev('ADDED', 'a'), ev('ADDED', 'b')], true);
  view.listed(0);
  await pass(100);
  view.apply([ev('DELETED', 'a'), ev('ADDED', 'aa')]);
  await pass(100);
  assert.deepEqual(screen.vt.text().split('\n').slice(2), ['NAME   DATA', 'a      0', 'aa     0', 'b      0']);
  assert.equal(screen.vt.attrAt(3), '2', 'the deleted row dimmed');
  assert.equal(screen.vt.attrAt(4), '7', 'the new row marked');
  assert.match(screen.vt.text(), /^kind-dev \| watching \| 2 objects/);
  await pass(5000);
  assert.deepEqual(screen.vt.text().split('\n').slice(2), ['NAME   DATA', 'aa     0', 'b      0']);
});

test('NO_COLOR (styles off): no attributes at all, a deleted row goes at once', async () => {
  const { screen, view, pass } = setup({ styles: false });
  view.apply([ev('ADDED', 'a'), ev('ADDED', 'b')], true);
  await pass(100);
  view.apply([ev('DELETED', 'a'), ev('MODIFIED', 'b', 5)]);
  await pass(100);
  assert.deepEqual(screen.vt.text().split('\n').slice(2), ['NAME   DATA', 'b      5']);
  assert.ok(!screen.writes.join('').includes('\x1b[7m') && !screen.writes.join('').includes('\x1b[1m'));
});

test('a storm of events: at most one frame per 100 ms, each writing only the lines that changed', async () => {
  const { screen, view, clock, pass } = setup({}, [60, 30]);
  view.apply(Array.from({ length: 20 }, (_, i) => ev('ADDED', `cm-${String(i).padStart(2, '0')}`)), true);
  view.listed(0);
  await pass(100);
  const before = screen.writes.length;
  for (let i = 0; i < 200; i++) {
    view.apply([ev('MODIFIED', 'cm-05', i)]);
    if (i % 20 === 19) await pass(10);
  }
  // 200 events over 100 ms of fake time: one frame when the 100 ms are up.
  await pass(100);
  const frames = screen.writes.slice(before);
  assert.ok(frames.length <= 2, `frames: ${frames.length}`);
  assert.ok(!frames.join('').includes('\x1b[2J'), 'no clear');
  assert.match(screen.vt.text(), /cm-05   199/);
  assert.ok(view.stats.maxLagMs <= 100, `lag ${view.stats.maxLagMs}`);
  void clock;
});

test('more rows than the screen: "+N more"; a resize redraws for the new size', async () => {
  const { screen, view, pass } = setup({}, [40, 6]);
  view.apply(Array.from({ length: 10 }, (_, i) => ev('ADDED', `cm-${i}`)), true);
  await pass(100);
  assert.deepEqual(screen.vt.text().split('\n').slice(2), ['NAME   DATA', 'cm-0   0', 'cm-1   0', '+8 more']);
  screen.setSize(40, 9);
  await pass(100);
  assert.deepEqual(screen.vt.text().split('\n').slice(2), ['NAME   DATA', 'cm-0   0', 'cm-1   0', 'cm-2   0', 'cm-3   0', 'cm-4   0', '+5 more']);
  screen.setSize(12, 9);
  await pass(100);
  assert.equal(screen.vt.text().split('\n')[0], 'kind-dev | l', 'lines cut to the width, never wrapped');
});

test('connection states: reconnecting in Ns counts down each second, relisting, watching again', async () => {
  const { screen, view, pass } = setup({}, [100, 10]);
  view.apply([ev('ADDED', 'a')], true);
  view.listed(0);
  await pass(100);
  view.retry(0, { error: new Error('connect ECONNREFUSED 127.0.0.1:1'), delayMs: 3000 });
  await pass(100);
  assert.match(screen.vt.text(), /^kind-dev \| reconnecting in 3s \(0s: connect ECONNREFUSED 127.0.0.1:1\) \| 1 object$/m);
  await pass(1000);
  assert.match(screen.vt.text(), /reconnecting in 2s \(1s: /, 'the countdown moves with no event');
  view.relist(0); // a 410 while down: the next answer starts a relist
  view.resume(0);
  await pass(100);
  assert.match(screen.vt.text(), /^kind-dev \| relisting \| 1 object/);
  view.listed(0);
  await pass(100);
  assert.match(screen.vt.text(), /^kind-dev \| watching \| 1 object/);
});

test('several kinds: a table each, names as kind/name, counts per kind; one ends', async () => {
  const { screen, view, pass } = setup({ withKind: true, sources: ['configmaps', 'secrets'] }, [100, 10]);
  view.apply([ev('ADDED', 'a')], true);
  view.apply([{ type: 'ADDED', object: row('s1', 1), gk: { group: '', kind: 'Secret' } }], true);
  view.listed(0);
  view.listed(1);
  await pass(100);
  assert.deepEqual(screen.vt.text().split('\n'), [
    'kind-dev | watching | 2 objects (ConfigMap 1, Secret 1)',
    'q quit | / filter by name',
    'NAME          DATA',
    'configmap/a   0',
    '',
    'NAME        DATA',
    'secret/s1   1',
  ]);
  const refused = { error: new Error('connect ECONNREFUSED'), delayMs: 1000 };
  view.retry(0, refused);
  view.retry(1, refused);
  await pass(100);
  assert.match(screen.vt.text(), /^kind-dev \| reconnecting in 1s \(0s: connect ECONNREFUSED\) \| 2 objects/, 'all of them: said once');
  view.resume(1);
  await pass(100);
  assert.match(screen.vt.text(), /^kind-dev \| configmaps: reconnecting in 1s \(0s: connect ECONNREFUSED\) \| 2 objects/, 'one of them: named');
  view.resume(0);
  view.gone(1, 'the resource type is no longer served');
  await pass(100);
  assert.match(screen.vt.text(), /^kind-dev \| secrets: ended: the resource type is no longer served \| 2 objects/);
});

test('--sort-by: rows in the field\'s order, again after a change', async () => {
  const { screen, view, pass } = setup({ sorter: createSorter('{.metadata.labels.rank}') });
  view.apply([ev('ADDED', 'a', 0, { labels: { rank: '3' } }), ev('ADDED', 'b', 0, { labels: { rank: '1' } }), ev('ADDED', 'c', 0, { labels: { rank: '2' } })], true);
  await pass(100);
  assert.deepEqual(screen.vt.text().split('\n').slice(3).map((l) => l[0]), ['b', 'c', 'a']);
  view.apply([ev('MODIFIED', 'a', 0, { labels: { rank: '0' } })]);
  await pass(100);
  assert.deepEqual(screen.vt.text().split('\n').slice(3).map((l) => l[0]), ['a', 'b', 'c']);
});

test('keys: / filters by name (Enter keeps, Esc clears), q quits, Ctrl-C interrupts; close gives the screen back', async () => {
  const { screen, view, quits, pass } = setup();
  view.apply([ev('ADDED', 'web-1'), ev('ADDED', 'db-1'), ev('ADDED', 'web-2')], true);
  await pass(100);
  screen.press('/');
  screen.press('WEB');
  screen.press('q'); // text while editing
  screen.press('\x7f');
  screen.press('\r');
  await pass(100);
  assert.deepEqual(screen.vt.text().split('\n'), ['kind-dev | listing | 3 objects | filter /WEB', 'q quit | / filter by name', 'NAME    DATA', 'web-1   0', 'web-2   0']);
  screen.press('/zzz\r');
  await pass(100);
  assert.deepEqual(screen.vt.text().split('\n').slice(2), ['No names contain "zzz".']);
  screen.press('\x1b');
  await pass(100);
  assert.match(screen.vt.text(), /db-1/);
  screen.press('\x1b[A'); // an arrow key: ignored
  screen.press('q');
  screen.press('\x03');
  assert.deepEqual(quits, ['quit', 'interrupt']);
  view.close();
  view.close();
  assert.ok(screen.closed && !screen.vt.altScreen && screen.vt.cursorVisible, 'the shell screen back, the cursor shown');
  assert.equal(screen.writes.filter((w) => w.includes('\x1b[?1049l')).length, 1);
});

test('several contexts: one table, CONTEXT first, rows keyed and sorted by context, namespace, name; a state per context', async () => {
  const { screen, view, pass } = setup({ context: undefined, sources: [], contexts: ['west', 'east'], withContext: true, withNamespace: true }, [100, 12]);
  const at = (context: string, type: string, name: string, data = 0, namespace = 'ns') => ({ ...ev(type, name, data, { namespace }), context });
  await pass(100);
  assert.equal(screen.vt.text().split('\n')[0], 'west listing, east listing | 0 objects', 'no source known yet: listing');
  const west = view.addSource('configmaps', 'west');
  const east = view.addSource('configmaps', 'east');
  // The same namespace/name in both contexts: two rows.
  view.apply([at('west', 'ADDED', 'a', 1), at('west', 'ADDED', 'b', 2, 'default')], true);
  view.apply([at('east', 'ADDED', 'a', 3), at('east', 'ADDED', 'c', 4)], true);
  view.listed(west);
  view.listed(east);
  await pass(100);
  assert.deepEqual(screen.vt.text().split('\n'), [
    'west watching, east watching | 4 objects',
    'q quit | / filter by name',
    'CONTEXT   NAMESPACE   NAME   DATA',
    'east      ns          a      3',
    'east      ns          c      4',
    'west      default     b      2',
    'west      ns          a      1',
  ]);
  // A change and a delete in one context touch its rows only.
  view.apply([at('east', 'MODIFIED', 'a', 30), at('east', 'DELETED', 'c')]);
  await pass(100);
  assert.deepEqual(screen.vt.text().split('\n').slice(3, 7), ['east      ns          a      30', 'east      ns          c      4', 'west      default     b      2', 'west      ns          a      1']);
  assert.equal(screen.vt.attrAt(3), '7', 'the changed row marked');
  assert.equal(screen.vt.attrAt(4), '2', 'the deleted row dimmed');
  assert.equal(screen.vt.attrAt(6), '', 'the other context\'s row of the same name untouched');
  await pass(5000);
  view.retry(west, { error: new Error('connect ECONNREFUSED 127.0.0.1:1'), delayMs: 3000 });
  await pass(1000);
  assert.deepEqual(screen.vt.text().split('\n').slice(0, 6), [
    'west reconnecting in 2s (1s: connect ECONNREFUSED 127.0.0.1:1), east watching | 3 objects',
    'q quit | / filter by name',
    'CONTEXT   NAMESPACE   NAME   DATA',
    'east      ns          a      30',
    'west      default     b      2',
    'west      ns          a      1',
  ], 'west\'s rows stay while it reconnects (east\'s deleted row gone after its 5 s)');
  view.failed('east', 'configmaps is forbidden');
  await pass(100);
  assert.match(screen.vt.text().split('\n')[0]!, /, east failed: configmaps is forbidden/);
});

test('the header names the namespaces watched', async () => {
  for (const [namespaces, header] of [['namespace demo', 'kind-dev | namespace demo | watching | 1 object'], ['all namespaces', 'kind-dev | all namespaces | watching | 1 object']] as const) {
    const { screen, view, pass } = setup({ namespaces }, [80, 10]);
    view.apply([ev('ADDED', 'a')], true);
    view.listed(0);
    await pass(100);
    assert.equal(screen.vt.text().split('\n')[0], header);
    view.close();
  }
});

test('AGE counts up with no event: the server\'s text at the last event plus the time since', async () => {
  const withAge = [...columns, { name: 'Age', type: 'string', format: '', priority: 0 }];
  const aged = (type: string, name: string, age: string) => ({
    type,
    gk,
    object: { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: {}, columnDefinitions: withAge, rows: [{ cells: [name, 1, age], object: { metadata: { name, namespace: 'ns' } } }] } as Table,
  });
  const { screen, view, pass } = setup({}, [60, 10]);
  view.apply([aged('ADDED', 'a', '5s'), aged('ADDED', 'b', '9m58s'), aged('ADDED', 'c', '<unknown>')], true);
  view.listed(0);
  await pass(100);
  const rows = () => screen.vt.text().split('\n').slice(3);
  assert.deepEqual(rows(), ['a      1      5s', 'b      1      9m58s', 'c      1      <unknown>']);
  await pass(1000);
  assert.deepEqual(rows(), ['a      1      6s', 'b      1      9m59s', 'c      1      <unknown>'], 'one second later, no event');
  await pass(60_000);
  assert.deepEqual(rows(), ['a      1      66s', 'b      1      10m', 'c      1      <unknown>']);
  view.apply([aged('MODIFIED', 'a', '2s')]); // what the server says at an event wins
  await pass(100);
  assert.equal(rows()[0], 'a      1      2s');
  const writes = screen.writes.length;
  await pass(400);
  assert.equal(screen.writes.length, writes, 'no frame before an age changes');
});
