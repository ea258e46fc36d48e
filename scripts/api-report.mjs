// Writes etc/kdyn.api.md, the library's API report: every name `kdyn` exports, with its declaration
// as the published .d.ts files state it (dist/types, from `node scripts/build.mjs --declarations`),
// then the declarations those name that the package does not export (a user meets them in a
// signature but cannot import them). Comments are left out, so the report changes only when the
// surface does; a reviewer sees a surface change as a diff of this file.
//
//   node scripts/api-report.mjs           rewrite etc/kdyn.api.md
//   node scripts/api-report.mjs --check   exit 1 if it differs from dist/types (a unit test runs this)
//   --report FILE                         read or write FILE instead (the test checks a changed copy)
//
// Read with TypeScript's compiler API (a devDependency already): the checker follows the entry
// point's re-exports to the declaring file, as a consumer's compiler does.
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const REPORT = 'etc/kdyn.api.md';
const ENTRY = 'dist/types/index.d.ts';
const UPDATE_COMMAND = 'node scripts/build.mjs --declarations && node scripts/api-report.mjs';

const HEADER = `# kdyn: API report

The public surface of \`import ... from 'kdyn'\`, generated from the published declarations
(\`${ENTRY}\`) by \`scripts/api-report.mjs\`: do not edit. After a change to what the library exports,
or to the shape of an exported declaration, run \`${UPDATE_COMMAND}\` and commit this
file with the change; \`test/unit/docs/api-report.test.ts\` fails until then. What each export is
for: [docs/library.md](../docs/library.md#api-reference).
`;

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });
const typesDir = `${join(root, 'dist', 'types').split(sep).join('/')}/`;

/** The statement to print for a declaration: a `const`'s whole statement, else the node itself. */
function statementOf(decl) {
  return ts.isVariableDeclaration(decl) ? decl.parent.parent : decl;
}

/** One declaration as text: no comments, no `export`/`declare`, 4-space indents made 2. */
function print(decl) {
  const text = printer.printNode(ts.EmitHint.Unspecified, statementOf(decl), decl.getSourceFile());
  return text.replace(/^export (declare )?|^declare /, '').replace(/^( {4})+/gm, (s) => ' '.repeat(s.length / 2));
}

const isOwn = (decl) => decl.getSourceFile().fileName.startsWith(typesDir);
const where = (decl) => relative(join(root, 'dist', 'types'), decl.getSourceFile().fileName).split(sep).join('/');

/** The kdyn declarations a declaration's types name (type references, `typeof x`, heritage clauses). */
function referenced(checker, decl) {
  const found = [];
  const visit = (node) => {
    let name;
    if (ts.isTypeReferenceNode(node)) name = node.typeName;
    else if (ts.isExpressionWithTypeArguments(node)) name = node.expression;
    else if (ts.isTypeQueryNode(node)) name = node.exprName;
    if (name) {
      let sym = checker.getSymbolAtLocation(ts.isQualifiedName(name) ? name.right : name);
      if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
      for (const d of sym?.declarations ?? []) if (isOwn(d) && !ts.isTypeParameterDeclaration(d)) found.push(d);
    }
    ts.forEachChild(node, visit);
  };
  visit(statementOf(decl));
  return found;
}

/** The report's text from the declarations under dist/types. */
function apiReport() {
  const entry = join(root, ENTRY);
  if (!existsSync(entry)) throw new Error(`${ENTRY} is missing: run node scripts/build.mjs --declarations first`);
  const program = ts.createProgram([entry], { skipLibCheck: true, noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, types: ['node'], typeRoots: [join(root, 'node_modules/@types')] });
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(entry));
  const exported = checker.getExportsOfModule(moduleSymbol).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  const shown = new Set();
  const queue = [];
  const out = [HEADER, `## Exported (${exported.length} names)`, ''];
  for (const sym of exported) {
    const target = sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym;
    const decls = (target.declarations ?? []).filter(isOwn);
    const alias = target.name !== sym.name ? ` (exported as ${sym.name})` : '';
    out.push(`### \`${sym.name}\``, '', `${where(decls[0])}${alias}`, '', '```ts');
    for (const d of decls) {
      shown.add(d);
      out.push(print(d));
      queue.push(...referenced(checker, d));
    }
    out.push('```', '');
  }

  // What the surface names but the package does not export, to a fixed point.
  const unexported = [];
  while (queue.length) {
    const d = queue.shift();
    if (shown.has(d)) continue;
    shown.add(d);
    unexported.push(d);
    queue.push(...referenced(checker, d));
  }
  unexported.sort((a, b) => where(a).localeCompare(where(b)) || print(a).localeCompare(print(b)));
  out.push(`## Named by the surface, not exported (${unexported.length} declarations)`, '');
  out.push('A user meets these in a signature above and cannot import them by name.', '');
  let file = '';
  for (const d of unexported) {
    if (where(d) !== file) {
      if (file) out.push('```', '');
      file = where(d);
      out.push(`### ${file}`, '', '```ts');
    }
    out.push(print(d));
  }
  if (file) out.push('```', '');
  return out.join('\n');
}

function main() {
  const check = process.argv.includes('--check');
  const at = process.argv.indexOf('--report');
  const path = at > 0 ? process.argv[at + 1] : join(root, REPORT);
  if (!path) throw new Error('--report needs a file');
  const next = apiReport();
  const old = existsSync(path) ? readFileSync(path, 'utf8') : '';
  if (next === old) return;
  if (check) {
    console.error(`${relative(root, path) || path} differs from the library's surface in ${ENTRY}: the exports or an exported declaration changed.\nReview the difference, then run: ${UPDATE_COMMAND}`);
    process.exit(1);
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, next);
  console.log(`wrote ${REPORT}`);
}

try {
  main();
} catch (e) {
  console.error(`api-report: ${e.message}`);
  process.exit(1);
}
