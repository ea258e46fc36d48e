/**
 * The layering of src/, stated once: which folder may import which. Every relative import of every
 * file under src/ (`import`, `import type`, `export ... from`, `import()`) is checked against it.
 *
 *   core ← jsonpath, gotemplate ← kubeconfig, printers, startup, workqueue ← transport, wait ← discovery,
 *        dynamic ← restmapper, watch, openapi ← apply, informer, live ← applyset, diff ← fleet, typegen, explain ← delete ← (root: index.ts,
 *        connect.ts, the composition root) ← cli
 * (jsonpath and gotemplate are the template engines, leaves that know only core: printers use both,
 * wait reads JSONPath; startup is the process tuning only the CLI uses; informer and
 * workqueue are the library's controller machinery; live is the watch's full-screen view; fleet fans
 * one context's work out over several; typegen makes TypeScript from openapi's schemas, explain text; delete is that verb over one or more contexts.)
 *
 * A folder imports only the folders ALLOWED lists for it, and ALLOWED may only point down LAYERS: an
 * import the table does not list fails, and so does a table entry that points up (or sideways). A
 * new folder fails until it is given a layer. A known break is listed in EXCEPTIONS with its reason,
 * and fails once it is no longer needed, so the list only shrinks.
 *
 * Inside a folder, files import one another in one direction too: no import circle between the
 * files of src/ (runtime and type-only imports, static and dynamic import() alike). A known circle is
 * listed in KNOWN_CIRCLES with its issue, and fails once it is gone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { repoRoot } from '../support/cli.js';

/** The files directly in src/ (index.ts, connect.ts). */
const ROOT = '(root)';

/** Bottom to top: a layer may import only from layers below it. */
const LAYERS: readonly (readonly string[])[] = [
  ['core'],
  ['jsonpath', 'gotemplate'],
  ['kubeconfig', 'printers', 'startup', 'workqueue'],
  ['transport', 'wait'],
  ['discovery', 'dynamic'],
  ['restmapper', 'watch', 'openapi'],
  ['apply', 'informer', 'live'],
  ['applyset', 'diff'],
  ['fleet', 'typegen', 'explain'],
  ['delete'],
  [ROOT],
  ['cli'],
];

/** What each folder may import (besides itself). */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  core: [],
  // The template engines (Go's text/template, client-go's JSONPath): leaves just above core.
  jsonpath: ['core'],
  gotemplate: ['core'],
  kubeconfig: ['core'],
  wait: ['core', 'jsonpath'],
  printers: ['core', 'jsonpath', 'gotemplate'],
  startup: ['core'],
  workqueue: ['core'],
  transport: ['core', 'kubeconfig'],
  discovery: ['core', 'transport'],
  dynamic: ['core', 'transport'],
  restmapper: ['core', 'discovery'],
  watch: ['core', 'dynamic'],
  openapi: ['core', 'transport', 'discovery'],
  typegen: ['core', 'discovery', 'restmapper', 'openapi', 'apply'],
  // What applying would change (kdyn diff): apply's mapping and reads, a dry-run apply, kubectl's YAML texts.
  diff: ['core', 'printers', 'dynamic', 'restmapper', 'apply'],
  // kubectl explain: a resource's OpenAPI v3 schema as text (issue 37).
  explain: ['core', 'jsonpath', 'restmapper', 'openapi'],
  apply: ['core', 'discovery', 'dynamic', 'restmapper', 'wait', 'watch'],
  informer: ['core', 'dynamic', 'watch'],
  // ApplySets (KEP-3659, issue 37): an apply within its set, and the set's prune.
  applyset: ['core', 'discovery', 'dynamic', 'restmapper', 'apply'],
  live: ['core', 'printers'],
  // Several contexts at once (issue 24): what one context does, fanned out, and its output envelopes.
  fleet: ['core', 'kubeconfig', 'printers', 'discovery', 'dynamic', 'restmapper', 'watch', 'apply', 'applyset', 'diff'],
  // The delete verb over one or more contexts (issue 37): targets, DELETEs, the wait until gone, fanned out.
  delete: ['core', 'discovery', 'dynamic', 'restmapper', 'watch', 'apply', 'fleet'],
  [ROOT]: ['core', 'kubeconfig', 'wait', 'printers', 'transport', 'discovery', 'dynamic', 'restmapper', 'watch', 'openapi', 'apply', 'applyset', 'informer', 'workqueue', 'fleet', 'typegen', 'diff', 'explain', 'delete'],
  cli: ['core', 'kubeconfig', 'wait', 'printers', 'startup', 'transport', 'discovery', 'dynamic', 'restmapper', 'watch', 'openapi', 'apply', 'applyset', 'fleet', 'typegen', 'diff', 'explain', 'live', 'delete', ROOT],
};

/** Known breaks of the table: `file -> folder`, with why it is still there. */
const EXCEPTIONS: Readonly<Record<string, string>> = {};

const src = join(repoRoot(), 'src');

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* sources(p);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) yield p;
  }
}

/** The folder of src/ a path (relative to src) belongs to. */
function folderOf(rel: string): string {
  const parts = rel.split(sep);
  return parts.length === 1 ? ROOT : parts[0]!;
}

/** Relative module specifiers: static and type imports, re-exports, dynamic import(). */
function relativeImports(code: string): string[] {
  const specs = [...code.matchAll(/\b(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!);
  return [...new Set(specs)];
}

interface Edge {
  file: string;
  from: string;
  to: string;
}

function edges(): Edge[] {
  const out: Edge[] = [];
  for (const path of sources(src)) {
    const file = relative(src, path);
    for (const spec of relativeImports(readFileSync(path, 'utf8'))) {
      const target = relative(src, resolve(dirname(path), spec));
      const to = target.startsWith('..') ? `outside src (${spec})` : folderOf(target);
      out.push({ file: file.split(sep).join('/'), from: folderOf(file), to });
    }
  }
  return out;
}

const rank = new Map(LAYERS.flatMap((layer, i) => layer.map((f) => [f, i] as const)));

test('the scan finds the imports it checks (dynamic imports and type imports included)', () => {
  assert.deepEqual(relativeImports(`import type { A } from '../a/x.js';\nexport { b } from './b.js';\nconst c = await import('../c/y.js');\nimport '../d/z.js';`), [
    '../a/x.js',
    './b.js',
    '../c/y.js',
    '../d/z.js',
  ]);
  const all = edges();
  assert.ok(all.some((e) => e.file === 'connect.ts' && e.to === 'discovery'), 'the composition root imports discovery');
  assert.ok(all.some((e) => e.from === 'cli' && e.to === ROOT), 'the CLI imports the composition root');
});

test('every folder of src/ has a layer and a line in the table', () => {
  const folders = new Set([ROOT, ...readdirSync(src).filter((n) => statSync(join(src, n)).isDirectory())]);
  for (const f of folders) {
    assert.ok(rank.has(f), `src/${f}/ is in no layer: add it to LAYERS in test/unit/layering.test.ts`);
    assert.ok(ALLOWED[f], `src/${f}/ has no ALLOWED entry in test/unit/layering.test.ts`);
  }
  assert.equal(rank.size, LAYERS.flat().length, 'a folder is in two layers');
});

test('the table points only down the layers', () => {
  for (const [from, tos] of Object.entries(ALLOWED)) {
    for (const to of tos) {
      assert.ok(rank.get(to)! < rank.get(from)!, `ALLOWED lets ${from} import ${to}, which is not below it in LAYERS`);
    }
  }
});

test('every import in src/ follows the table', () => {
  const used = new Set<string>();
  const breaks: string[] = [];
  for (const e of edges()) {
    if (e.from === e.to || ALLOWED[e.from]?.includes(e.to)) continue;
    const key = `${e.file} -> ${e.to}`;
    if (EXCEPTIONS[key]) used.add(key);
    else breaks.push(`src/${e.file} imports ${e.to}; ${e.from} may import only ${ALLOWED[e.from]?.join(', ') || 'nothing'}`);
  }
  assert.deepEqual(breaks, []);
  assert.deepEqual(
    Object.keys(EXCEPTIONS).filter((k) => !used.has(k)),
    [],
    'an exception is no longer needed: remove it from EXCEPTIONS',
  );
});

/**
 * Known import circles, by a file every tolerated circle runs through (a circle is tolerated only
 * when all its files are in that file's folder). Each fails once its circle is gone, so the list only
 * shrinks. Nothing of src/cli/ may be here.
 */
const KNOWN_CIRCLES: Readonly<Record<string, string>> = {
  // None: the printers' shared types moved to the leaf printers/types.ts (issue 36 point 2).
};

/** File -> the files of src/ it imports (any kind of import), paths relative to src/ with `/`. */
function fileGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const files = new Set([...sources(src)].map((p) => relative(src, p).split(sep).join('/')));
  for (const file of files) {
    const targets = relativeImports(readFileSync(join(src, file), 'utf8'))
      .map((spec) => relative(src, resolve(dirname(join(src, file)), spec)).split(sep).join('/').replace(/\.js$/, '.ts'))
      .filter((t) => files.has(t));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The import circles of a graph: its strongly connected components of more than one file, or a file importing itself (Tarjan). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.includes(v)) out.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

test('the circle finder finds circles through type-only and dynamic imports, and none in a line', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts']],
    ['c.ts', ['a.ts', 'd.ts']],
    ['d.ts', []],
    ['e.ts', ['e.ts']],
  ]);
  assert.deepEqual(circles(graph), [['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  assert.deepEqual(circles(new Map([['a.ts', ['b.ts']], ['b.ts', []]])), []);
  assert.deepEqual(relativeImports(`import type { P } from './p.js';\nconst m = () => import('./q.js');`), ['./p.js', './q.js']);
});

test('no import circle between the files of src/ (type-only and dynamic imports included)', (t) => {
  const found = circles(fileGraph());
  const used = new Set<string>();
  const unknown: string[] = [];
  for (const c of found) {
    const key = Object.keys(KNOWN_CIRCLES).find((k) => c.includes(k) && c.every((f) => folderOf(f) === folderOf(k)));
    if (key) {
      used.add(key);
      t.diagnostic(`known circle (${KNOWN_CIRCLES[key]}): ${c.length} files: ${c.map((f) => `src/${f}`).join(', ')}`);
    } else unknown.push(`${c.length} files: ${c.map((f) => `src/${f}`).join(', ')}`);
  }
  assert.deepEqual(unknown, [], 'import circles in src/: make the imports point one way (a shared leaf module for what both sides need)');
  assert.deepEqual(Object.keys(KNOWN_CIRCLES).filter((k) => !used.has(k)), [], 'a known circle is gone: remove it from KNOWN_CIRCLES');
  assert.ok(Object.keys(KNOWN_CIRCLES).every((k) => folderOf(k) !== 'cli'), 'src/cli/ has no known circle');
});
