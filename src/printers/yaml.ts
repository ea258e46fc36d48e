/**
 * YAML as `kubectl -o yaml` prints it (sigs.k8s.io/yaml over gopkg.in/yaml.v2), rendered with
 * js-yaml 5: keys sorted, sequences not indented, no anchors, and yaml.v2's scalar styles:
 * - strings a YAML 1.1 reader would take for something else (`yes`, `on`, `~`, `123`, `0x1F`,
 *   `1e3`, `1_000`, `1:20`, dates, `""`) are double-quoted;
 * - strings that cannot be plain (`a: b`, `#x`, `*`, leading/trailing spaces) are single-quoted;
 * - multi-line strings are literal blocks (`|`, `|-`, `|+`), unless they hold trailing spaces
 *   or non-printable characters, which force double quotes;
 * - numbers as Go formats int64/float64 (`1.2345675e+06`).
 * Known difference: yaml.v2 folds plain and quoted scalars longer than ~80 columns onto
 * continuation lines; kdyn never folds (lineWidth -1), which reads back to the same value.
 */
import { dump, visit, SCALAR_STYLE, type DumpOptions } from 'js-yaml';
import { formatGoFloat } from './json.js';

type Layout = Parameters<NonNullable<DumpOptions['scalarStyleRules']>[number]>[0];

const STR = 'tag:yaml.org,2002:str';

/** One object as `kubectl get NAME -o yaml` prints it (ends with a newline). */
export function toYAML(obj: unknown): string {
  const out = dump(obj, OPTIONS);
  // yaml.v2 escapes characters outside the BMP in double-quoted scalars (the only style they get).
  return /[\u{10000}-\u{10ffff}]/u.test(out)
    ? out.replace(/[\u{10000}-\u{10ffff}]/gu, (c) => `\\U${c.codePointAt(0)!.toString(16).toUpperCase().padStart(8, '0')}`)
    : out;
}

/** Several documents separated by `---`, as kubectl prints objects one after another. */
export function toYAMLDocuments(objs: Iterable<unknown>): string {
  let out = '';
  let first = true;
  for (const o of objs) {
    if (!first) out += '---\n';
    out += toYAML(o);
    first = false;
  }
  return out;
}

const OPTIONS: DumpOptions = {
  sortKeys: compareKeys,
  seqNoIndent: true,
  noRefs: true,
  lineWidth: -1,
  quoteStyle: 'double',
  scalarStyleRules: [yamlV2Style],
  transform: (docs) =>
    visit(docs, (node) => {
      if (node.kind !== 'scalar') return;
      if (node.tag === 'tag:yaml.org,2002:int' || node.tag === 'tag:yaml.org,2002:float') {
        node.value = goYAMLNumber(Number(node.value));
      }
    }),
};

function has(mask: number, style: number): boolean {
  return (mask & (1 << style)) !== 0;
}

/** yaml.v2's choice of scalar style (encode.go stringv plus libyaml's yaml_emitter_analyze_scalar). */
function yamlV2Style(layout: Layout): void {
  const { node } = layout;
  const mask = layout.allowedStylesMask;
  if (node.tag !== STR) {
    // numbers, booleans, null: plain as rendered
    if (!has(mask, SCALAR_STYLE.PLAIN)) layout.style = SCALAR_STYLE.DOUBLE_QUOTED;
    return;
  }
  const s = node.value;
  const a = analyze(s);
  if (a.special) {
    layout.style = SCALAR_STYLE.DOUBLE_QUOTED;
  } else if (s.includes('\n')) {
    const blockOk = !layout.isKey && a.blockAllowed && has(mask, SCALAR_STYLE.LITERAL_BLOCK);
    layout.style = blockOk ? SCALAR_STYLE.LITERAL_BLOCK : SCALAR_STYLE.DOUBLE_QUOTED;
  } else if (resolvesToNonString(s)) {
    layout.style = SCALAR_STYLE.DOUBLE_QUOTED;
  } else if (a.plainAllowed) {
    layout.style = SCALAR_STYLE.PLAIN;
  } else if (a.singleAllowed && has(mask, SCALAR_STYLE.SINGLE_QUOTED)) {
    layout.style = SCALAR_STYLE.SINGLE_QUOTED;
  } else {
    layout.style = SCALAR_STYLE.DOUBLE_QUOTED;
  }
}

// libyaml (Go port) is_printable: no tab, no NEL, nothing outside the BMP, no BOM/U+FFFE/U+FFFF.
// U+2028/U+2029 count as special here too: libyaml treats them as line breaks inside quoted
// scalars (re-indenting after them), which kdyn does not reproduce; double quotes keep the value.
// eslint-disable-next-line no-control-regex
const SPECIAL = /[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]/;

interface Analysis {
  special: boolean;
  plainAllowed: boolean;
  singleAllowed: boolean;
  blockAllowed: boolean;
}

/** libyaml's yaml_emitter_analyze_scalar for block context. */
function analyze(s: string): Analysis {
  if (s === '') return { special: false, plainAllowed: false, singleAllowed: true, blockAllowed: false };
  if (SPECIAL.test(s)) return { special: true, plainAllowed: false, singleAllowed: false, blockAllowed: false };
  let blockIndicators = s.startsWith('---') || s.startsWith('...');
  let lineBreaks = false;
  let spaceBreak = false;
  let breakSpace = false;
  let prevSpace = false;
  let prevBreak = false;
  let precededByWs = true;
  const blank = (c: string | undefined) => c === undefined || c === ' ' || c === '\t' || c === '\n';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    const followedByWs = blank(s[i + 1]);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(c)) blockIndicators = true;
      if ((c === '?' || c === ':' || c === '-') && followedByWs) blockIndicators = true;
    } else {
      if (c === ':' && followedByWs) blockIndicators = true;
      if (c === '#' && precededByWs) blockIndicators = true;
    }
    if (c === ' ') {
      if (prevBreak) breakSpace = true;
      prevSpace = true;
      prevBreak = false;
    } else if (c === '\n') {
      lineBreaks = true;
      if (prevSpace) spaceBreak = true;
      prevBreak = true;
      prevSpace = false;
    } else {
      prevSpace = false;
      prevBreak = false;
    }
    precededByWs = blank(c);
  }
  const leadOrTrail = s[0] === ' ' || s[0] === '\n' || s.endsWith(' ') || s.endsWith('\n');
  return {
    special: false,
    plainAllowed: !leadOrTrail && !breakSpace && !spaceBreak && !lineBreaks && !blockIndicators,
    singleAllowed: !breakSpace && !spaceBreak,
    blockAllowed: !spaceBreak && !s.endsWith(' '),
  };
}

/** gopkg.in/yaml.v2's key order (sorter.go): letters after other runes, digit runs compared as numbers. */
export function yamlV2KeyLess(a: string, b: string): boolean {
  const ar = [...a];
  const br = [...b];
  const isLetter = (c: string) => /\p{L}/u.test(c);
  const isDigit = (c: string | undefined) => c !== undefined && /\p{Nd}/u.test(c);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]!);
    const bl = isLetter(br[i]!);
    if (al && bl) return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    let bi = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10n + BigInt(ar[ai]!.codePointAt(0)! - 48);
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10n + BigInt(br[bi]!.codePointAt(0)! - 48);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
  }
  return ar.length < br.length;
}

function compareKeys(a: unknown, b: unknown): number {
  const x = String(a);
  const y = String(b);
  return yamlV2KeyLess(x, y) ? -1 : yamlV2KeyLess(y, x) ? 1 : 0;
}

const YAML11_WORDS = new Set([
  '', '~', 'null', 'Null', 'NULL',
  'y', 'Y', 'yes', 'Yes', 'YES', 'n', 'N', 'no', 'No', 'NO',
  'true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'on', 'On', 'ON', 'off', 'Off', 'OFF',
  '.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF',
]);
const YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const GO_INT = /^[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;
const TIMESTAMP = /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]+)?(?:Z|[-+][0-9]{2}:[0-9]{2}))|(?: [0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]+)?))?$/;

/** Whether yaml.v2 would read the plain scalar `s` as anything but a string (resolve.go). */
export function resolvesToNonString(s: string): boolean {
  if (YAML11_WORDS.has(s) || BASE60_FLOAT.test(s)) return true;
  const c = s[0]!;
  if (c === '.') return YAML_FLOAT.test(s);
  if (!/[-+0-9]/.test(c)) return false;
  const plain = s.replaceAll('_', '');
  if (GO_INT.test(plain) || YAML_FLOAT.test(plain)) return true;
  return TIMESTAMP.test(s) && validDate(s);
}

function validDate(s: string): boolean {
  const [y, m, d] = s.slice(0, 10).split(/[-Tt ]/).map(Number) as [number, number, number];
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** A number as yaml.v2 writes what kubectl decoded: integers as digits, other floats as Go's 'g'. */
function goYAMLNumber(n: number): string {
  if (Number.isInteger(n) && n >= -(2 ** 63) && n < 2 ** 64) return String(n);
  if (!Number.isFinite(n)) return Number.isNaN(n) ? '.nan' : n > 0 ? '.inf' : '-.inf';
  return formatGoFloat(n);
}
