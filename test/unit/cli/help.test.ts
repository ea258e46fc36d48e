// The yargs-rendered help lists every command and flag of the declarative table (src/cli/spec.ts),
// with kubectl-style examples; `kdyn --help` / `kdyn get --help` exit 0; yargs stays off the
// `--version` path (checked in the bundle's chunk graph and at run time).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderHelp, formatExamples } from '../../../src/cli/help.js';
import { COMMANDS, GLOBAL_FLAGS, type FlagSpec } from '../../../src/cli/spec.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../../..');

function flagPattern(f: FlagSpec): RegExp {
  const long = f.name.length === 1 ? `-${f.name}` : `--${f.name}`;
  const short = f.short && f.short !== f.name ? `-${f.short}, ` : '';
  return new RegExp(`^\\s+${escape(short + long)}\\s`, 'm');
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('renderHelp', () => {
  test('top-level help lists every command with its summary and every global flag', async () => {
    const text = await renderHelp();
    for (const c of COMMANDS.filter((h) => !h.hidden)) {
      assert.match(text, new RegExp(`^ {2}${escape(c.name)}\\s+${escape(c.summary)}$`, 'm'), c.name);
    }
    assert.match(text, /^\s+version\s/m);
    // kubectl's groups, in kubectl's order, each command under its own group.
    const at = (h: string) => text.indexOf(`\n${h}\n`);
    assert.ok(at('Basic Commands (Intermediate):') > 0 && at('Basic Commands (Intermediate):') < at('Settings Commands:'));
    assert.ok(at('Settings Commands:') < at('Other Commands:'));
    assert.match(text, /Basic Commands \(Intermediate\):\n {2}explain +Get documentation for a resource\n {2}get +Display one or many resources\n/, "kubectl's order: explain, then get");
    assert.match(text, /Advanced Commands:\n {2}diff +.*\n {2}apply +.*\n {2}applyset +/, "kubectl's order: diff, then apply (its ApplySets' listing after it)");
    assert.match(text, /Other Commands:\n(?: {2}\S+ +.*\n)* {2}version +Print the client/);
    for (const c of COMMANDS) assert.ok(c.examples.length > 0, `${c.name} has examples`);
    for (const f of GLOBAL_FLAGS.filter((g) => !g.hidden)) assert.match(text, flagPattern(f), f.name);
    assert.match(text, /Use "kdyn <command> --help"/);
  });

  for (const spec of COMMANDS) {
    test(`${spec.name} --help: description, flags, global flags, examples, usage`, async () => {
      const text = await renderHelp(spec);
      // yargs wraps the description at the help width
      assert.ok(text.replace(/\s+/g, ' ').startsWith(spec.description ?? spec.summary), text.slice(0, 80));
      const flags = text.indexOf('\nFlags:\n');
      const globals = text.indexOf('\nGlobal Flags:\n');
      const examples = text.indexOf('\nExamples:\n');
      assert.ok(spec.flags.length === 0 || (flags > 0 && flags < globals), 'Flags before Global Flags');
      assert.ok(globals > 0 && examples > globals, 'Examples after the flags');
      for (const f of spec.flags.filter((g) => !g.hidden)) {
        const at = text.slice(flags, globals).search(flagPattern(f));
        assert.ok(at >= 0, `flag ${f.name} listed under Flags`);
      }
      for (const f of GLOBAL_FLAGS.filter((g) => !g.hidden)) assert.match(text.slice(globals), flagPattern(f), f.name);
      for (const [comment, command] of spec.examples) assert.ok(text.includes(`  # ${comment}\n  ${command}\n`), `example ${command}`);
      assert.match(text, new RegExp(`Usage:\\n  kdyn ${escape(spec.name)} `));
      assert.doesNotMatch(text, /[ \t]$/m, 'no trailing spaces');
      // cobra's (kubectl's) text for -h names the command, not the program.
      assert.match(text, new RegExp(`^ +-h, --help +help for ${escape(spec.name)} `, 'm'));
    });
  }

  test('as a kubectl plugin, usage lines and examples say `kubectl kdyn`', async () => {
    const get = COMMANDS.find((c) => c.name === 'get')!;
    const text = await renderHelp(get, { prog: 'kubectl kdyn' });
    assert.match(text, /Usage:\n {2}kubectl kdyn get \[/);
    assert.match(text, /^ {2}kubectl kdyn get pods$/m);
    assert.match(text, /Use "kubectl kdyn --help" for a list of all commands\./);
    assert.doesNotMatch(text, /^ {2}kdyn /m, 'no example left saying plain kdyn');
    const apply = await renderHelp(COMMANDS.find((c) => c.name === 'apply'), { prog: 'kubectl kdyn' });
    assert.match(apply, /^ {2}cat manifest\.yaml \| kubectl kdyn apply -f -$/m, 'kdyn after a pipe too');
    const top = await renderHelp(undefined, { prog: 'kubectl kdyn' });
    assert.match(top, /Usage:\n {2}kubectl kdyn <command> \[flags\]\n\nUse "kubectl kdyn <command> --help"/);
    assert.match(top, /^ +-h, --help +help for kdyn /m);
  });

  test('formatExamples uses kubectl layout', () => {
    const spec = { ...COMMANDS[0]!, examples: [['First', 'kdyn a'], ['Second', 'kdyn b']] as Array<[string, string]> };
    assert.equal(formatExamples(spec), 'Examples:\n  # First\n  kdyn a\n\n  # Second\n  kdyn b\n');
  });
});

describe('built CLI', { skip: existsSync(join(root, 'dist/cli/bin.js')) ? false : 'CLI not built' }, () => {
  let home: string;
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'kdyn-help-'));
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [join(root, 'bin/kdyn'), ...args], { encoding: 'utf8', env: { ...process.env, HOME: home, XDG_CACHE_HOME: join(home, '.cache'), ...env } });

  test('kdyn --help lists version and every command, exit 0', () => {
    const r = run(['--help']);
    assert.equal(r.status, 0, r.stderr);
    for (const c of COMMANDS.filter((h) => !h.hidden)) assert.match(r.stdout, new RegExp(`^ {2}${escape(c.name)}\\s`, 'm'));
  });

  test('kdyn get --help exits 0 with examples', () => {
    const r = run(['get', '--help']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Examples:\n {2}# /);
    assert.match(r.stdout, /--output/);
  });

  test('kdyn help get is kdyn get --help (kubectl help get); an unknown topic says so, as kubectl', () => {
    const viaHelp = run(['help', 'get']);
    assert.equal(viaHelp.status, 0, viaHelp.stderr);
    assert.equal(viaHelp.stdout, run(['get', '--help']).stdout);
    assert.match(viaHelp.stdout, /^Display one or many resources/);
    assert.equal(run(['help', '-n', 'x', 'watch']).stdout, run(['watch', '-h']).stdout, 'flags around the topic');
    const unknown = run(['help', 'nosuch']);
    assert.equal(unknown.status, 0);
    assert.equal(unknown.stdout, `Unknown help topic [\`nosuch\`]\n${run(['--help']).stdout}`);
    assert.equal(run(['help']).stdout, run(['--help']).stdout);
  });

  test('--version does not load yargs; --help does', () => {
    const version = run(['--version'], { NODE_DEBUG: 'module' });
    assert.equal(version.status, 0);
    assert.doesNotMatch(version.stderr, /yargs/);
    const help = run(['--help'], { NODE_DEBUG: 'module' });
    assert.match(help.stderr, /yargs/, 'the check can see yargs being loaded');
  });

  test('yargs is a file of its own (dist/cli/lib/yargs.js), loaded only for help', { skip: existsSync(join(root, 'build/cli-meta.json')) ? false : 'no metafile' }, () => {
    const meta = JSON.parse(readFileSync(join(root, 'build/cli-meta.json'), 'utf8')) as {
      outputs: Record<string, { imports: Array<{ path: string; kind: string }>; inputs: Record<string, unknown> }>;
    };
    const bin = meta.outputs['dist/cli/bin.js'];
    assert.ok(bin, 'dist/cli/bin.js is in the metafile');
    assert.deepEqual(Object.keys(bin.inputs).filter((i) => i.includes('node_modules/yargs')), []);
    assert.ok(bin.imports.some((i) => i.path === './lib/yargs.js'), 'bin.js requires ./lib/yargs.js');
    assert.ok(existsSync(join(root, 'dist/cli/lib/yargs.js')));
    // What a run actually loads (bin/kdyn puts the bundle's files into require.cache).
    const home = mkdtempSync(join(tmpdir(), 'kdyn-help-load-'));
    try {
      const probe = join(home, 'probe.cjs');
      writeFileSync(probe, "process.on('exit', () => process.stderr.write('\\nLOADED ' + JSON.stringify(Object.keys(require.cache))));\n");
      const loaded = (args: string[]): string[] => {
        const r = spawnSync(process.execPath, ['-r', probe, join(root, 'bin/kdyn'), ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: home } });
        assert.equal(r.status, 0, r.stderr);
        return JSON.parse(r.stderr.split('\nLOADED ').pop()!) as string[];
      };
      assert.ok(!loaded(['version', '--client']).some((f) => f.endsWith('lib/yargs.js')), 'version --client does not load yargs');
      assert.ok(loaded(['--help']).some((f) => f.endsWith('dist/cli/lib/yargs.js')), '--help loads yargs');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
