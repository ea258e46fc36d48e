/**
 * The kubeconfig YAML fast path (src/core/yaml-fast.ts) differentially against js-yaml:
 * whatever the fast parser accepts must equal js-yaml's `load` exactly; what it refuses goes to
 * js-yaml. The common writers' files (kubectl, kind, cloud CLIs) must be accepted, or the fast
 * path would not pay.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { dump, load } from 'js-yaml';
import { parseKubeconfigYaml } from '../../../src/core/yaml-fast.js';

/** Accepted => equal to js-yaml. Returns whether it was accepted. */
function agrees(text: string): boolean {
  const fast = parseKubeconfigYaml(text);
  if (fast === undefined) return false;
  let slow: unknown;
  try {
    slow = load(text);
  } catch (e) {
    assert.fail(`fast parser accepted what js-yaml refuses (${(e as Error).message.split('\n')[0]}):\n${text}`);
  }
  assert.deepStrictEqual(fast, slow, `fast parser differs from js-yaml on:\n${text}`);
  return true;
}

const CA = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSURFRENDQWZpZ0F3SUJBZ0lRTk+/abc=';

// As `kubectl config view --raw` writes it (sequences at the parent's indent).
const KUBECTL = `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${CA}
    server: https://127.0.0.1:6443
  name: kind-kind
- cluster:
    insecure-skip-tls-verify: true
    server: https://10.0.0.1
    tls-server-name: kube.example
    proxy-url: http://proxy.corp:3128
  name: other
contexts:
- context:
    cluster: kind-kind
    user: kind-kind
  name: kind-kind
- context:
    cluster: other
    namespace: team-a
    user: "exec-user"
  name: other
current-context: kind-kind
kind: Config
preferences: {}
users:
- name: kind-kind
  user:
    client-certificate-data: ${CA}
    client-key-data: ${CA}
- name: token-user
  user:
    token: 0e4049de2ac94623644f86b3541998e751467ff152f3160c
- name: exec-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args:
      - get-token
      - --cluster=other
      command: gke-gcloud-auth-plugin
      env:
      - name: AWS_PROFILE
        value: prod
      - name: EMPTY
        value: ""
      interactiveMode: IfAvailable
      provideClusterInfo: true
`;

// As kdyn's local API server and many tools (js-yaml/`yaml` dump) write it: sequences indented.
const INDENTED = `apiVersion: v1
kind: Config
clusters:
  - name: kdyn-local
    cluster:
      server: https://127.0.0.1:41139
      certificate-authority-data: ${CA}
contexts:
  - name: kdyn-local
    context:
      cluster: kdyn-local
      user: kdyn-local
current-context: kdyn-local
preferences: {}
users:
  - name: kdyn-local
    user:
      token: 9f4049de2ac94623644f86b3541998e751467ff152f3160c
`;

describe('kubeconfig YAML fast path', () => {
  test('the common writers\' files are accepted and equal js-yaml\'s result', () => {
    assert.equal(agrees(KUBECTL), true);
    assert.equal(agrees(INDENTED), true);
    assert.equal(agrees(KUBECTL.replace(/\n/g, '\r\n')), true);
    assert.equal(agrees(`# written by kind\n${INDENTED}\n\n# trailing comment\n`), true);
    assert.equal(agrees("users:\n- name: 'it''s'\n  user:\n    token: \"a\\\"b\\\\c\"\n"), true);
    assert.equal(agrees('current-context: ""\nclusters: []\ncontexts:\nusers: null\n'), true);
  });

  test('refuses what is outside the subset (js-yaml decides those)', () => {
    const refused = [
      'a: &x 1\nb: *x\n', // anchors, aliases
      'clusters: [{name: a}]\n', // flow sequence with content
      'a: {b: 1}\n', // flow mapping with content
      'a: |\n  line\n', // block scalars
      'a: >-\n  folded\n',
      'a: !!str 1\n', // tags
      '---\na: 1\n', // document markers
      'a: 1\n---\nb: 2\n', // multi-document
      'a:\n\tb: 1\n', // tabs
      'a: b # trailing comment\n',
      'a: 1\n', 'a: 1.5\n', 'a: 0x1f\n', 'a: 1e3\n', 'a: 2024-01-01\n', 'a: 012\n', // numbers and dates
      'a: yes\n', 'a: True\n', 'a: NULL\n', // other booleans/nulls
      'a: two words\n', // spaces in plain scalars
      'a: -1\n', 'a: -.5\n', 'a: .inf\n', 'a: - x\n',
      'a: b\na: c\n', // duplicate key (js-yaml throws)
      '<<: {}\n',
      '? complex\n: key\n',
      'a: "unterminated\n',
      'a: "\\u0041"\n', // escapes other than the few kubeconfig writers use
      '  a: 1\n', // indented root
      'a:\n  b: 1\n c: 2\n', // odd indentation
      'a: 1 \n', // trailing space
      '%YAML 1.2\n---\na: 1\n',
      '\ufeffa: b\n',
      '',
      '# only a comment\n',
    ];
    for (const text of refused) assert.equal(parseKubeconfigYaml(text), undefined, `should refuse: ${JSON.stringify(text)}`);
  });

  test('digit-first plain scalars: hex tokens are strings, numbers are refused', () => {
    assert.deepEqual(parseKubeconfigYaml('token: 0e4049de2ac9\n'), { token: '0e4049de2ac9' });
    assert.equal(agrees('token: 0e4049de2ac9\n'), true);
    assert.equal(agrees('token: 12abcdef\n'), true);
    assert.equal(agrees('args:\n- --region=eu-west-1\n- -v\n'), true);
    for (const v of ['0e40', '1E5', '0x1A', '0o17', '0b101', '123', '1_000', '1:30', '1.2.3', '12-ab']) {
      assert.equal(parseKubeconfigYaml(`token: ${v}\n`), undefined, v);
    }
  });

  test('differential: random kubeconfig-shaped documents, dumped by js-yaml in several styles', () => {
    let seed = 42;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const strings = [
      'https://127.0.0.1:6443', 'kind-kind', 'a', 'x.y/z', 'team-a', '', ' lead', 'trail ', 'with space', 'it\'s', 'say "hi"',
      'back\\slash', 'tab\there', 'new\nline', 'true', 'false', 'null', '~', 'yes', 'No', '123', '0x10', '1e3', '2024-01-01',
      '0e4049de2ac9', '9f40', 'a: b', 'a #b', '#c', '-dash', '--flag=1', '[x]', '{y}', '*star', '&amp', '!bang', '%pct', '@at',
      '`tick`', 'é-unicode', 'LS0tLS1CRUdJTi+/=', 'v1', 'client.authentication.k8s.io/v1', ':colon', 'colon:', '?q', '|pipe', '>gt',
    ];
    const value = (depth: number): unknown => {
      const k = rnd(depth > 2 ? 4 : 8);
      if (k === 0) return true;
      if (k === 1) return false;
      if (k === 2) return null;
      if (k === 3 || k === 4) return strings[rnd(strings.length)];
      if (k === 5) return Array.from({ length: rnd(3) }, () => (rnd(2) ? strings[rnd(strings.length)] : mapping(depth + 1)));
      return mapping(depth + 1);
    };
    const keys = ['name', 'server', 'token', 'cluster', 'user', 'exec', 'args', 'env', 'value', 'certificate-authority-data', 'as-groups', 'a b', 'true', '1', 'x:y'];
    const mapping = (depth: number): Record<string, unknown> => {
      const o: Record<string, unknown> = {};
      for (let i = rnd(4); i >= 0; i--) o[keys[rnd(keys.length)]!] = value(depth);
      return o;
    };
    let accepted = 0;
    let total = 0;
    for (let i = 0; i < 1500; i++) {
      const doc = {
        apiVersion: 'v1',
        clusters: Array.from({ length: 1 + rnd(3) }, () => ({ name: strings[rnd(strings.length)], cluster: mapping(1) })),
        users: Array.from({ length: rnd(3) }, () => ({ name: strings[rnd(strings.length)], user: mapping(1) })),
        'current-context': strings[rnd(strings.length)],
      };
      for (const opts of [{}, { noArrayIndent: true }, { indent: 4 }, { quotingType: '"' as const }, { forceQuotes: true }, { flowLevel: 3 }]) {
        total++;
        if (agrees(dump(doc, opts))) accepted++;
      }
    }
    // Both outcomes must occur for the test to mean something.
    assert.ok(accepted > total / 10, `accepted ${accepted} of ${total}`);
    assert.ok(accepted < total, `accepted ${accepted} of ${total}`);
  });
});
