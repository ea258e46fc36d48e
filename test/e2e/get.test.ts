/**
 * `kdyn get` (the built CLI) against the seeded local API server, next to kubectl v1.32 on the same
 * server where kubectl is installed: tables byte for byte (the server's clock is fixed, so AGE cells
 * agree), name line by line, json/yaml after parsing, jsonpath and custom-columns byte for byte.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { HAS_KUBECTL, startGetEnv, type GetEnv, type Run } from './get-helpers.js';

let env: GetEnv;
before(async () => {
  env = await startGetEnv();
});
after(() => env.stop());

/** Runs both tools; asserts equal exit codes and stderr, returns both runs. */
async function both(t: { skip(msg: string): void }, args: string[]): Promise<{ k: Run; c?: Run }> {
  const [k, c] = await Promise.all([env.kdyn(args), HAS_KUBECTL ? env.kubectl(args) : undefined]);
  if (!c) {
    t.skip('kubectl not on PATH (kdyn output checked on its own only)');
    return { k };
  }
  assert.equal(k.code, c.code, `exit code of kdyn ${args.join(' ')}\nkdyn: ${k.err}\nkubectl: ${c.err}`);
  assert.equal(k.err, c.err, `stderr of ${args.join(' ')}`);
  return { k, c };
}

/** A test's comparison with kubectl: runs `check` on kubectl's run, or skips the test, saying so, where kubectl is missing. */
function vsKubectl(t: { skip(msg: string): void }, c: Run | undefined, check: (c: Run) => void): void {
  if (!c) return t.skip('kubectl not on PATH: the comparison with kubectl did not run');
  check(c);
}

describe('tables: byte for byte with kubectl', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['TYPE (built-in)', ['get', 'configmaps', '-n', 'demo'], /^NAME +DATA +AGE\napp-config +2 +0s\n$/],
    ['CRD printer columns, -A', ['get', 'rockets', '-A'], /^NAMESPACE +NAME +STAGE +ENGINES +AGE\ndemo +electron/],
    ['-o wide shows priority columns', ['get', 'rockets', '-n', 'demo', '-o', 'wide'], /^NAME +STAGE +ENGINES +PAD +AGE\n/],
    ['cluster-scoped CRD', ['get', 'launchpads'], /^NAME +LOCATION +AGE\n/],
    ['short name, singular, Kind, resource.group, resource.version.group', ['get', 'rkt', '-n', 'demo'], /^NAME +STAGE +ENGINES +AGE\n/],
    ['TYPE1,TYPE2: one table per type with kind/name', ['get', 'rockets,launchpads,configmaps', '-n', 'demo'], /\n\nNAME +LOCATION +AGE\nlaunchpad\.demo\.kdyn\.dev\/lc-39a/],
    ['category all', ['get', 'all', '-n', 'demo'], /^NAME +READY +STATUS +RESTARTS +AGE\npod\/web-/],
    ['CRD-defined category (one type: no kind prefix)', ['get', 'fleet', '-A'], /^NAMESPACE +NAME +STAGE +ENGINES +AGE\ndemo +electron /],
    ['TYPE NAME...', ['get', 'rocket', 'falcon', 'electron', '-n', 'demo'], /^NAME +STAGE +ENGINES +AGE\nfalcon +orbit +9 .*\nelectron /],
    ['TYPE/NAME...', ['get', 'rocket/falcon', 'cm/app-config', 'rocket/electron', '-n', 'demo'], /^NAME +STAGE +ENGINES +AGE\nrocket\.demo\.kdyn\.dev\/falcon /],
    ['TYPE1,TYPE2 NAME: the launchpad is missing (exit 1), one kind found: no kind prefix', ['get', 'rockets,launchpads', 'falcon', '-n', 'demo'], /^NAME +STAGE +ENGINES +AGE\nfalcon /],
    ['-A with a cluster-scoped type after a namespaced one (kubectl keeps the NAMESPACE column)', ['get', 'rockets,launchpads', '-A'], /\n\nNAMESPACE +NAME +LOCATION +AGE\n +launchpad/],
    ['-A with a cluster-scoped type first', ['get', 'launchpads,rockets', '-A'], /^NAME +LOCATION +AGE\n/],
    ['--show-labels', ['get', 'rockets', '-n', 'demo', '--show-labels'], /LABELS\n.*app=electron/],
    ['-L', ['get', 'rockets', '-A', '-L', 'tier', '-L', 'app,nope'], /TIER +APP +NOPE\n/],
    ['--show-kind', ['get', 'rockets', '-n', 'demo', '--show-kind'], /\nrocket\.demo\.kdyn\.dev\/electron /],
    ['--no-headers', ['get', 'rockets,launchpads', '-A', '--no-headers'], /^demo +rocket\.demo\.kdyn\.dev\/electron/],
    ['-l', ['get', 'rockets', '-A', '-l', 'tier=heavy'], /falcon/],
    ['--field-selector', ['get', 'rockets', '-A', '--field-selector', 'metadata.name=falcon'], /^NAMESPACE.*\ndemo +falcon /],
    ['--sort-by a number', ['get', 'rockets', '-A', '--sort-by', '.spec.engines'], /electron[^]*falcon[^]*starship/],
    ['--sort-by a string', ['get', 'rockets', '-A', '--sort-by', '{.spec.stage}'], /electron[^]*falcon[^]*starship/],
    ['--chunk-size 1', ['get', 'rockets', '-A', '--chunk-size', '1'], /^NAMESPACE +NAME/],
    ['namespaces', ['get', 'namespaces'], /^NAME +STATUS +AGE\ndefault +Active +0s\n/],
    ['pods, deployments, services', ['get', 'pods,deploy,svc', '-n', 'demo', '-o', 'wide'], /deployment\.apps\/web/],
  ];
  for (const [what, args, shape] of cases) {
    test(`${what}: ${args.slice(1).join(' ')}`, async (t) => {
      const { k, c } = await both(t, args);
      assert.equal(k.code, what.includes('exit 1') ? 1 : 0, k.err);
      assert.match(k.out, shape);
      vsKubectl(t, c, (c) => assert.equal(k.out, c.out));
    });
  }
});

describe('object outputs', () => {
  test('-o name', async (t) => {
    const { k, c } = await both(t, ['get', 'rockets,launchpads,cm', '-A', '-o', 'name']);
    assert.match(k.out, /^rocket\.demo\.kdyn\.dev\/electron\n/m);
    assert.match(k.out, /^launchpad\.demo\.kdyn\.dev\/lc-39a$/m);
    assert.match(k.out, /^configmap\/app-config$/m);
    vsKubectl(t, c, (c) => assert.equal(k.out, c.out));
  });

  for (const fmt of ['json', 'yaml']) {
    const parse = (s: string) => (fmt === 'json' ? JSON.parse(s) : load(s));
    test(`-o ${fmt}: a List for lists`, async (t) => {
      const { k, c } = await both(t, ['get', 'rockets,launchpads', '-n', 'demo', '-o', fmt]);
      const got = parse(k.out) as { kind: string; apiVersion: string; metadata: unknown; items: Array<{ kind: string }> };
      assert.equal(got.kind, 'List');
      assert.equal(got.apiVersion, 'v1');
      assert.deepEqual(got.metadata, { resourceVersion: '' });
      assert.deepEqual(got.items.map((i) => i.kind), ['Rocket', 'Rocket', 'LaunchPad', 'LaunchPad']);
      vsKubectl(t, c, (c) => assert.deepEqual(got, parse(c.out)));
    });
    test(`-o ${fmt}: the object itself for one named object`, async (t) => {
      const { k, c } = await both(t, ['get', 'cm', 'app-config', '-n', 'demo', '-o', fmt]);
      const got = parse(k.out) as { kind: string };
      assert.equal(got.kind, 'ConfigMap');
      vsKubectl(t, c, (c) => assert.deepEqual(got, parse(c.out)));
    });
    test(`-o ${fmt}: an empty List for an empty result`, async (t) => {
      const { k, c } = await both(t, ['get', 'cm', '-n', 'team-b', '-o', fmt]);
      assert.deepEqual(parse(k.out), { apiVersion: 'v1', items: [], kind: 'List', metadata: { resourceVersion: '' } });
      vsKubectl(t, c, (c) => assert.equal(k.out, c.out));
    });
  }

  test('-o json: two named objects make a List', async (t) => {
    const { k, c } = await both(t, ['get', 'rocket', 'falcon', 'electron', '-n', 'demo', '-o', 'json']);
    assert.equal(JSON.parse(k.out).items.length, 2);
    vsKubectl(t, c, (c) => assert.deepEqual(JSON.parse(k.out), JSON.parse(c.out)));
  });

  test('-o json is byte for byte kubectl\'s (4-space indent, sorted keys)', async (t) => {
    const { k, c } = await both(t, ['get', 'rockets', '-A', '-o', 'json']);
    vsKubectl(t, c, (c) => assert.equal(k.out, c.out));
  });

  test('-o jsonl: one object per line, the items of the List', async (t) => {
    const k = await env.kdyn(['get', 'rockets', '-A', '-o', 'jsonl']);
    assert.equal(k.code, 0, k.err);
    const lines = k.out.trimEnd().split('\n');
    assert.equal(lines.length, 3);
    const objs = lines.map((l) => JSON.parse(l));
    assert.deepEqual(objs.map((o) => o.metadata.name), ['electron', 'falcon', 'starship']);
    assert.ok(objs.every((o) => o.kind === 'Rocket' && o.apiVersion === 'demo.kdyn.dev/v1'));
    if (!HAS_KUBECTL) return t.skip('kubectl not on PATH');
    const c = await env.kubectl(['get', 'rockets', '-A', '-o', 'json']);
    assert.deepEqual(objs, JSON.parse(c.out).items);
  });

  const templates: Array<[string, string[]]> = [
    ['jsonpath items', ['-o', 'jsonpath={.items[*].metadata.name}']],
    ['jsonpath range', ['-o', 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{"\\t"}{.spec.engines}{"\\n"}{end}']],
    ['custom-columns', ['-o', 'custom-columns=NAME:.metadata.name,ENGINES:.spec.engines,PAD:.spec.launchPad,NONE:.spec.nope']],
    ['custom-columns --no-headers', ['-o', 'custom-columns=NAME:.metadata.name', '--no-headers']],
    ['jsonpath --sort-by', ['-o', 'jsonpath={.items[*].spec.engines}', '--sort-by=.spec.engines']],
  ];
  for (const [what, flags] of templates) {
    test(`${what}: byte for byte`, async (t) => {
      const { k, c } = await both(t, ['get', 'rockets', '-A', ...flags]);
      assert.equal(k.code, 0, k.err);
      assert.ok(k.out.length > 0);
      vsKubectl(t, c, (c) => assert.equal(k.out, c.out));
    });
  }

  test('jsonpath on one named object', async (t) => {
    const { k, c } = await both(t, ['get', 'rocket', 'falcon', '-n', 'demo', '-o', 'jsonpath={.spec.engines}']);
    assert.equal(k.out, '9');
    vsKubectl(t, c, (c) => assert.equal(k.out, c.out));
  });

  test('jsonpath-file and custom-columns-file', async (t) => {
    writeFileSync(join(env.dir, 'names.jsonpath'), '{range .items[*]}{.metadata.name}{"\\n"}{end}');
    writeFileSync(join(env.dir, 'cols.txt'), 'NAME          STAGE\n.metadata.name .spec.stage\n');
    for (const o of [`jsonpath-file=${join(env.dir, 'names.jsonpath')}`, 'custom-columns-file=cols.txt']) {
      const { k, c } = await both(t, ['get', 'rockets', '-A', '-o', o]);
      assert.equal(k.code, 0, k.err);
      assert.match(k.out, /falcon/);
      vsKubectl(t, c, (c) => assert.equal(k.out, c.out));
    }
  });
});

describe('not found, empty, unknown', () => {
  test('NotFound: kubectl\'s message, found objects still printed, exit 1', async (t) => {
    const { k, c } = await both(t, ['get', 'cm', 'app-config', 'zz', 'yy', '-n', 'demo']);
    assert.equal(k.code, 1);
    assert.equal(k.err, 'Error from server (NotFound): configmaps "zz" not found\nError from server (NotFound): configmaps "yy" not found\n');
    assert.match(k.out, /^NAME +DATA +AGE\napp-config /);
    vsKubectl(t, c, (c) => assert.equal(k.out, c.out));
  });

  test('NotFound with -o json for one named object: nothing on stdout', async (t) => {
    const { k } = await both(t, ['get', 'rocket', 'zz', '-n', 'demo', '-o', 'json']);
    assert.equal(k.code, 1);
    assert.equal(k.out, '');
    assert.equal(k.err, 'Error from server (NotFound): rockets.demo.kdyn.dev "zz" not found\n');
  });

  test('--ignore-not-found: exit 0, no message', async (t) => {
    const { k } = await both(t, ['get', 'cm', 'zz', '-n', 'demo', '--ignore-not-found']);
    assert.equal(k.code, 0);
    assert.equal(k.out + k.err, '');
  });

  const empty: Array<[string[], string]> = [
    [['get', 'cm', '-n', 'team-b'], 'No resources found in team-b namespace.\n'],
    [['get', 'launchpads', '-l', 'x=y'], 'No resources found\n'],
    [['get', 'cm', '-A', '-l', 'x=y'], 'No resources found\n'],
    [['get', 'cm,launchpads', '-n', 'team-b', '-l', 'x=y'], 'No resources found\n'],
  ];
  for (const [args, msg] of empty) {
    test(`empty result: ${args.slice(1).join(' ')}`, async (t) => {
      const { k } = await both(t, args);
      assert.equal(k.code, 0);
      assert.equal(k.out, '');
      assert.equal(k.err, msg);
    });
  }

  test('empty result with -o name prints nothing at all, as kubectl', async (t) => {
    const { k } = await both(t, ['get', 'cm', '-n', 'team-b', '-o', 'name']);
    assert.equal(k.code, 0);
    assert.equal(k.out + k.err, '');
  });

  for (const args of [['get', 'cm', '-n', 'demo', '--field-selector', 'x=y'], ['get', 'cm', '-n', 'demo', '--field-selector', 'x=y', '-o', 'name']]) {
    test(`a list the server refuses (400): kubectl's "Unable to find ..." wording: ${args.slice(1).join(' ')}`, async (t) => {
      const { k } = await both(t, args);
      assert.equal(k.code, 1);
      assert.equal(k.out, '');
      assert.match(k.err, /^Error from server \(BadRequest\): Unable to find "\/v1, Resource=configmaps" that match label selector "", field selector "x=y": /);
    });
  }

  test('unknown type', async (t) => {
    const { k } = await both(t, ['get', 'nosuchthing']);
    assert.equal(k.code, 1);
    assert.match(k.err, /^error: the server doesn't have a resource type "nosuchthing"\n$/);
  });

  test('usage errors', async () => {
    const noArgs = await env.kdyn(['get']);
    assert.equal(noArgs.code, 2); // a usage error found before any request (kubectl: 1)
    assert.match(noArgs.err, /Required resource not specified/);
    const sel = await env.kdyn(['get', 'cm', 'x', '-l', 'a=b']);
    assert.match(sel.err, /name cannot be provided when a selector is specified/);
    const fmt = await env.kdyn(['get', 'cm', '-o', 'xml']);
    assert.equal(fmt.code, 2);
    assert.match(fmt.err, /unable to match a printer suitable for the output format "xml"/);
  });

  // get and get -w read their shared flags in one place (src/cli/get-flags.ts): they answered differently once.
  for (const watch of [[], ['-w'], ['--watch-only']]) {
    for (const [what, args] of [
      ['a name with a selector', ['get', 'cm', 'x', '-n', 'demo', '-l', 'a=b']],
      ['a name across all namespaces', ['get', 'cm', 'x', '-A']],
    ] as const) {
      test(`${what}${watch.length ? ` with ${watch[0]}` : ''}: exit 1, kubectl's message`, async (t) => {
        const { k } = await both(t, [...args, ...watch]);
        assert.equal(k.code, 1);
        assert.match(k.err, /^error: (name cannot be provided when a selector is specified|a resource cannot be retrieved by name across all namespaces)\n$/);
      });
    }
    test(`--chunk-size -1${watch.length ? ` with ${watch[0]}` : ''}: a usage error before any request (kubectl: the server's 400)`, async (t) => {
      const args = ['get', 'cm', '-n', 'demo', '--chunk-size=-1', ...watch];
      const [k, c] = await Promise.all([env.kdyn(args), HAS_KUBECTL ? env.kubectl(args) : undefined]);
      assert.equal(k.code, 2);
      assert.equal(k.out, '');
      assert.match(k.err, /^error: invalid argument "-1" for "--chunk-size" flag: must be a non-negative integer \(see 'kdyn get --help'\)\n$/);
      vsKubectl(t, c, (c) => {
        assert.equal(c.code, 1);
        assert.match(c.err, /limit: Invalid value: "-1": must be a non-negative integer/);
      });
    });
  }
});
