// Context selection and -n lists (src/fleet/select.ts, src/fleet/namespaces.ts): which forms are a
// fleet, what they select from a kubeconfig's contexts, and the errors that name what is wrong.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { globToRegExp, parseContextSelector, selectContexts } from '../../../src/fleet/select.js';
import { parseNamespaces } from '../../../src/fleet/namespaces.js';
import { ConfigError, UsageError } from '../../../src/core/errors.js';
import { naturalCompare } from '../../../src/core/natural.js';

const AVAILABLE = ['staging', 'prod-east', 'prod-west', 'prod-eu-1', 'arn:aws:eks:eu-west-1:1:cluster/prod', 'dev'];

describe('parseContextSelector', () => {
  const cases: Array<[string, string | undefined, boolean, ReturnType<typeof parseContextSelector>]> = [
    ['no flag: the current context', undefined, false, { kind: 'single', name: undefined }],
    ['one plain name: kubectl\'s single context', 'prod-east', false, { kind: 'single', name: 'prod-east' }],
    ['a name with / and : stays one context', 'arn:aws:eks:eu-west-1:1:cluster/prod', false, { kind: 'single', name: 'arn:aws:eks:eu-west-1:1:cluster/prod' }],
    ['a comma list', 'a,b', false, { kind: 'fleet', patterns: ['a', 'b'], all: false }],
    ['a glob alone is a fleet', 'prod-*', false, { kind: 'fleet', patterns: ['prod-*'], all: false }],
    ['a class', '[ab]x', false, { kind: 'fleet', patterns: ['[ab]x'], all: false }],
    ['--all-contexts', undefined, true, { kind: 'fleet', patterns: [], all: true }],
  ];
  for (const [name, context, all, want] of cases) test(name, () => assert.deepEqual(parseContextSelector(context, all), want));
  test('an empty item and --context with --all-contexts are usage errors', () => {
    assert.throws(() => parseContextSelector('a,,b', false), (e: unknown) => e instanceof UsageError && /empty context name/.test(e.message));
    assert.throws(() => parseContextSelector('a', true), (e: unknown) => e instanceof UsageError && /cannot be used together/.test(e.message));
  });
});

describe('selectContexts', () => {
  const sel = (context: string) => selectContexts(parseContextSelector(context, false) as Extract<ReturnType<typeof parseContextSelector>, { kind: 'fleet' }>, AVAILABLE, 'kubeconfig "k"');
  const cases: Array<[string, string, string[]]> = [
    ['names in the order given', 'staging,prod-east', ['staging', 'prod-east']],
    ['a glob\'s matches sorted', 'prod-*', ['prod-east', 'prod-eu-1', 'prod-west']],
    ['? is one character', 'prod-e??t', ['prod-east']],
    ['a class and a negated class', 'prod-[!e]*,prod-[e]ast', ['prod-west', 'prod-east']],
    ['each context once', 'prod-east,prod-*', ['prod-east', 'prod-eu-1', 'prod-west']],
    ['* crosses / (context names are not paths)', 'arn:*/prod', ['arn:aws:eks:eu-west-1:1:cluster/prod']],
  ];
  for (const [name, context, want] of cases) test(name, () => assert.deepEqual(sel(context), want));
  test('all: every context sorted', () => {
    assert.deepEqual(selectContexts({ kind: 'fleet', patterns: [], all: true }, AVAILABLE), [...AVAILABLE].sort(naturalCompare));
  });
  test('numbers in names sort naturally: f1, f2, f10 (a glob\'s matches and --all-contexts)', () => {
    const fleet = ['f10', 'f2', 'f1', 'f1b', 'f01', 'east-12', 'east-3', 'g'];
    const all = selectContexts({ kind: 'fleet', patterns: [], all: true }, fleet);
    assert.deepEqual(all, ['east-3', 'east-12', 'f1', 'f01', 'f1b', 'f2', 'f10', 'g']);
    assert.deepEqual(selectContexts({ kind: 'fleet', patterns: ['f*'], all: false }, fleet), ['f1', 'f01', 'f1b', 'f2', 'f10']);
  });
  test('naturalCompare: digits by value, the rest as sort() orders it', () => {
    const names = ['b', 'a100', 'a20', 'a3', 'A1', 'a', 'a03', 'a3x', 'x99999999999999999999', 'x100000000000000000000'];
    assert.deepEqual([...names].sort(naturalCompare), ['A1', 'a', 'a3', 'a03', 'a3x', 'a20', 'a100', 'b', 'x99999999999999999999', 'x100000000000000000000']);
    assert.equal(naturalCompare('same', 'same'), 0);
  });
  test('a missing name or an empty glob: an error naming it and the kubeconfig', () => {
    assert.throws(() => sel('prod-east,nope'), (e: unknown) => e instanceof ConfigError && e.message === 'context "nope" does not exist in kubeconfig "k"');
    assert.throws(() => sel('qa-*'), (e: unknown) => e instanceof ConfigError && e.message === '--context pattern "qa-*" matches no context in kubeconfig "k"');
    assert.throws(() => selectContexts({ kind: 'fleet', patterns: [], all: true }, []), ConfigError);
  });
  test('globToRegExp escapes what is not a glob', () => {
    assert.ok(globToRegExp('a.b*').test('a.bc'));
    assert.ok(!globToRegExp('a.b*').test('axbc'));
    assert.ok(globToRegExp('x[').test('x['));
  });
});

describe('parseNamespaces', () => {
  test('a list, each once, in order; none; empty items refused', () => {
    assert.deepEqual(parseNamespaces('b,a,b'), ['b', 'a']);
    assert.deepEqual(parseNamespaces('demo'), ['demo']);
    assert.equal(parseNamespaces(undefined), undefined);
    assert.equal(parseNamespaces(''), undefined);
    assert.throws(() => parseNamespaces('a,'), UsageError);
  });
});
