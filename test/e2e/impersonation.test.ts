/**
 * Impersonation through the built CLI: `--as`, `--as-group` (repeatable) and `--as-uid` send
 * Impersonate-User, one Impersonate-Group line per group and Impersonate-Uid, each replacing the
 * kubeconfig user's `as`, `as-groups` or `as-uid`; groups or a uid without a user are refused.
 * Side by side with kubectl (the same headers, in the same number of lines) where it is installed.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasKubectl, runCommand, runKdyn, type Run } from '../support/cli.js';

let home: string;
let server: Server;
let url: string;
/** The Impersonate-* header lines of each request, as `name: value`, in the order sent. */
const requests: string[][] = [];

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'kdyn-e2e-as-'));
  server = createServer((req, res) => {
    const lines: string[] = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      if (/^impersonate-/i.test(req.rawHeaders[i]!)) lines.push(`${req.rawHeaders[i]!.toLowerCase()}: ${req.rawHeaders[i + 1]}`);
    }
    requests.push(lines.sort());
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ major: '1', minor: '32', gitVersion: 'v1.32.0', platform: 'linux/amd64' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(home, { recursive: true, force: true });
});

function kubeconfig(name: string, user: string[]): string {
  const p = join(home, name);
  const lines = ['apiVersion: v1', 'kind: Config', 'current-context: c', 'clusters:', '- name: local', '  cluster:', `    server: ${url}`];
  lines.push('users:', '- name: someone', '  user:', ...(user.length ? user : ['{}']).map((l) => `    ${l}`), 'contexts:', '- name: c', '  context: {cluster: local, user: someone}', '');
  writeFileSync(p, lines.join('\n'));
  return p;
}

const env = () => ({ PATH: process.env.PATH ?? '', HOME: home });

/** Runs `version` (one GET /version) and returns the run with the impersonation headers it sent. */
async function headersOf(run: () => Promise<Run>): Promise<{ run: Run; headers: string[] | undefined }> {
  const before = requests.length;
  const r = await run();
  return { run: r, headers: requests.length > before ? requests[requests.length - 1] : undefined };
}
const kdyn = (kc: string, args: string[]) => headersOf(() => runKdyn(['version', '-o', 'json', '--kubeconfig', kc, ...args], { env: env(), cwd: home }));
const kubectl = (kc: string, args: string[]) => headersOf(() => runCommand('kubectl', ['version', '-o', 'json', '--kubeconfig', kc, ...args], { env: env(), cwd: home }));

describe('impersonation flags', () => {
  const cases: Array<{ name: string; user: string[]; args: string[]; headers: string[] | undefined }> = [
    {
      name: 'flags alone: a user, repeated groups (a comma stays in its group), a uid',
      user: [],
      args: ['--as=jane', '--as-group', 'devs', '--as-group=b,c', '--as-uid', 'u-1'],
      headers: ['impersonate-group: b,c', 'impersonate-group: devs', 'impersonate-uid: u-1', 'impersonate-user: jane'],
    },
    {
      name: 'the kubeconfig user\'s as/as-groups/as-uid, without flags',
      user: ['as: kc-user', 'as-groups: [kg1, kg2]', 'as-uid: kuid'],
      args: [],
      headers: ['impersonate-group: kg1', 'impersonate-group: kg2', 'impersonate-uid: kuid', 'impersonate-user: kc-user'],
    },
    {
      name: 'each flag replaces its own field of the kubeconfig user\'s, the others stay',
      user: ['as: kc-user', 'as-groups: [kg1, kg2]', 'as-uid: kuid'],
      args: ['--as-group=g'],
      headers: ['impersonate-group: g', 'impersonate-uid: kuid', 'impersonate-user: kc-user'],
    },
    {
      name: '--as gives the kubeconfig\'s groups a user to go with',
      user: ['as-groups: [kg1]'],
      args: ['--as', 'jane'],
      headers: ['impersonate-group: kg1', 'impersonate-user: jane'],
    },
  ];
  for (const c of cases) {
    test(c.name, async (t) => {
      const kc = kubeconfig(`${c.name.length}-${requests.length}.yaml`, c.user);
      const mine = await kdyn(kc, c.args);
      assert.equal(mine.run.code, 0, mine.run.err);
      assert.deepEqual(mine.headers, c.headers);
      if (!hasKubectl()) return void t.diagnostic('kubectl not on PATH: not compared with kubectl');
      const theirs = await kubectl(kc, c.args);
      assert.equal(theirs.run.code, 0, theirs.run.err);
      assert.deepEqual(mine.headers, theirs.headers, 'the same headers as kubectl');
    });
  }

  test('groups or a uid without a user to impersonate: kubectl\'s error, exit 1, nothing sent', async () => {
    for (const [user, args] of [[[], ['--as-group=g']], [[], ['--as-uid=u']], [['as-groups: [kg1]'], []]] as Array<[string[], string[]]>) {
      const kc = kubeconfig(`none-${requests.length}-${args.length}.yaml`, user);
      const mine = await kdyn(kc, args);
      assert.equal(mine.run.code, 1);
      assert.equal(mine.headers, undefined, 'no request');
      assert.equal(mine.run.err, 'error: requesting uid, groups or user-extra for someone without impersonating a user\n');
      if (!hasKubectl()) continue;
      const theirs = await kubectl(kc, args);
      assert.equal(theirs.run.code, 1);
      assert.equal(theirs.run.err, mine.run.err);
    }
  });
});
