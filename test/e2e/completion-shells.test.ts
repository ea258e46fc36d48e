/**
 * Completion in real shells, with the built CLI on PATH against the seeded local API server:
 * an interactive bash driven through tmux (keys typed, TAB pressed, the screen read back), and fish
 * (`complete -C`, fish's own completion engine) where it is installed. Each completes a resource
 * type (from the discovery cache) and an object name (one list request). Skipped with a message
 * where tmux or fish is missing (CI installs neither unless .ci/run does; see README "Completion").
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';
import { KDYN, runCommand, runKdyn } from '../support/cli.js';
import { FakeClock } from '../../src/core/clock.js';

const has = (cmd: string) => spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0;
const HAS_TMUX = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0 && has('bash');
const HAS_FISH = has('fish');

let env: ServerEnv;
let shellEnv: Record<string, string>;
before(async () => {
  env = await startServerEnv({ seed: 'demo', clock: new FakeClock(Date.UTC(2026, 10, 22, 12, 0, 0)) }, 'kdyn-e2e-completion-');
  const bin = join(env.dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'kdyn'), `#!/bin/sh\nexec "${process.execPath}" "${KDYN}" "$@"\n`);
  chmodSync(join(bin, 'kdyn'), 0o755);
  shellEnv = { HOME: env.dir, PATH: `${bin}:${process.env.PATH}`, KUBECONFIG: env.kubeconfig, TERM: 'xterm' };
  // Resource types complete from the discovery cache only: fill it as a first command would.
  const r = await runKdyn(['api-resources'], { env: shellEnv });
  assert.equal(r.code, 0, r.err);
});
after(() => env.stop());

describe('bash (interactive, through tmux)', { skip: HAS_TMUX ? false : 'tmux or bash not found' }, () => {
  const socket = `kdyn-test-${process.pid}`;
  const tmux = (...args: string[]) => runCommand('tmux', ['-L', socket, '-f', '/dev/null', ...args], { env: { ...shellEnv, TMUX: '' } });
  /** Polls the screen until `pattern` shows up (the shell runs kdyn asynchronously), at most 10 s. */
  async function screenMatching(pattern: RegExp): Promise<string> {
    let screen = '';
    for (let i = 0; i < 100; i++) {
      screen = (await tmux('capture-pane', '-p', '-t', 't')).out;
      if (pattern.test(screen)) return screen;
      await new Promise((r) => setTimeout(r, 100));
    }
    return screen;
  }
  /** Types `text` literally (send-keys would read `-n` as its own option), then the keys. */
  const type = async (text: string, ...keys: string[]) => {
    await tmux('send-keys', '-t', 't', '-l', '--', text);
    if (keys.length) await tmux('send-keys', '-t', 't', ...keys);
  };
  before(async () => {
    const envArgs = Object.entries(shellEnv).map(([k, v]) => `${k}=${v}`);
    const r = await tmux('new-session', '-d', '-s', 't', '-x', '200', '-y', '40', 'env', '-i', ...envArgs, 'PS1=$ ', 'bash', '--norc', '--noprofile', '-i');
    assert.equal(r.code, 0, r.err);
    await tmux('send-keys', '-t', 't', 'source <(kdyn completion bash) && echo loaded', 'Enter');
    assert.match(await screenMatching(/^loaded$/m), /^loaded$/m);
  });
  after(async () => {
    await tmux('kill-server');
  });

  test('TAB completes a resource type, then an object name', async () => {
    await type('kdyn get rock', 'Tab');
    // (capture-pane drops trailing spaces: the space completion adds after a word is not visible)
    const typed = await screenMatching(/\$ kdyn get rockets\.\S+$/m);
    assert.match(typed, /\$ kdyn get rockets\.\S+$/m, typed);
    await type('-n demo fal', 'Tab');
    const named = await screenMatching(/ -n demo falcon$/m);
    assert.match(named, /\$ kdyn get rockets\.\S+ -n demo falcon$/m, named);
    await tmux('send-keys', '-t', 't', 'Enter');
    assert.match(await screenMatching(/^falcon +/m), /^falcon +/m);
  });

  test('TAB completes -o formats and namespaces', async () => {
    await tmux('send-keys', '-t', 't', 'C-u');
    await type('clear', 'Enter');
    await type('kdyn get -o go-template-f', 'Tab');
    assert.match(await screenMatching(/kdyn get -o go-template-file=$/m), /kdyn get -o go-template-file=$/m);
    await tmux('send-keys', '-t', 't', 'C-u');
    await type('kdyn get rockets -n dem', 'Tab');
    assert.match(await screenMatching(/kdyn get rockets -n demo$/m), /kdyn get rockets -n demo$/m);
    await tmux('send-keys', '-t', 't', 'C-u');
  });
});

describe('fish', { skip: HAS_FISH ? false : 'fish not installed (apt-get install fish)' }, () => {
  const complete = async (line: string): Promise<string[]> => {
    const r = await runCommand('fish', ['--no-config', '-c', `kdyn completion fish | source; complete -C ${JSON.stringify(line)}`], { env: shellEnv });
    assert.equal(r.code, 0, r.err);
    return r.out.split('\n').filter((l) => l !== '').map((l) => l.split('\t')[0]!);
  };

  test('completes commands, a resource type and an object name', async () => {
    assert.ok((await complete('kdyn ge')).includes('get'));
    const types = await complete('kdyn get rock');
    assert.ok(types.some((t) => /^rockets\.\S+$/.test(t)), types.join(' '));
    assert.deepEqual(await complete('kdyn get rockets -n demo fal'), ['falcon']);
    assert.ok((await complete('kdyn get -n de')).includes('demo'));
    assert.ok((await complete('kdyn get -o go-t')).includes('go-template='));
    assert.ok((await complete('kdyn get --show-k')).includes('--show-kind'));
  });
});
