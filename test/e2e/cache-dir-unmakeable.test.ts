/**
 * Cache directories that can never be made (issue 22): under /proc, mkdir fails with ENOENT although
 * the parent exists, and Node's `mkdirSync(dir, { recursive: true })` retries that forever at full CPU.
 * kdyn printed its answer and then spun at exit. Each run here must end on its own, with the usual
 * output: the child is killed (SIGKILL, since kdyn handles SIGTERM in JS) after a generous 10 s.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { KDYN, runCommand, type Run } from '../support/cli.js';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';

const UNMAKEABLE = '/proc/kdyn-test';
const TIMEOUT_MS = 10_000;

let env: ServerEnv;
let home: string;

function kdyn(args: string[], vars: Record<string, string>): Promise<Run> {
  return runCommand(process.execPath, [KDYN, ...args], {
    cwd: env.dir,
    env: { PATH: process.env.PATH ?? '', HOME: home, KUBECONFIG: env.kubeconfig, ...vars },
    timeoutMs: TIMEOUT_MS,
    killSignal: 'SIGKILL',
  });
}

function assertPrompt(r: Run, what: string): void {
  assert.notEqual(r.code, -1, `${what}: still running after ${TIMEOUT_MS / 1000} s, killed (a mkdir loop?); it printed: ${JSON.stringify(r.out)}`);
  assert.equal(r.code, 0, `${what}: ${r.err}`);
}

describe('a cache directory under /proc (mkdir -p never succeeds)', { skip: existsSync('/proc/self') ? false : 'no /proc here' }, () => {
  let namespaces: string;

  before(async () => {
    env = await startServerEnv({ seed: 'empty' }, 'kdyn-e2e-unmakeable-');
    home = join(env.dir, 'home');
    const r = await kdyn(['get', 'namespaces', '-o', 'name'], {});
    assert.equal(r.code, 0, r.err);
    namespaces = r.out;
    assert.match(namespaces, /^namespace\/default$/m);
  });
  after(() => env?.stop());

  test('version --client with XDG_CACHE_HOME or HOME there (the code cache)', async () => {
    const cases: Array<Record<string, string>> = [{ XDG_CACHE_HOME: UNMAKEABLE }, { HOME: UNMAKEABLE }];
    for (const vars of cases) {
      const r = await kdyn(['version', '--client'], vars);
      assertPrompt(r, JSON.stringify(vars));
      assert.equal(r.out, 'Client Version: v0.1.0\n');
      assert.equal(r.err, '');
    }
  });

  test('get with XDG_CACHE_HOME there (the code cache), with --cache-dir there, and with HOME there (both caches)', async () => {
    const cases: Array<[string, string[], Record<string, string>]> = [
      ['XDG_CACHE_HOME', [], { XDG_CACHE_HOME: UNMAKEABLE }],
      ['--cache-dir', ['--cache-dir', join(UNMAKEABLE, 'cache')], {}],
      ['HOME', [], { HOME: UNMAKEABLE }],
    ];
    for (const [name, flags, vars] of cases) {
      const r = await kdyn(['get', 'namespaces', '-o', 'name', ...flags], vars);
      assertPrompt(r, name);
      assert.equal(r.out, namespaces, name);
      assert.equal(r.err, '', name);
    }
  });

  test('-v=1 says once that the discovery cache could not be written, and why', async () => {
    const r = await kdyn(['get', 'namespaces', '-o', 'name', '-v=1', '--cache-dir', join(UNMAKEABLE, 'cache')], {});
    assertPrompt(r, '-v=1');
    assert.equal(r.out, namespaces);
    const warnings = r.err.split('\n').filter((l) => l.includes('discovery cache disabled'));
    assert.equal(warnings.length, 1, r.err);
    assert.match(warnings[0]!, /cannot write \/proc\/kdyn-test\/cache\/\S+: ENOENT$/);
  });
});
