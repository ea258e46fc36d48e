/**
 * `kdyn watch`'s live view in a real terminal: an interactive bash in tmux runs the built CLI against
 * the local API server; keys are typed with send-keys and the screen read with capture-pane. The
 * screen equals the server's state (its own store) after creates, updates and deletes, a server
 * restart and an outage, and a resize; each way out (q, Ctrl-C, SIGTERM, an error) gives the shell
 * its screen and its terminal modes back, with the exit code of the appending watch. Where a live
 * view must not be used (a pipe, TERM=dumb, --no-live, get -w) the output appends as before.
 * Several contexts (test/support/fleet-env.ts): one table, CONTEXT first, a state per context.
 * Skipped with a message where tmux or bash is missing (.ci/run installs tmux).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';
import { KDYN, runCommand } from '../support/cli.js';
import type { ResourceClient } from '../../src/dynamic/client.js';
import { clientFor } from './watch-helpers.js';
import { startFleetEnv } from '../support/fleet-env.js';

const HAS_TMUX = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0 && spawnSync('bash', ['--version'], { stdio: 'ignore' }).status === 0;

let env: ServerEnv;
let nsCounter = 0;

describe('the live view in tmux', { skip: HAS_TMUX ? false : 'tmux or bash not found: the live view is not tested in a real terminal' }, () => {
  const socket = `kdyn-live-${process.pid}`;
  const tmux = (...args: string[]) => runCommand('tmux', ['-L', socket, '-f', '/dev/null', ...args], { env: { PATH: process.env.PATH!, TMUX: '' } });
  let session = 0;

  before(async () => {
    env = await startServerEnv({ seed: 'demo' }, 'kdyn-e2e-live-');
  });
  after(async () => {
    await tmux('kill-server');
    await env.stop();
  });

  /** A fresh namespace with `n` configmaps `cm-0`..., and a handle on its configmaps. */
  async function namespaceWith(n: number): Promise<{ ns: string; cms: ResourceClient }> {
    const ns = `live${++nsCounter}`;
    const client = clientFor(env.server);
    await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: ns } });
    const cms = client.resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace(ns);
    for (let i = 0; i < n; i++) await cms.create({ metadata: { name: `cm-${i}` }, data: { a: '1' } });
    return { ns, cms };
  }

  /** An interactive bash in a new tmux window of `columns` x `rows`; `extraEnv` on top of the usual. */
  async function shell(columns = 100, rows = 30, extraEnv: Record<string, string> = {}) {
    const name = `s${++session}`;
    const vars = { HOME: env.dir, PATH: process.env.PATH!, KUBECONFIG: env.kubeconfig, TERM: 'screen', HISTFILE: '/dev/null', ...extraEnv };
    const r = await tmux('new-session', '-d', '-s', name, '-x', String(columns), '-y', String(rows), 'env', '-i', ...Object.entries(vars).map(([k, v]) => `${k}=${v}`), 'PS1=$ ', 'bash', '--norc', '--noprofile', '-i');
    assert.equal(r.code, 0, r.err);
    const screen = async () => (await tmux('capture-pane', '-p', '-t', name)).out;
    const format = async (f: string) => (await tmux('display-message', '-p', '-t', name, f)).out.trim();
    return {
      name,
      screen,
      format,
      /** Types a command line and Enter. */
      type: async (line: string) => {
        await tmux('send-keys', '-t', name, '-l', '--', line);
        await tmux('send-keys', '-t', name, 'Enter');
      },
      keys: (...keys: string[]) => tmux('send-keys', '-t', name, ...keys),
      /** Polls the screen until `pred` holds (at most 15 s); returns it. */
      until: async (pred: (s: string) => boolean, what: string): Promise<string> => {
        const deadline = Date.now() + 15_000;
        for (;;) {
          const s = await screen();
          if (pred(s)) return s;
          if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen:\n${s}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      },
      /** kdyn's pid (the shell's child). */
      kdynPid: async () => {
        const bash = await format('#{pane_pid}');
        return Number((await runCommand('ps', ['-o', 'pid=', '--ppid', bash], { env: { PATH: process.env.PATH! } })).out.trim().split('\n')[0]);
      },
    };
  }
  type Shell = Awaited<ReturnType<typeof shell>>;

  const watchLine = (ns: string, extra = '') => `"${process.execPath}" "${KDYN}" watch configmaps -n ${ns}${extra}; echo "EXIT=$?"; stty -a | grep -o -- '-\\?icanon' | head -1`;

  /**
   * The rows the view shows: name -> DATA (between the column header and a blank or "+N more"
   * line); `withContext`: `context name` -> DATA, under a CONTEXT column.
   */
  function shownRows(screen: string, withContext = false): Map<string, string> {
    const lines = screen.split('\n');
    const header = withContext ? /^CONTEXT\s+NAME\s+DATA\s+AGE/ : /^NAME\s+DATA\s+AGE/;
    const at = lines.findIndex((l) => header.test(l));
    const rows = new Map<string, string>();
    if (at < 0) return rows;
    for (const l of lines.slice(at + 1)) {
      if (l.trim() === '' || /^\+\d+ more/.test(l)) break;
      const cells = l.trim().split(/\s+/);
      if (withContext) rows.set(`${cells[0]} ${cells[1]}`, cells[2]!);
      else rows.set(cells[0]!, cells[1]!);
    }
    return rows;
  }

  /** The server's configmaps in `ns`: name -> number of data keys. */
  function serverRows(ns: string): Map<string, string> {
    const items = env.server.store.list('', 'configmaps', { namespace: ns }).items as Array<{ metadata: { name: string }; data?: Record<string, string> }>;
    return new Map(items.map((o) => [o.metadata.name, String(Object.keys(o.data ?? {}).length)]));
  }

  const same = (a: Map<string, string>, b: Map<string, string>) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

  /** Waits until the view shows exactly the server's objects, with the right count in the header. */
  const showsServer = (sh: Shell, ns: string, what: string) =>
    sh.until((s) => same(shownRows(s), serverRows(ns)) && s.split('\n')[0]!.endsWith(`| watching | ${serverRows(ns).size} object${serverRows(ns).size === 1 ? '' : 's'}`), what);

  /** After kdyn ended: its exit code, the shell's normal screen back, the terminal in cooked mode. */
  async function assertRestored(sh: Shell, code: number, view = /NAME\s+DATA\s+AGE/): Promise<string> {
    const s = await sh.until((x) => /EXIT=\d+\n(-?icanon)/.test(x), 'the exit line');
    assert.equal(/EXIT=(\d+)/.exec(s)![1], String(code), s);
    assert.equal(/EXIT=\d+\n(-?icanon)/.exec(s)![1], 'icanon', 'cooked mode again');
    assert.equal(await sh.format('#{alternate_on}'), '0', 'the alternate screen left');
    assert.equal(await sh.format('#{cursor_flag}'), '1', 'the cursor shown');
    assert.ok(!view.test(s), `the view is gone from the screen:\n${s}`);
    return s;
  }

  test('creates, updates and deletes: the screen equals the server; q quits with 0 and restores the terminal', async () => {
    const { ns, cms } = await namespaceWith(4);
    const sh = await shell();
    await sh.type(watchLine(ns));
    const first = await showsServer(sh, ns, 'the initial list');
    assert.equal(first.split('\n')[0], `kdyn-local | namespace ${ns} | watching | 4 objects`);
    assert.equal(await sh.format('#{alternate_on}'), '1', 'drawn on the alternate screen');
    await cms.create({ metadata: { name: 'cm-new' }, data: { a: '1', b: '2', c: '3' } });
    await cms.patch('cm-1', { data: { b: '2' } }, 'merge');
    await cms.delete('cm-2');
    await showsServer(sh, ns, 'creates, updates and deletes');
    await sh.keys('q');
    await assertRestored(sh, 0);
  });

  test('a server restart and an outage: the header says so, and the screen ends equal to the server; Ctrl-C exits 130', async () => {
    const { ns, cms } = await namespaceWith(3);
    const sh = await shell(140);
    await sh.type(watchLine(ns));
    await showsServer(sh, ns, 'the initial list');
    env.server.restart(); // open watches end, the watch history is gone: kdyn relists
    await cms.delete('cm-0');
    await cms.create({ metadata: { name: 'after-restart' }, data: {} });
    await showsServer(sh, ns, 'the state after the restart');
    await env.server.stopListening();
    try {
      await sh.until((s) => /\| reconnecting( in \d+s)? \(\d+s: /.test(s.split('\n')[0]!), 'the outage in the header');
      // A change while kdyn cannot see it (straight into the server's store).
      const old = env.server.store.get('', 'configmaps', ns, 'cm-1')!;
      env.server.store.update('', 'configmaps', { ...old, metadata: { ...old.metadata }, data: { x: 'y', z: 'w' } });
    } finally {
      await env.server.listenAgain();
    }
    await showsServer(sh, ns, 'the state after the outage');
    await sh.keys('C-c');
    await assertRestored(sh, 130);
  });

  test('a resize: the view follows, cut to the new width, "+N more" below; SIGTERM exits 143', async () => {
    const { ns } = await namespaceWith(12);
    const sh = await shell(100, 30);
    await sh.type(watchLine(ns));
    await showsServer(sh, ns, 'the initial list');
    await tmux('resize-window', '-t', sh.name, '-x', '24', '-y', '8');
    const small = await sh.until((s) => /^\+\d+ more/m.test(s), 'the smaller screen');
    const lines = small.split('\n').filter((l) => l !== '');
    assert.ok(lines.every((l) => l.length <= 24), small);
    // 8 rows: the header, the hint, the column header, 4 objects, "+N more" (12 + app-config? no: 12 here).
    assert.deepEqual(lines.slice(2).map((l) => l.split(/\s+/)[0]), ['NAME', 'cm-0', 'cm-1', 'cm-10', 'cm-11', '+8']);
    await tmux('resize-window', '-t', sh.name, '-x', '100', '-y', '30');
    await showsServer(sh, ns, 'the larger screen again');
    process.kill(await sh.kdynPid(), 'SIGTERM');
    await assertRestored(sh, 143);
  });

  test('an error that ends the watch: the terminal restored first, then the one-line error; exit 1', async () => {
    const { ns } = await namespaceWith(1);
    const sh = await shell(140);
    await sh.type(watchLine(ns));
    await showsServer(sh, ns, 'the initial list');
    env.server.faults.add({ path: new RegExp(`^/api/v1/namespaces/${ns}/configmaps\\?`), status: 403, body: '{"kind":"Status","apiVersion":"v1","status":"Failure","message":"configmaps is forbidden: not any more","reason":"Forbidden","code":403}', times: 5 });
    env.server.restart();
    const s = await assertRestored(sh, 1);
    env.server.faults.clear();
    assert.match(s, /Error from server \(Forbidden\): configmaps is forbidden: not any more/);
  });

  test('no live view into a pipe, with TERM=dumb, with --no-live, or for get -w: rows appended as before', async () => {
    const { ns } = await namespaceWith(1);
    const appended = /EVENT\s+NAME\s+DATA\s+AGE\nADDED\s+cm-0\s+1/;
    for (const [extra, vars, pattern] of [
      [' --max-events 1 | cat', {}, appended],
      [' --max-events 1', { TERM: 'dumb' }, appended],
      [' --max-events 1 --no-live', {}, appended],
    ] as const) {
      const sh = await shell(100, 30, vars);
      await sh.type(watchLine(ns, extra));
      const s = await sh.until((x) => /EXIT=\d+/.test(x), `the appending watch (${extra})`);
      assert.match(s, pattern, s);
      assert.match(s, /EXIT=0/);
    }
    const sh = await shell();
    // --request-timeout ends the watch (and bounds the list before it: 5 s, as a loaded machine may need).
    await sh.type(`"${process.execPath}" "${KDYN}" get configmaps -n ${ns} -w --request-timeout 5s; echo "EXIT=$?"`);
    const s = await sh.until((x) => /EXIT=\d+/.test(x), 'get -w');
    assert.match(s, /NAME\s+DATA\s+AGE\ncm-0\s+1\s+\S+\n/);
  });

  test('several contexts: one table with CONTEXT first; creates and deletes in one; its server down: reconnecting, the other\'s rows stay; q restores', async () => {
    const fleet = await startFleetEnv({ contexts: ['east', 'west'], prefix: 'kdyn-e2e-live-fleet-' });
    try {
      const ns = 'live-fleet';
      const handles = new Map<string, ResourceClient>();
      for (const [context, server] of fleet.servers) {
        const client = clientFor(server);
        await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: ns } });
        const cms = client.resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace(ns);
        for (let i = 0; i < 2; i++) await cms.create({ metadata: { name: `${context}-${i}` }, data: { a: '1' } });
        handles.set(context, cms);
      }
      const shown = (screen: string) => shownRows(screen, true);
      const server = () => {
        const rows = new Map<string, string>();
        for (const [context, s] of fleet.servers) {
          const items = s.store.list('', 'configmaps', { namespace: ns }).items as Array<{ metadata: { name: string }; data?: Record<string, string> }>;
          for (const o of items) rows.set(`${context} ${o.metadata.name}`, String(Object.keys(o.data ?? {}).length));
        }
        return rows;
      };
      const sh = await shell(160, 30, { HOME: fleet.dir, KUBECONFIG: fleet.kubeconfig });
      await sh.type(watchLine(ns, " --context 'east,west'"));
      const settled = (what: string) => sh.until((s) => same(shown(s), server()) && s.split('\n')[0] === `namespace ${ns} | east watching, west watching | ${server().size} objects`, what);
      const first = await settled('both contexts\' objects');
      // Sorted by context, then namespace/name; the same name in two contexts would be two rows.
      assert.deepEqual([...shown(first).keys()], ['east east-0', 'east east-1', 'west west-0', 'west west-1'], first);
      const east = handles.get('east')!;
      await east.create({ metadata: { name: 'east-new' }, data: { a: '1', b: '2' } });
      await east.delete('east-0');
      await settled('creates and deletes in east');
      await fleet.servers.get('west')!.stopListening();
      try {
        const down = await sh.until((s) => /^namespace \S+ \| east watching, west reconnecting( in \d+s)? \(\d+s: /.test(s.split('\n')[0]!), 'west reconnecting in the header');
        assert.deepEqual([...shown(down).keys()].sort(), [...server().keys()].sort(), `the rows stay while west is down:\n${down}`);
      } finally {
        await fleet.servers.get('west')!.listenAgain();
      }
      await settled('west back');
      await sh.keys('q');
      await assertRestored(sh, 0, /CONTEXT\s+NAME/);
    } finally {
      await fleet.stop();
    }
  });

  test('--live where it cannot be: one-line usage errors', async () => {
    const { ns } = await namespaceWith(1);
    const sh = await shell(140);
    await sh.type(`${watchLine(ns, ' --live -o name')}`);
    await sh.until((x) => /EXIT=2/.test(x), 'the usage error');
    await sh.type(`"${process.execPath}" "${KDYN}" watch configmaps -n ${ns} --live | cat; echo "EXIT=\${PIPESTATUS[0]}"`);
    const s = await sh.until((x) => /EXIT=2[\s\S]*EXIT=2/.test(x), 'the second usage error');
    assert.match(s, /error: --live shows a table: it cannot be used with -o name/);
    assert.match(s, /error: --live needs a terminal on stdout/);
  });
});
