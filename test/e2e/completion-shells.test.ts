/**
 * Completion in real shells, with the built CLI on PATH against the seeded local API server:
 * an interactive bash driven through tmux (keys typed, TAB pressed, the screen read back), and fish
 * (`complete -C`, fish's own completion engine) where it is installed. Each completes a resource
 * type (from the discovery cache) and an object name (one list request). Skipped with a message
 * where tmux or fish is missing (CI installs neither unless .ci/run does; see docs/commands/completion.md).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';
import { KDYN, hasKubectl, runCommand, runKdyn } from '../support/cli.js';
import { FakeClock } from '../../src/core/clock.js';

const has = (cmd: string) => spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0;
const HAS_TMUX = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0 && has('bash');
const HAS_FISH = has('fish');
const HAS_ZSH = has('zsh');

let env: ServerEnv;
let shellEnv: Record<string, string>;
before(async () => {
  env = await startServerEnv({ seed: 'demo', clock: new FakeClock(Date.UTC(2026, 10, 22, 12, 0, 0)) }, 'kdyn-e2e-completion-');
  const bin = join(env.dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'kdyn'), `#!/bin/sh\nexec "${process.execPath}" "${KDYN}" "$@"\n`);
  chmodSync(join(bin, 'kdyn'), 0o755);
  // A TAB press waits one second for names; a loaded CI machine may need more (docs/configuration.md).
  shellEnv = { HOME: env.dir, PATH: `${bin}:${process.env.PATH}`, KUBECONFIG: env.kubeconfig, TERM: 'xterm', KDYN_TEST_COMPLETION_TIMEOUT_MS: '30000' };
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

  test('TAB completes TYPE/NAME words; kdyn <TAB><TAB> lists the commands, no flags', async () => {
    await type('clear', 'Enter');
    await type('kdyn get -n demo rockets/fa', 'Tab');
    assert.match(await screenMatching(/kdyn get -n demo rockets\/falcon$/m), /\$ kdyn get -n demo rockets\/falcon$/m);
    await tmux('send-keys', '-t', 't', 'C-u');
    await type('clear', 'Enter');
    await type('kdyn ', 'Tab', 'Tab');
    const listed = await screenMatching(/api-resources/);
    assert.match(listed, /api-resources +apply +applyset +completion +delete +diff +explain +get +help +types +version +watch/, listed);
    assert.doesNotMatch(listed, /--kubeconfig/);
    await tmux('send-keys', '-t', 't', 'C-u');
  });
});

describe('resource types', () => {
  test('only types that can be read (no bindings, tokenreviews, *subjectaccessreviews): kubectl __complete get\'s list', async (t) => {
    const types = (await runKdyn(['__complete', 'types'], { env: shellEnv })).out.split('\n').filter((l) => l !== '');
    assert.ok(types.includes('configmaps') && types.includes('rockets.demo.kdyn.dev'), types.join(' '));
    for (const t of ['bindings', 'tokenreviews.authentication.k8s.io', 'selfsubjectreviews.authentication.k8s.io', 'subjectaccessreviews.authorization.k8s.io',
      'localsubjectaccessreviews.authorization.k8s.io', 'selfsubjectaccessreviews.authorization.k8s.io', 'selfsubjectrulesreviews.authorization.k8s.io']) {
      assert.ok(!types.includes(t), t);
    }
    if (!hasKubectl()) return void t.diagnostic('kubectl not on PATH: not compared with kubectl');
    // kubectl completes from its cache too (api-resources --cached --verbs=get): fill it first.
    assert.equal((await runCommand('kubectl', ['api-resources'], { env: shellEnv })).code, 0);
    const theirs = (await runCommand('kubectl', ['__complete', 'get', ''], { env: shellEnv })).out.split('\n').filter((l) => l !== '' && !l.startsWith(':'));
    assert.deepEqual(types, theirs);
  });
});

describe('zsh', { skip: HAS_ZSH ? false : 'zsh not installed (apt-get install zsh)' }, () => {
  test('the documented loading (compinit first) registers the completion; without compinit it cannot', async () => {
    const load = (prelude: string) => runCommand('zsh', ['-f', '-c', `${prelude}source <(kdyn completion zsh); print -r -- "comp=$_comps[kdyn]"`], { env: shellEnv });
    const documented = await load('autoload -Uz compinit && compinit -u; ');
    assert.equal(documented.err, '');
    assert.equal(documented.out, 'comp=_bash_complete -F _kdyn\n');
    const bare = await load('');
    assert.match(bare.err, /compdef/, 'the reason the instructions say compinit');
    const help = await runKdyn(['completion', '--help'], { env: shellEnv });
    assert.match(help.out, /autoload -Uz compinit && compinit/);
  });
});

describe('fish', { skip: HAS_FISH ? false : 'fish not installed (apt-get install fish)' }, () => {
  let filesDir: string;
  before(() => {
    filesDir = join(env.dir, 'files');
    mkdirSync(filesDir);
    writeFileSync(join(filesDir, 'notes.txt'), 'a file\n');
  });
  const complete = async (line: string): Promise<string[]> => {
    // cwd: a directory with a file in it, so completions that offer files show it.
    const r = await runCommand('fish', ['--no-config', '-c', `kdyn completion fish | source; complete -C ${JSON.stringify(line)}`], { env: shellEnv, cwd: filesDir });
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

  test('TYPE/NAME words complete names; after one, TYPE/ again (as kubectl)', async () => {
    assert.deepEqual(await complete('kdyn get -n demo rockets/f'), ['rockets/falcon']);
    assert.deepEqual((await complete('kdyn get -n demo rockets/')).sort(), ['rockets/electron', 'rockets/falcon']);
    const after = await complete('kdyn get -n demo rockets/falcon roc');
    assert.ok(after.some((t) => /^rockets\.\S+\/$/.test(t)), after.join(' '));
  });

  test('kdyn <TAB> offers the commands, not flags', async () => {
    const words = await complete('kdyn ');
    assert.deepEqual(words.filter((w) => w.startsWith('-')), []);
    for (const c of ['api-resources', 'apply', 'get', 'watch', 'version', 'completion', 'help']) assert.ok(words.includes(c), c);
  });

  test('value flags do not offer files, except the file flags', async () => {
    assert.ok((await complete('kdyn apply -f ')).includes('notes.txt'), 'the check can see the file');
    assert.ok((await complete('kdyn get --kubeconfig ')).includes('notes.txt'));
    for (const line of ['kdyn get -o ', 'kdyn get -n ', 'kdyn get --context ', 'kdyn get --cluster ', 'kdyn get --as ', 'kdyn get -l ', 'kdyn watch --timeout ', 'kdyn get --request-timeout ']) {
      assert.ok(!(await complete(line)).includes('notes.txt'), line);
    }
  });
});
