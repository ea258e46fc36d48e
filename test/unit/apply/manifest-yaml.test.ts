/**
 * The manifest YAML fast path (src/core/yaml-fast.ts `parseManifestStream`) differentially against
 * js-yaml's `loadAll`, which reads everything the fast path refuses: whatever it accepts must equal
 * js-yaml's documents exactly (the objects kdyn sends, and so every answer, stay the same). The
 * block style tools and people write must be accepted, or the fast path would not pay; a seeded
 * fuzz of edits to those files checks "accepted => equal" on inputs nobody wrote by hand.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { parseManifestStream } from '../../../src/core/yaml-fast.js';
import { decodeManifests } from '../../../src/apply/manifests.js';
import { repoRoot } from '../../support/cli.js';

/** Accepted => equal to js-yaml's loadAll. Returns whether it was accepted. */
function agrees(text: string): boolean {
  const fast = parseManifestStream(text);
  if (fast === undefined) return false;
  let slow: unknown[];
  try {
    slow = loadAll(text);
  } catch (e) {
    assert.fail(`fast parser accepted what js-yaml refuses (${(e as Error).message.split('\n')[0]}):\n${text}`);
  }
  assert.deepStrictEqual(fast, slow, `fast parser differs from js-yaml on:\n${JSON.stringify(text)}`);
  return true;
}

// The bench's input (bench/cases/diff.ts): a Namespace and ConfigMaps with a literal block each.
function benchInput(): string {
  const docs = ['apiVersion: v1\nkind: Namespace\nmetadata:\n  name: diff-bench\n'];
  for (let i = 0; i < 200; i++) {
    docs.push(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: diff-bench-${String(i).padStart(3, '0')}\n  namespace: diff-bench\n  labels:\n    app: diff-bench\ndata:\n  index: "${i}"\n  release: v${i % 3}\n  settings.yaml: |\n    replicas: 3\n    mode: bench\n`);
  }
  return docs.join('---\n');
}

const DEPLOYMENT = `# The web tier.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels:
    app.kubernetes.io/name: web
    app.kubernetes.io/part-of: shop
  annotations:
    kubernetes.io/change-cause: rolled out by the CI pipeline
spec:
  replicas: 3
  revisionHistoryLimit: 0
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: registry.example.com/shop/web:1.25.3
        args:
        - --port=8080
        - --log-level=debug
        ports:
        - containerPort: 8080
          name: http
          protocol: TCP
        env:
        - name: GREETING
          value: hello from the web tier
        - name: EMPTY
          value: ""
        - name: NEGATIVE
          value: "-1"
        resources:
          limits:
            cpu: 500m
            memory: 128Mi
        readinessProbe:
          httpGet:
            path: /healthz
            port: http
          periodSeconds: 5
        command:
          - /bin/sh
          - -c
      volumes: []
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
    - port: 80
      targetPort: -8080
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: scripts
data:
  run.sh: |-
    #!/bin/sh
    set -e

    echo "starting: $1"
      indented more
  config.yaml: |
    # a comment inside the text
    key: value


  last: done
`;

describe('the manifest YAML fast path', () => {
  test('the block style manifests are written in is accepted and read as js-yaml reads it', () => {
    for (const text of [benchInput(), DEPLOYMENT, `${DEPLOYMENT}---\n`, `---\n${DEPLOYMENT}`, `# header\n---\n${DEPLOYMENT}`]) {
      assert.ok(agrees(text), `refused:\n${text.slice(0, 300)}`);
    }
  });

  test('empty documents are null where js-yaml has them, none before the first ---', () => {
    for (const text of ['', '\n', '# only a comment\n', '---\n', 'a: 1\n---\n', 'a: 1\n---\n---\nb: 2\n', 'a: 1\n---\n# comment\n', '---\n---\n']) {
      assert.ok(agrees(text), `refused: ${JSON.stringify(text)}`);
    }
    assert.deepEqual(parseManifestStream('a: 1\n---\n---\nb: 2\n'), [{ a: 1 }, null, { b: 2 }]);
  });

  test('literal block scalars: clip and strip, empty lines kept inside, the text ends at the first less indented line', () => {
    const cases: Array<[string, unknown]> = [
      ['a: |\n  x\n  y', { a: 'x\ny\n' }],
      ['a: |-\n  x\n  y\nb: 1\n', { a: 'x\ny', b: 1 }],
      ['a: |\n  x\n\n  y\n\n\nb: 1\n', { a: 'x\n\ny\n', b: 1 }],
      ['a: |\n  #x\n  y\n# after\nb: 1\n', { a: '#x\ny\n', b: 1 }],
      ['l:\n- k: |\n    x\n  m: 2\n', { l: [{ k: 'x\n', m: 2 }] }],
    ];
    for (const [text, want] of cases) {
      assert.ok(agrees(text), `refused: ${JSON.stringify(text)}`);
      assert.deepEqual(parseManifestStream(text), [want]);
    }
  });

  test('what it cannot read exactly is left to js-yaml', () => {
    const refused = [
      'a: |+\n  x\n', 'a: >\n  x\n', 'a: |2\n   x\n', 'a: |\n\n  x\n', 'a: |\n  x\n   \n  y\n', 'a: |\n', 'a: |\nb: 1\n',
      'a: 0755\n', 'a: +5\n', 'a: 1_000\n', 'a: 1.5\n', 'a: 12345678901234567890\n', 'a: -0\n', 'a: 1e3\n',
      'a: yes\n', 'a: x #c\n', 'a: [1, 2]\n', 'a: {b: 1}\n', 'a: &x 1\nb: *x\n', 'a: !!str 1\n', 'a: b: c\n',
      'a: 1\r\n', 'a:\t1\n', '\ufeffa: 1\n', 'a: 1\n...\n', '%YAML 1.2\n---\na: 1\n', '--- a: 1\n', '--- \na: 1\n',
      'a: 1 \n', '\u00a0a: 1\n', 'a: 1\na: 2\n', '  a: 1\n', 'a:  b\n', '- - a\n', '- |\n  x\n',
    ];
    for (const text of refused) {
      assert.equal(parseManifestStream(text), undefined, `should refuse: ${JSON.stringify(text)}`);
    }
  });

  test('the repository\'s YAML fixtures: accepted ones equal js-yaml', () => {
    for (const f of ['test/fixtures/explain/widgets-crd.yaml', 'test/fixtures/typegen/gadgets-crd.yaml', 'test/fixtures/restmapper-corpus/crds.yaml']) {
      agrees(readFileSync(join(repoRoot(), f), 'utf8'));
    }
  });

  test('seeded edits of the accepted files: whatever is accepted equals js-yaml', () => {
    let seed = 37;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pieces = [' ', '  ', '\n', '-', '- ', ': ', ':', '#', '|', '|-', '"', "'", '0', '7', '-1', 'x', 'true', 'null', '---\n', '\n\n', 'a: |\n', '  ', '\\n', '.', '/'];
    const bases = [DEPLOYMENT, benchInput().slice(0, 2000), 'a: |\n  x\n\n  y\nb:\n- 1\n- c: d\n'];
    let accepted = 0;
    for (let n = 0; n < 4000; n++) {
      const base = bases[rand(bases.length)]!;
      let text = base;
      for (let k = 1 + rand(3); k > 0; k--) {
        const at = rand(text.length + 1);
        const cut = rand(3);
        text = text.slice(0, at) + pieces[rand(pieces.length)]! + text.slice(at + cut);
      }
      if (agrees(text)) accepted++;
    }
    // The edits leave many inputs in the subset, so the comparison is exercised.
    assert.ok(accepted > 400, `only ${accepted} of 4000 edited inputs were accepted`);
  });

  test('decodeManifests gives the same manifests through the fast path as through js-yaml', () => {
    const text = `${DEPLOYMENT}---\n`;
    const fast = decodeManifests(text, 'app.yaml');
    const viaJsYaml = decodeManifests(`${text}# a tab\there sends this input to js-yaml\n`, 'app.yaml');
    assert.equal(parseManifestStream(`${text}# a tab\there\n`), undefined);
    assert.deepEqual(fast, viaJsYaml);
    assert.equal(fast.manifests.length, 3);
  });
});
