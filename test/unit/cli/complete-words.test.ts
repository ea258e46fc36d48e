// cobra's __complete over kdyn's command table (src/cli/complete-words.ts), for kubectl's plugin
// completion: which list a command line asks for, with which prefix and shell directive, and which
// connection flags go along. Table-driven; the lists themselves are fetched in test/e2e/kubectl-plugin.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { completeWords, NO_FILE_COMP, NO_SPACE, type Plan } from '../../../src/cli/complete-words.js';
import { COMMANDS } from '../../../src/cli/spec.js';

const wordsOf = (plan: Plan): string[] => (plan.kind === 'words' ? plan.words.map((w) => (typeof w === 'string' ? w : w[0])) : []);

describe('completeWords', () => {
  const commands = [...COMMANDS.filter((c) => !c.hidden).map((c) => c.name), 'help'];
  const cases: Array<[string, string[], Partial<Plan> & { words?: string[] }]> = [
    ['no command yet: the commands, no flags', [''], { kind: 'words', words: commands, directive: NO_FILE_COMP }],
    ['a prefix', ['ge'], { kind: 'words', words: ['get'] }],
    ['after a global flag and its value', ['-n', 'x', 've'], { kind: 'words', words: ['version'] }],
    ['the hidden helper is not offered', ['__c'], { kind: 'words', words: [] }],
    ['help TOPIC', ['help', 'wa'], { kind: 'words', words: ['watch'] }],
    ['flags once a dash is typed', ['get', '--show-k'], { kind: 'words', words: ['--show-kind'] }],
    ['-o values (all end in =: no space)', ['get', '-o', 'go'], { kind: 'words', words: ['go-template=', 'go-template-file='], directive: NO_FILE_COMP | NO_SPACE }],
    ['-o values, a space after json', ['get', '-o', 'jsonl'], { kind: 'words', words: ['jsonl'], directive: NO_FILE_COMP }],
    ['--output=VALUE in one word', ['get', '--output=y'], { kind: 'words', words: ['--output=yaml'] }],
    ['choices of a command flag', ['version', '-o', ''], { kind: 'words', words: ['json', 'yaml'] }],
    ['a file flag: the shell completes files', ['apply', '-f', ''], { kind: 'words', words: [], directive: 0 }],
    ['--kubeconfig too', ['--kubeconfig', ''], { kind: 'words', words: [], directive: 0 }],
    ['other value flags: nothing, and no files', ['get', '-l', ''], { kind: 'words', words: [], directive: NO_FILE_COMP }],
    ['types first', ['get', 'ro'], { kind: 'types', prefix: 'ro', suffix: '', directive: NO_FILE_COMP }],
    ['then names of the type, leaving out those given', ['get', 'rockets', 'falcon', ''], { kind: 'names', type: 'rockets', prefix: '', before: '', exclude: ['falcon'] }],
    ['TYPE/NAME', ['watch', 'rockets/fa'], { kind: 'names', type: 'rockets', prefix: 'fa', before: 'rockets/', exclude: [] }],
    ['after TYPE/NAME: TYPE/ (no space)', ['get', 'rockets/falcon', 'ro'], { kind: 'types', prefix: 'ro', suffix: '/', directive: NO_FILE_COMP | NO_SPACE }],
    ['no TYPE/NAME after TYPE NAME', ['get', 'rockets', 'x/'], { kind: 'words', words: [] }],
    ['no names after a list of types', ['get', 'pods,rockets', ''], { kind: 'words', words: [] }],
    ['namespaces after -n', ['get', '-n', 'de'], { kind: 'names', type: 'namespaces', prefix: 'de', before: '' }],
    ['namespaces after --namespace=', ['get', '--namespace=de'], { kind: 'names', type: 'namespaces', prefix: 'de', before: '--namespace=' }],
    ['contexts after --context', ['--context', ''], { kind: 'contexts', prefix: '', before: '', exclude: [] }],
    ['contexts after a comma: the list kept, its names not offered again', ['get', '--context', 'east,west,n'], { kind: 'contexts', prefix: 'n', before: 'east,west,', exclude: ['east', 'west'] }],
    ['contexts after --context=a,', ['get', '--context=east,'], { kind: 'contexts', prefix: '', before: '--context=east,', exclude: ['east'] }],
    ['completion SHELL', ['completion', 'f'], { kind: 'words', words: ['fish'] }],
    ['apply takes no arguments', ['apply', ''], { kind: 'words', words: [] }],
    ['explain: its one type', ['explain', 'de'], { kind: 'types', prefix: 'de', suffix: '', directive: NO_FILE_COMP }],
    ['explain: nothing after the type', ['explain', 'pods', ''], { kind: 'words', words: [] }],
  ];
  for (const [name, line, want] of cases) {
    test(name, () => {
      const { plan } = completeWords(line);
      const { words, ...rest } = want;
      for (const [k, v] of Object.entries(rest)) assert.deepEqual((plan as unknown as Record<string, unknown>)[k], v, `${k} of ${JSON.stringify(plan)}`);
      if (words) assert.deepEqual(wordsOf(plan), words);
    });
  }

  test('connection flags on the line go along, in every form; other flags do not', () => {
    const { connection } = completeWords(['--context', 'c1', 'get', '-o', 'json', '-ndemo', '--kubeconfig=/k', '--as', 'jane', '-A', 'rockets', '']);
    assert.deepEqual(connection, ['--context', 'c1', '-ndemo', '--kubeconfig=/k', '--as', 'jane']);
  });

  test('a lone dash: flags, global and the command\'s', () => {
    const all = wordsOf(completeWords(['get', '-']).plan);
    assert.ok(all.every((w) => w.startsWith('-')));
    for (const w of ['--kubeconfig', '-n', '--as-group', '--show-kind', '-o']) assert.ok(all.includes(w), w);
  });

  test('flags carry their description', () => {
    const { plan } = completeWords(['get', '--all-n']);
    assert.deepEqual(plan.kind === 'words' && plan.words, [['--all-namespaces', 'If present, list the requested object(s) across all namespaces']]);
  });
});
