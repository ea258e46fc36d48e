/**
 * `kdyn get -o go-template=...` and friends (go-template-file, template, templatefile, --template,
 * jsonpath-as-json) with the built CLI against the seeded local API server, next to kubectl v1.32
 * on the same server: stdout, stderr and exit code byte for byte, including a template that fails
 * half way (kubectl prints the output so far and its debugging dump to stdout).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HAS_KUBECTL, startGetEnv, type GetEnv } from './get-helpers.js';

let env: GetEnv;
before(async () => {
  env = await startGetEnv();
});
after(() => env.stop());

const RANGE = '{{range .items}}{{.metadata.namespace}}/{{.metadata.name}} {{.spec.engines}} {{printf "%T" .spec.engines}}{{"\\n"}}{{end}}';

const CASES: Array<[string, string[], number]> = [
  ['go-template over a List', ['get', 'rockets', '-A', '-o', `go-template=${RANGE}`], 0],
  ['template= is the same printer', ['get', 'rockets', '-A', '-o', `template=${RANGE}`], 0],
  ['--template with -o go-template', ['get', 'rockets', '-A', '-o', 'go-template', '--template', '{{len .items}} {{.kind}}'], 0],
  ['one named object', ['get', 'rocket', 'falcon', '-n', 'demo', '-o', 'go-template={{.metadata.name}} {{.spec}}'], 0],
  ['a whole List printed as a Go map', ['get', 'rocket', 'falcon', 'nope', '-n', 'demo', '-o', 'go-template={{.kind}} {{len .items}}'], 1],
  ['an execution error half way', ['get', 'rockets', '-A', '-o', 'go-template={{range .items}}{{.metadata.name}} {{index .spec.engines 0}}{{end}}'], 1],
  ['a parse error', ['get', 'rockets', '-A', '-o', 'go-template={{.items}'], 1],
  ['no template (a usage error: exit 2)', ['get', 'rockets', '-A', '-o', 'go-template='], 2],
  ['missing keys as errors', ['get', 'rocket', 'falcon', '-n', 'demo', '-o', 'go-template={{.spec.nope}}', '--allow-missing-template-keys=false'], 1],
  ['missing keys print nothing in jsonpath by default', ['get', 'rocket', 'falcon', '-n', 'demo', '-o', 'jsonpath={.metadata.name}:{.spec.nope.deeper}:{.status}.'], 0],
  ['missing keys print <no value> in go-template by default', ['get', 'rockets', '-A', '-o', 'go-template={{range .items}}{{.spec.nope}} {{end}}'], 0],
  ['jsonpath-as-json', ['get', 'rockets', '-A', '-o', 'jsonpath-as-json={.items[*].metadata.name}{.items[0].spec}'], 0],
  ['jsonpath-as-json with a range', ['get', 'rockets', '-A', '-o', 'jsonpath-as-json={range .items[*]}{.metadata.name}{end}'], 0],
  ['an unknown format names the template formats (exit 2)', ['get', 'rockets', '-o', 'gotemplate'], 2],
];

describe('go-template and jsonpath-as-json: byte for byte with kubectl', () => {
  for (const [what, args, code] of CASES) {
    test(what, async (t) => {
      const [k, c] = await Promise.all([env.kdyn(args), HAS_KUBECTL ? env.kubectl(args) : undefined]);
      assert.equal(k.code, code, `kdyn ${args.join(' ')}: ${k.err}`);
      if (!c) return t.skip('kubectl not on PATH (exit code checked only)');
      // Usage errors: kdyn exits 2 and points at --help; the message is kubectl's (kubectl has no jsonl).
      if (code === 2) assert.equal(k.err.replace(` (see 'kdyn get --help')`, '').replace('json,jsonl,', 'json,'), c.err);
      else assert.equal(k.err, c.err);
      assert.equal(k.out, c.out);
    });
  }

  test('go-template-file and templatefile read the template from a file', async (t) => {
    writeFileSync(join(env.dir, 'names.tmpl'), '{{range .items -}}\n{{.metadata.name}}\n{{end}}');
    for (const o of ['go-template-file=names.tmpl', 'templatefile=names.tmpl', 'go-template-file=missing.tmpl']) {
      const args = ['get', 'rockets', '-A', '-o', o];
      const [k, c] = await Promise.all([env.kdyn(args), HAS_KUBECTL ? env.kubectl(args) : undefined]);
      if (o.startsWith('go-template-file=missing')) assert.equal(k.code, 1);
      else assert.match(k.out, /^falcon$/m);
      if (!c) return t.skip('kubectl not on PATH');
      assert.equal(k.code, c.code);
      assert.equal(k.err, c.err);
      assert.equal(k.out, c.out);
    }
  });
});
