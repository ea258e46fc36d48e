/**
 * The real-server harness cleans up after the process that started it: its children die with it
 * (PR_SET_PDEATHSIG) even when it is SIGKILLed, its temp dirs go on SIGTERM, and a dir left by a
 * SIGKILLed run goes at the next start. Checked with etcd alone (a second to start); the API server
 * is started the same way.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../support/cli.js';
import { startEtcd } from '../support/real-apiserver.js';
import { SKIP_REAL } from './real-helpers.js';

const HARNESS = pathToFileURL(join(repoRoot(), 'build/test/support/real-apiserver.js')).href;

/** A node process that starts etcd through the harness and reports the etcd data dir's parent and etcd's pid. */
async function ownerWithEtcd(): Promise<{ pid: number; dir: string; etcdPid: number; exited: Promise<void> }> {
  const script = `
    import { startEtcd } from ${JSON.stringify(HARNESS)};
    import { execFileSync } from 'node:child_process';
    import { readdirSync, readFileSync } from 'node:fs';
    await startEtcd();
    const etcdPid = Number(execFileSync('pgrep', ['-P', String(process.pid), 'etcd'], { encoding: 'utf8' }).trim());
    const dir = readdirSync('/dev/shm').filter((n) => n.startsWith('kdyn-etcd-')).map((n) => '/dev/shm/' + n)
      .find((d) => { try { return readFileSync(d + '/owner.pid', 'utf8') === String(process.pid); } catch { return false; } });
    console.log(JSON.stringify({ dir, etcdPid }));
    setInterval(() => {}, 60_000);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`the owner process exited (${code}) before reporting: ${out}`)));
  });
  const { dir, etcdPid } = JSON.parse(line) as { dir: string; etcdPid: number };
  return { pid: child.pid!, dir, etcdPid, exited };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

describe('the real-server harness cleans up after a crash', { skip: SKIP_REAL || (existsSync('/dev/shm') ? false : 'no /dev/shm: the harness keeps etcd elsewhere and this test does not look there') }, () => {
  test('SIGKILL of the owner: etcd dies with it; the next start removes the dir it left', async () => {
    const owner = await ownerWithEtcd();
    assert.ok(alive(owner.etcdPid));
    assert.equal(readFileSync(join(owner.dir, 'owner.pid'), 'utf8'), String(owner.pid));
    process.kill(owner.pid, 'SIGKILL');
    await owner.exited;
    assert.ok(await gone(owner.etcdPid), 'etcd outlived the process that started it');
    assert.ok(existsSync(owner.dir), 'nothing could remove the dir at SIGKILL');
    const next = await startEtcd();
    await next.stop();
    assert.ok(!existsSync(owner.dir), 'the next start removes a dead owner\'s dir');
  });

  test('SIGTERM of the owner: etcd is killed and the dir removed before it dies of the signal', async () => {
    const owner = await ownerWithEtcd();
    process.kill(owner.pid, 'SIGTERM');
    await owner.exited;
    assert.ok(await gone(owner.etcdPid));
    assert.ok(!existsSync(owner.dir));
  });
});
