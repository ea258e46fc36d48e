/** JSON merge patch (RFC 7386) and JSON patch (RFC 6902), returning new objects. */
import type { Obj } from './types.js';

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return structuredClone(patch);
  const base: Obj = target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Obj) } : {};
  for (const [k, v] of Object.entries(patch as Obj)) {
    if (v === null) delete base[k];
    else base[k] = mergePatch(base[k], v);
  }
  return base;
}

export class JsonPatchError extends Error {
  constructor(message: string, readonly testFailed = false) {
    super(message);
  }
}

function unescape(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

function parsePointer(p: string): string[] {
  if (p === '') return [];
  if (!p.startsWith('/')) throw new JsonPatchError(`invalid JSON pointer: "${p}"`);
  return p.slice(1).split('/').map(unescape);
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b) || (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && JSON.stringify(sortDeep(a)) === JSON.stringify(sortDeep(b)));
}

function sortDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortDeep);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v as Obj).sort().map((k) => [k, sortDeep((v as Obj)[k])]));
  return v;
}

function parentOf(doc: unknown, path: string[], op: string, fullPath: string): { parent: any; key: string } {
  let cur: any = doc;
  for (const part of path.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(part)];
    else if (cur && typeof cur === 'object') cur = cur[part];
    else cur = undefined;
    if (cur === undefined || cur === null || typeof cur !== 'object') throw new JsonPatchError(`${op} operation does not apply: doc is missing path: "${fullPath}"`);
  }
  return { parent: cur, key: path[path.length - 1]! };
}

function getAt(doc: unknown, p: string, op: string): unknown {
  let cur: any = doc;
  for (const part of parsePointer(p)) {
    if (Array.isArray(cur)) cur = cur[Number(part)];
    else if (cur && typeof cur === 'object' && Object.prototype.hasOwnProperty.call(cur, part)) cur = cur[part];
    else cur = undefined;
    if (cur === undefined) throw new JsonPatchError(`${op} operation does not apply: doc is missing path: "${p}"`);
  }
  return cur;
}

function removeAt(doc: unknown, p: string, op: string): unknown {
  const path = parsePointer(p);
  const { parent, key } = parentOf(doc, path, op, p);
  if (Array.isArray(parent)) {
    const i = Number(key);
    if (!Number.isInteger(i) || i < 0 || i >= parent.length) throw new JsonPatchError(`${op} operation does not apply: doc is missing path: "${p}"`);
    return parent.splice(i, 1)[0];
  }
  if (!Object.prototype.hasOwnProperty.call(parent, key)) throw new JsonPatchError(`${op} operation does not apply: doc is missing path: "${p}"`);
  const v = parent[key];
  delete parent[key];
  return v;
}

function addAt(doc: unknown, p: string, value: unknown, op: string, replace: boolean): unknown {
  const path = parsePointer(p);
  if (path.length === 0) return value;
  const { parent, key } = parentOf(doc, path, op, p);
  if (Array.isArray(parent)) {
    if (replace) {
      const i = Number(key);
      if (!Number.isInteger(i) || i < 0 || i >= parent.length) throw new JsonPatchError(`replace operation does not apply: doc is missing key: "${p}"`);
      parent[i] = value;
    } else if (key === '-') parent.push(value);
    else {
      const i = Number(key);
      if (!Number.isInteger(i) || i < 0 || i > parent.length) throw new JsonPatchError(`add operation does not apply: index out of bounds: "${p}"`);
      parent.splice(i, 0, value);
    }
  } else {
    if (replace && !Object.prototype.hasOwnProperty.call(parent, key)) throw new JsonPatchError(`replace operation does not apply: doc is missing key: "${p}"`);
    parent[key] = value;
  }
  return doc;
}

export function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw new JsonPatchError('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  let doc = structuredClone(target);
  for (const o of ops as Obj[]) {
    const op = String(o.op ?? '');
    const path = String(o.path ?? '');
    switch (op) {
      case 'add':
        doc = addAt(doc, path, structuredClone(o.value), op, false);
        break;
      case 'replace':
        doc = addAt(doc, path, structuredClone(o.value), op, true);
        break;
      case 'remove':
        removeAt(doc, path, op);
        break;
      case 'move': {
        const v = removeAt(doc, String(o.from), op);
        doc = addAt(doc, path, v, op, false);
        break;
      }
      case 'copy':
        doc = addAt(doc, path, structuredClone(getAt(doc, String(o.from), op)), op, false);
        break;
      case 'test':
        if (!deepEqual(getAt(doc, path, op), o.value)) throw new JsonPatchError(`testing value ${path} failed: test failed`, true);
        break;
      default:
        throw new JsonPatchError(`Unexpected kind: ${op}`);
    }
  }
  return doc;
}
