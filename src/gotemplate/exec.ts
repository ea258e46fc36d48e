/**
 * Execution of a parsed Go template (Go 1.23 text/template's exec.go, over the values of
 * values.ts): walks the tree, evaluates pipelines, fields, variables and function calls, and
 * fails with Go's texts (`template: output:1:2: executing "output" at <index .spec.l 5>: error
 * calling index: index out of range: 5`). Output before a failure is kept (Go writes as it goes).
 */
import { FUNCS, FuncError, type GoFunc, type Param } from './funcs.js';
import { goQuote, nodeString, type ArgNode, type CommandNode, type ControlNode, type ListNode, type Node, type NumberNode, type PipeNode, type ParsedTemplate } from './parse.js';
import { sortGoKeys } from '../core/go-json.js';
import { fromJSON, GoNum, Iface, indirectInterface, isMap, isTrue, formatV, typeName, type Value } from './values.js';

/** An execution failure: `message` is Go's text, `output` what was written before it. */
export class TemplateExecError extends Error {
  constructor(message: string, readonly output: string) {
    super(message);
  }
}

/** Names the parser accepts as functions. */
export const FUNC_NAMES: ReadonlySet<string> = new Set(Object.keys(FUNCS));

const MISSING = Symbol('missing');
type Final = Value | typeof MISSING;
const BREAK = Symbol('break');
const CONTINUE = Symbol('continue');
const MAX_DEPTH = 100000;

class Fail extends Error {}

export interface ExecOptions {
  /** false: a missing map key is an error (kubectl's --allow-missing-template-keys=false). */
  allowMissingKeys?: boolean;
}

/** Runs `tmpl` over `data` (decoded JSON) and returns the output. */
export function executeGoTemplate(tmpl: ParsedTemplate, data: unknown, options: ExecOptions = {}): string {
  const s = new State(tmpl, options.allowMissingKeys ?? true);
  const root = tmpl.trees.get(tmpl.name);
  const dot = fromJSON(data) ?? undefined;
  s.vars = [{ name: '$', value: dot }];
  try {
    if (!root) s.errorf(`${goQuote(tmpl.name)} is an incomplete or empty template`);
    s.walk(dot, root!);
  } catch (e) {
    if (e instanceof Fail) throw new TemplateExecError(e.message, s.out.join(''));
    if (e instanceof RangeError) throw new TemplateExecError(`template: ${tmpl.name}: ${e.message}`, s.out.join(''));
    throw e;
  }
  return s.out.join('');
}

interface Variable {
  name: string;
  value: Value;
}

class State {
  out: string[] = [];
  vars: Variable[] = [];
  node: Node | undefined;
  name: string;
  depth = 0;

  constructor(private readonly tmpl: ParsedTemplate, private readonly allowMissing: boolean) {
    this.name = tmpl.name;
  }

  errorf(msg: string): never {
    if (!this.node) throw new Fail(`template: ${this.name}: ${msg}`);
    const text = this.tmpl.text.slice(0, this.node.pos);
    const nl = text.lastIndexOf('\n');
    const col = Buffer.byteLength(nl < 0 ? text : text.slice(nl + 1));
    const line = 1 + (text.match(/\n/g)?.length ?? 0);
    throw new Fail(`template: ${this.tmpl.name}:${line}:${col}: executing ${goQuote(this.name)} at <${nodeString(this.node)}>: ${msg}`);
  }

  private at(n: Node): void {
    this.node = n;
  }

  private varValue(name: string): Value {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i]!.name === name) return this.vars[i]!.value;
    return this.errorf(`undefined variable: ${name}`);
  }

  private setVar(name: string, value: Value): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      if (this.vars[i]!.name === name) {
        this.vars[i]!.value = value;
        return;
      }
    }
    this.errorf(`undefined variable: ${name}`);
  }

  walk(dot: Value, node: Node): void {
    this.at(node);
    switch (node.type) {
      case 'action': {
        const val = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) {
          this.at(node);
          this.out.push(val === undefined ? '<no value>' : formatV(val));
        }
        return;
      }
      case 'if':
      case 'with':
        return this.walkIfOrWith(node.type, dot, node.pipe, node.list, node.elseList);
      case 'list':
        for (const n of node.nodes) this.walk(dot, n);
        return;
      case 'range':
        return this.walkRange(dot, node);
      case 'template':
        return this.walkTemplate(dot, node);
      case 'text':
        this.out.push(node.text);
        return;
      case 'break':
        throw BREAK;
      case 'continue':
        throw CONTINUE;
    }
    this.errorf(`unknown node: ${nodeString(node)}`);
  }

  private walkIfOrWith(typ: 'if' | 'with', dot: Value, pipe: PipeNode, list: ListNode, elseList: ListNode | undefined): void {
    const mark = this.vars.length;
    const val = this.evalPipeline(dot, pipe);
    if (isTrue(indirectInterface(val))) this.walk(typ === 'with' ? val : dot, list);
    else if (elseList) this.walk(dot, elseList);
    this.vars.length = mark;
  }

  private walkRange(dot: Value, r: ControlNode): void {
    this.at(r);
    const outer = this.vars.length;
    try {
      let val = this.evalPipeline(dot, r.pipe);
      if (val instanceof Iface) val = val.inner ?? undefined;
      const mark = this.vars.length;
      const decl = r.pipe.decl;
      // Go 1.23 (kubectl v1.32) cannot range over an integer yet.
      const one = (index: Value, el: Value): void => {
        if (decl.length > 0) {
          if (r.pipe.isAssign) this.setVar(decl[decl.length > 1 ? 0 : 0]!.ident[0]!, decl.length > 1 ? index : el);
          else this.vars[this.vars.length - 1]!.value = el;
        }
        if (decl.length > 1) {
          if (r.pipe.isAssign) this.setVar(decl[1]!.ident[0]!, el);
          else this.vars[this.vars.length - 2]!.value = index;
        }
        try {
          this.walk(el, r.list);
        } catch (e) {
          if (e !== CONTINUE) throw e;
        } finally {
          this.vars.length = mark;
        }
      };
      if (Array.isArray(val)) {
        if (val.length > 0) {
          for (let i = 0; i < val.length; i++) one(new GoNum('int', i), new Iface(fromJSON(val[i])));
          return;
        }
      } else if (isMap(val)) {
        const keys = Object.keys(val);
        if (keys.length > 0) {
          for (const k of sortGoKeys(keys)) one(k, new Iface(fromJSON(val[k])));
          return;
        }
      } else if (val !== undefined) {
        this.errorf(`range can't iterate over ${formatV(val)}`);
      }
      if (r.elseList) this.walk(dot, r.elseList);
    } catch (e) {
      if (e !== BREAK) throw e;
    } finally {
      this.vars.length = outer;
    }
  }

  private walkTemplate(dot: Value, t: Extract<Node, { type: 'template' }>): void {
    this.at(t);
    const root = this.tmpl.trees.get(t.name);
    if (!root) this.errorf(`template ${goQuote(t.name)} not defined`);
    if (this.depth === MAX_DEPTH) this.errorf(`exceeded maximum template depth (${MAX_DEPTH})`);
    const newDot = t.pipe ? this.evalPipeline(dot, t.pipe) : undefined;
    const saved = { vars: this.vars, name: this.name };
    this.vars = [{ name: '$', value: newDot }];
    this.name = t.name;
    this.depth++;
    this.walk(newDot, root);
    this.depth--;
    this.vars = saved.vars;
    this.name = saved.name;
  }

  private evalPipeline(dot: Value, pipe: PipeNode): Value {
    this.at(pipe);
    let value: Final = MISSING;
    for (const cmd of pipe.cmds) {
      value = this.evalCommand(dot, cmd, value);
      if (value instanceof Iface) value = value.inner ?? undefined;
    }
    const v = value === MISSING ? undefined : value;
    for (const d of pipe.decl) {
      if (pipe.isAssign) this.setVar(d.ident[0]!, v);
      else this.vars.push({ name: d.ident[0]!, value: v });
    }
    return v;
  }

  private notAFunction(args: ArgNode[] | undefined, final: Final): void {
    if ((args && args.length > 1) || final !== MISSING) this.errorf(`can't give argument to non-function ${nodeString(args![0]!)}`);
  }

  private evalCommand(dot: Value, cmd: CommandNode, final: Final): Value {
    const first = cmd.args[0]!;
    switch (first.type) {
      case 'field': return this.evalFieldNode(dot, first, cmd.args, final);
      case 'chain': return this.evalChainNode(dot, first, cmd.args, final);
      case 'identifier': return this.evalFunction(dot, first, cmd, cmd.args, final);
      case 'pipe':
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, first);
      case 'variable': return this.evalVariableNode(dot, first, cmd.args, final);
    }
    this.at(first);
    this.notAFunction(cmd.args, final);
    switch (first.type) {
      case 'bool': return first.value;
      case 'dot': return dot;
      case 'nil': return this.errorf('nil is not a command');
      case 'number': return this.idealConstant(first);
      case 'string': return first.text;
    }
  }

  private idealConstant(c: NumberNode): Value {
    this.at(c);
    const isHex = /^[+-]?0[xX]/.test(c.text) && !/[pP]/.test(c.text);
    if (c.isFloat && !isHex && c.text[0] !== "'" && /[.eEpP]/.test(c.text)) return new GoNum('float64', c.float);
    if (c.isInt) return new GoNum('int', c.int);
    if (c.isUint) this.errorf(`${c.text} overflows int`);
    return undefined;
  }

  private evalFieldNode(dot: Value, field: Extract<ArgNode, { type: 'field' }>, args: ArgNode[] | undefined, final: Final): Value {
    this.at(field);
    return this.evalFieldChain(dot, dot, field, field.ident, args, final);
  }

  private evalChainNode(dot: Value, chain: Extract<ArgNode, { type: 'chain' }>, args: ArgNode[] | undefined, final: Final): Value {
    this.at(chain);
    if (chain.node.type === 'nil') this.errorf(`indirection through explicit nil in ${nodeString(chain)}`);
    const pipe = this.evalArg(dot, undefined, chain.node);
    return this.evalFieldChain(dot, pipe, chain, chain.field, args, final);
  }

  private evalVariableNode(dot: Value, v: Extract<ArgNode, { type: 'variable' }>, args: ArgNode[] | undefined, final: Final): Value {
    this.at(v);
    const value = this.varValue(v.ident[0]!);
    if (v.ident.length === 1) {
      this.notAFunction(args, final);
      return value;
    }
    return this.evalFieldChain(dot, value, v, v.ident.slice(1), args, final);
  }

  private evalFieldChain(dot: Value, receiver: Value, node: Node, ident: string[], args: ArgNode[] | undefined, final: Final): Value {
    let r = receiver;
    for (let i = 0; i < ident.length - 1; i++) r = this.evalField(ident[i]!, undefined, MISSING, r);
    return this.evalField(ident[ident.length - 1]!, args, final, r);
  }

  private evalField(fieldName: string, args: ArgNode[] | undefined, final: Final, receiver: Value): Value {
    if (receiver === undefined) {
      if (!this.allowMissing) this.errorf(`nil data; no entry for key ${goQuote(fieldName)}`);
      return undefined;
    }
    const typ = typeName(receiver);
    let r = receiver;
    if (r instanceof Iface) {
      if (r.inner === null) this.errorf(`nil pointer evaluating ${typ}.${fieldName}`);
      r = r.inner;
    }
    const hasArgs = (args?.length ?? 0) > 1 || final !== MISSING;
    if (isMap(r)) {
      if (hasArgs) this.errorf(`${fieldName} is not a method but has arguments`);
      if (Object.prototype.hasOwnProperty.call(r, fieldName)) return new Iface(fromJSON(r[fieldName]));
      if (!this.allowMissing) this.errorf(`map has no entry for key ${goQuote(fieldName)}`);
      return undefined;
    }
    return this.errorf(`can't evaluate field ${fieldName} in type ${typ}`);
  }

  private evalFunction(dot: Value, node: Extract<ArgNode, { type: 'identifier' }>, cmd: Node, args: ArgNode[] | undefined, final: Final): Value {
    this.at(node);
    const fn = FUNCS[node.ident];
    if (!fn) return this.errorf(`${goQuote(node.ident)} is not a defined function`);
    return this.evalCall(dot, fn, cmd, node.ident, args, final);
  }

  private evalCall(dot: Value, fn: GoFunc, node: Node, name: string, allArgs: ArgNode[] | undefined, final: Final): Value {
    const args = allArgs ? allArgs.slice(1) : [];
    const numIn = args.length + (final !== MISSING ? 1 : 0);
    let numFixed = args.length;
    if (fn.variadic) {
      numFixed = fn.params.length;
      if (numIn < numFixed) this.errorf(`wrong number of args for ${name}: want at least ${numFixed} got ${args.length}`);
    } else if (numIn !== fn.params.length) {
      this.errorf(`wrong number of args for ${name}: want ${fn.params.length} got ${numIn}`);
    }
    if (name === 'and' || name === 'or') {
      let v: Value;
      for (const a of args) {
        v = this.evalArg(dot, 'value', a);
        if (isTrue(indirectInterface(v)) === (name === 'or')) return v;
      }
      if (final !== MISSING) v = this.validateType(final, 'value');
      return v!;
    }
    const argv: Value[] = [];
    let i = 0;
    for (; i < numFixed && i < args.length; i++) argv.push(this.evalArg(dot, fn.params[i]!, args[i]!));
    if (fn.variadic) for (; i < args.length; i++) argv.push(this.evalArg(dot, fn.variadic, args[i]!));
    if (final !== MISSING) {
      let t: Param = fn.variadic ?? fn.params[fn.params.length - 1]!;
      if (fn.variadic && numIn - 1 < numFixed) t = fn.params[numIn - 1]!;
      argv.push(this.validateType(final, t));
    }
    try {
      return fn.call(argv, name === 'call' && args[0] ? nodeString(args[0]) : name);
    } catch (e) {
      if (e instanceof FuncError) {
        this.at(node);
        this.errorf(`error calling ${name}: ${e.message}`);
      }
      throw e;
    }
  }

  private validateType(value: Value, typ: Param | undefined): Value {
    if (value === undefined) {
      if (typ === undefined || typ === 'value') return undefined;
      if (typ === 'any') return new Iface(null);
      this.errorf(`invalid value; expected ${typ}`);
    }
    if (typ !== 'string') return value;
    if (typeof value === 'string') return value;
    let v: Value = value;
    if (v instanceof Iface && v.inner !== null) {
      v = v.inner;
      if (typeof v === 'string') return v;
    }
    return this.errorf(`wrong type for value; expected string; got ${typeName(v)}`);
  }

  private evalArg(dot: Value, typ: Param | undefined, n: ArgNode): Value {
    this.at(n);
    switch (n.type) {
      case 'dot': return this.validateType(dot, typ);
      case 'nil':
        if (typ === 'value' || typ === undefined) return undefined;
        if (typ === 'any') return new Iface(null);
        return this.errorf(`cannot assign nil to ${typ}`);
      case 'field': return this.validateType(this.evalFieldNode(dot, n, [n], MISSING), typ);
      case 'variable': return this.validateType(this.evalVariableNode(dot, n, undefined, MISSING), typ);
      case 'pipe': return this.validateType(this.evalPipeline(dot, n), typ);
      case 'identifier': return this.validateType(this.evalFunction(dot, n, n, undefined, MISSING), typ);
      case 'chain': return this.validateType(this.evalChainNode(dot, n, undefined, MISSING), typ);
    }
    if (typ === 'string') {
      if (n.type === 'string') return n.text;
      return this.errorf(`expected string; found ${nodeString(n)}`);
    }
    switch (n.type) {
      case 'bool': return n.value;
      case 'number': return this.idealConstant(n);
      case 'string': return n.text;
    }
  }
}
