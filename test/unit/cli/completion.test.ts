// The bash completion script: generated from the command table, valid bash, and completing
// commands, per-command flags, global flags and `-o` formats (run in a real bash when available).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { completionScript } from '../../../src/cli/completion.js';
import { COMMANDS } from '../../../src/cli/spec.js';

const hasBash = spawnSync('bash', ['-c', 'exit 0']).status === 0;

/** Completes `line` (the words before the cursor plus the current word) in bash and returns COMPREPLY. */
function complete(words: string[]): string[] {
  const script = `${completionScript('bash')}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}
kdyn() { case "$2" in types) echo "configmaps pods deployments.apps" ;; names) case "$3" in */*) echo "\${3%%/*}/falcon \${3%%/*}/electron" ;; *) echo "names-of-$3" ;; esac ;; contexts) echo "ctx-a ctx-b" ;; esac; }
_kdyn; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter((l) => l !== '');
}

describe('completion', () => {
  test('every command and every command flag appears in the script', () => {
    const s = completionScript('bash');
    for (const c of COMMANDS.filter((h) => !h.hidden)) {
      assert.ok(s.includes(` ${c.name}) flags="`), c.name);
      for (const f of c.flags) assert.ok(s.includes(`--${f.name}`), `${c.name} --${f.name}`);
    }
    assert.ok(completionScript('zsh').startsWith('#compdef kdyn\n# zsh\'s completion system must be loaded first: autoload -Uz compinit && compinit\nautoload -U +X bashcompinit'));
  });

  test('bash accepts the script', { skip: hasBash ? false : 'bash not found' }, () => {
    const r = spawnSync('bash', ['-n'], { input: completionScript('bash'), encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });

  test('completes commands, flags, -o formats and resource types', { skip: hasBash ? false : 'bash not found' }, () => {
    assert.deepEqual(complete(['kdyn', 'ge']), ['get']);
    assert.deepEqual(complete(['kdyn', '-n', 'kube-system', 've']), ['version']);
    assert.deepEqual(complete(['kdyn', 'get', '--sh']).sort(), ['--show-kind', '--show-labels', '--show-managed-fields'].filter((f) => COMMANDS.find((c) => c.name === 'get')!.flags.some((g) => `--${g.name}` === f)).sort());
    assert.deepEqual(complete(['kdyn', 'get', '-o', 'js']), ['json', 'jsonl', 'jsonpath=', 'jsonpath-file=', 'jsonpath-as-json=']);
    assert.deepEqual(complete(['kdyn', 'get', '-o', 'go']), ['go-template=', 'go-template-file=']);
    assert.deepEqual(complete(['kdyn', 'get', 'con']), ['configmaps']);
    assert.deepEqual(complete(['kdyn', '__com']), [], 'the hidden helper is not offered');
    assert.deepEqual(complete(['kdyn', 'version', '--kubec']), ['--kubeconfig']);
    assert.deepEqual(complete(['kdyn', 'explain', 'dep']), ['deployments.apps'], 'explain: the type');
    assert.deepEqual(complete(['kdyn', 'explain', 'pods', '']), [], 'explain: no object names');
  });

  test('kdyn <TAB> offers the commands (and help), flags only after a dash', { skip: hasBash ? false : 'bash not found' }, () => {
    const commands = complete(['kdyn', '']);
    assert.deepEqual(commands, [...COMMANDS.filter((c) => !c.hidden).map((c) => c.name), 'help']);
    assert.deepEqual(complete(['kdyn', '-n', 'x', '']), commands);
    assert.ok(complete(['kdyn', '-']).every((w) => w.startsWith('-')) && complete(['kdyn', '-']).includes('--kubeconfig'));
    assert.deepEqual(complete(['kdyn', 'help', 'g']), ['get']);
    assert.deepEqual(complete(['kdyn', 'help', 'get', '']), []);
  });

  test('asks kdyn __complete for names, namespaces and contexts, passing the connection flags', { skip: hasBash ? false : 'bash not found' }, () => {
    assert.deepEqual(complete(['kdyn', '--context', 'c1', 'get', 'pods', '-n', 'ns1', '-o', 'json', 'names-']), ['names-of-pods']);
    const argsSeen = spawnSync('bash', ['-c', `${completionScript('bash')}
COMP_WORDS=(kdyn --kubeconfig /k --context=c1 get pods -n ns1 -o json ''); COMP_CWORD=10
kdyn() { local IFS='|'; echo "$*"; }
_kdyn; echo "\${COMPREPLY[*]}"`], { encoding: 'utf8' }).stdout;
    assert.equal(argsSeen, '__complete|names|pods|--kubeconfig|/k|--context=c1|-n|ns1\n');
    assert.deepEqual(complete(['kdyn', 'get', '-n', 'nam']), ['names-of-namespaces']);
    assert.deepEqual(complete(['kdyn', '--context', 'ctx-']), ['ctx-a', 'ctx-b']);
    assert.deepEqual(complete(['kdyn', 'get', 'pods/x', '']), ['configmaps/', 'pods/', 'deployments.apps/'], 'after TYPE/NAME, kubectl offers TYPE/ again');
    assert.deepEqual(complete(['kdyn', 'get', 'rockets/f']), ['rockets/falcon'], 'TYPE/NAME words complete names');
    assert.deepEqual(complete(['kdyn', 'get', 'pods/x', 'rockets/']), ['rockets/falcon', 'rockets/electron']);
    assert.deepEqual(complete(['kdyn', 'get', 'pods', 'rockets/']), [], 'no TYPE/NAME after TYPE NAME... (kubectl refuses the mix)');
    assert.deepEqual(complete(['kdyn', 'completion', 'f']), ['fish']);
  });
});
