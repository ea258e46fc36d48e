/**
 * `kdyn watch --show-managed-fields` does what its help says for each output: -o jsonl drops
 * managedFields unless asked; -o json and -o yaml (kubectl's watch events, as `kubectl get -w
 * --output-watch-events` prints them: compared with kubectl where it is installed) and templates
 * always have them.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';
import { hasKubectl, runKdyn } from '../support/cli.js';
import { startProcess } from './watch-helpers.js';

let env: ServerEnv;
let shellEnv: Record<string, string>;
before(async () => {
  env = await startServerEnv({ seed: 'demo' }, 'kdyn-e2e-watch-mf-');
  shellEnv = { HOME: env.dir, PATH: process.env.PATH ?? '', KUBECONFIG: env.kubeconfig };
});
after(() => env.stop());

/** The first event of `kdyn watch rockets falcon -n demo -o OUTPUT`. */
async function firstEvent(output: string, show: boolean): Promise<string> {
  const r = await runKdyn(['watch', 'rockets', 'falcon', '-n', 'demo', '-o', output, '--max-events', '1', ...(show ? ['--show-managed-fields'] : [])], { env: shellEnv });
  assert.equal(r.code, 0, r.err);
  return r.out;
}

test('the help says what the flag does for each output', async () => {
  const help = await runKdyn(['watch', '--help'], { env: shellEnv });
  const text = help.out.replace(/\s+/g, ' ');
  assert.match(text, /--show-managed-fields If true, keep the managedFields in -o jsonl \(dropped by default\)\. -o json and -o yaml print kubectl's watch events, which always keep them, and templates always see them; tables and -o name never show them\./);
});

test('-o jsonl drops managedFields unless --show-managed-fields', async () => {
  assert.doesNotMatch(await firstEvent('jsonl', false), /managedFields/);
  assert.match(await firstEvent('jsonl', true), /"managedFields":\[\{/);
});

test('-o json, -o yaml and templates have them either way', async () => {
  for (const show of [false, true]) {
    assert.match(await firstEvent('json', show), /"managedFields":\[\{/);
    assert.match(await firstEvent('yaml', show), /^ {4}managedFields:$/m);
    assert.equal(await firstEvent('jsonpath={.object.metadata.managedFields[0].operation}', show), 'Update');
  }
});

test('-o json is kubectl get -w --output-watch-events -o json: managedFields kept', { skip: hasKubectl() ? false : 'kubectl not on PATH' }, async () => {
  // kubectl's watch runs until stopped: it is stopped once its first event is out (a fixed
  // --request-timeout would also bound its discovery and list, which a loaded machine can exceed).
  const theirs = startProcess('kubectl', ['get', 'rockets', 'falcon', '-n', 'demo', '-w', '--output-watch-events', '-o', 'json'], shellEnv, env.dir);
  const firstOf = (out: string) => /^.*\n/.exec(out)?.[0]; // a watch event is one line of JSON
  try {
    await theirs.until((out) => firstOf(out) !== undefined, 30_000, 'kubectl\'s first event');
  } finally {
    theirs.child.kill('SIGKILL');
  }
  const mine = await firstEvent('json', false);
  assert.match(mine, /"managedFields":\[\{/);
  assert.equal(mine, firstOf(theirs.out()), 'the first event, byte for byte');
});
