/**
 * kubectl-style (pflag) argv parsing over the command table in ./spec.ts. Flags may appear anywhere;
 * `--f=v`, `--f v`, `-f v`, `-fv`, `-f=v`, grouped booleans (`-Aw`), `--` ends flags.
 * Pure: throws UsageError (exit 2) and never touches process state.
 */
import { UsageError } from '../core/errors.js';
import { editDistance } from '../core/editdistance.js';
import { COMMANDS, GLOBAL_FLAGS, findCommand, type CommandSpec, type FlagSpec, type ParsedArgs } from './spec.js';

export interface ParseResult extends ParsedArgs {
  spec?: CommandSpec;
}

/** `prog`: how the user runs kdyn (`kdyn`, or `kubectl kdyn` as a plugin), for the messages. */
export function parseArgv(argv: readonly string[], prog = 'kdyn'): ParseResult {
  // Find the command: the first token that is not a flag or a global flag's value.
  const flags: ParsedArgs['flags'] = {};
  const explicit = new Set<string>();
  const positionals: string[] = [];
  let spec: CommandSpec | undefined;
  let table = indexFlags(GLOBAL_FLAGS);
  let i = 0;
  let pendingUnknown: string | undefined;

  const take = (flag: FlagSpec, value: string | undefined, token: string): void => {
    if (flag.type === 'boolean') {
      const v = value === undefined ? true : parseBool(value, flag);
      flags[flag.name] = v;
    } else {
      if (value === undefined && flag.noValue !== undefined) value = flag.noValue;
      if (value === undefined) {
        if (i + 1 >= argv.length) throw new UsageError(`flag needs an argument: ${token}`);
        value = argv[++i]!;
      }
      setValue(flags, flag, value);
    }
    explicit.add(flag.name);
  };

  for (; i < argv.length; i++) {
    const tok = argv[i]!;
    if (tok === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (tok.startsWith('--') && tok.length > 2) {
      const eq = tok.indexOf('=');
      const name = eq < 0 ? tok.slice(2) : tok.slice(2, eq);
      const flag = table.long.get(name);
      if (!flag) {
        // An unknown flag before the command may belong to the command: decide once it is known.
        if (!spec) {
          pendingUnknown ??= tok;
          continue;
        }
        throw new UsageError(`unknown flag: --${name}`);
      }
      take(flag, eq < 0 ? undefined : tok.slice(eq + 1), `--${name}`);
      continue;
    }
    if (tok.startsWith('-') && tok.length > 1 && tok !== '-') {
      // shorthand group
      for (let j = 1; j < tok.length; j++) {
        const c = tok[j]!;
        const flag = table.short.get(c);
        if (!flag) {
          if (!spec) {
            pendingUnknown ??= tok;
            break;
          }
          throw new UsageError(`unknown shorthand flag: '${c}' in ${tok}`);
        }
        if (flag.type === 'boolean') {
          if (tok[j + 1] === '=') {
            take(flag, tok.slice(j + 2), `-${c}`);
            break;
          }
          take(flag, undefined, `-${c}`);
          continue;
        }
        let rest = tok.slice(j + 1);
        if (rest.startsWith('=')) rest = rest.slice(1);
        take(flag, rest === '' && j + 1 >= tok.length ? undefined : rest, `-${c}`);
        break;
      }
      continue;
    }
    if (!spec && positionals.length === 0) {
      // `kdyn help get` is `kdyn get --help` (cobra's help command, as kubectl has it).
      if (tok === 'help' && !flags.help) {
        flags.help = true;
        explicit.add('help');
        continue;
      }
      spec = findCommand(tok);
      if (!spec) {
        if (flags.help) {
          positionals.push(tok);
          continue;
        }
        throw new UsageError(unknownCommand(tok, prog));
      }
      table = indexFlags([...GLOBAL_FLAGS, ...spec.flags]);
      if (pendingUnknown) {
        // re-parse from the start now that the command's flags are known
        return parseWith(argv, spec, prog);
      }
      continue;
    }
    positionals.push(tok);
  }
  if (pendingUnknown && !spec) {
    const name = pendingUnknown.startsWith('--') ? pendingUnknown.split('=')[0] : pendingUnknown;
    throw new UsageError(pendingUnknown.startsWith('--') ? `unknown flag: ${name}` : `unknown shorthand flag: '${pendingUnknown[1]}' in ${pendingUnknown}`);
  }
  fillDefaults(flags, spec ? [...GLOBAL_FLAGS, ...spec.flags] : GLOBAL_FLAGS);
  const result: ParseResult = { command: spec?.name ?? '', args: positionals, flags, explicit, prog, spec };
  if (spec && !flags.help) checkArity(spec, positionals, prog);
  return result;
}

/** Parses argv knowing the command up front (all its flags valid anywhere). */
function parseWith(argv: readonly string[], spec: CommandSpec, prog: string): ParseResult {
  const withoutCommand = [...argv];
  const idx = withoutCommand.indexOf(spec.name);
  const aliasIdx = idx >= 0 ? idx : withoutCommand.findIndex((t) => spec.aliases?.includes(t));
  withoutCommand.splice(aliasIdx, 1);
  // Put the command first, so the main loop indexes its flags before any other token.
  return parseArgv([spec.name, ...withoutCommand], prog);
}

function indexFlags(list: FlagSpec[]) {
  const long = new Map<string, FlagSpec>();
  const short = new Map<string, FlagSpec>();
  for (const f of list) {
    long.set(f.name, f);
    if (f.short) short.set(f.short, f);
  }
  return { long, short };
}

function parseBool(value: string, flag: FlagSpec): boolean {
  const v = value.toLowerCase();
  if (['1', 't', 'true'].includes(v)) return true;
  if (['0', 'f', 'false'].includes(v)) return false;
  throw new UsageError(`invalid argument "${value}" for "--${flag.name}" flag: strconv.ParseBool: parsing "${value}": invalid syntax`);
}

function setValue(flags: ParsedArgs['flags'], flag: FlagSpec, value: string): void {
  if (flag.choices && !flag.choices.includes(value)) {
    throw new UsageError(`invalid argument "${value}" for "--${flag.name}" flag: must be one of: ${flag.choices.join(', ')}`);
  }
  switch (flag.type) {
    case 'number': {
      const n = Number(value);
      if (value.trim() === '' || !Number.isInteger(n)) {
        throw new UsageError(`invalid argument "${value}" for "--${flag.name}" flag: strconv.ParseInt: parsing "${value}": invalid syntax`);
      }
      flags[flag.name] = n;
      return;
    }
    case 'array': {
      const prev = Array.isArray(flags[flag.name]) ? (flags[flag.name] as string[]) : [];
      const add = flag.commaSplit ? value.split(',').filter((s) => s !== '') : [value];
      flags[flag.name] = [...prev, ...add];
      return;
    }
    default:
      flags[flag.name] = value;
  }
}

function fillDefaults(flags: ParsedArgs['flags'], list: FlagSpec[]): void {
  for (const f of list) {
    if (flags[f.name] === undefined) flags[f.name] = f.default ?? (f.type === 'boolean' ? false : f.type === 'array' ? [] : undefined);
  }
}

function checkArity(spec: CommandSpec, args: string[], prog: string): void {
  if (spec.minArgs !== undefined && args.length < spec.minArgs) {
    throw new UsageError(`"${prog} ${spec.name}" requires at least ${spec.minArgs} argument${spec.minArgs === 1 ? '' : 's'}`);
  }
  if (spec.maxArgs !== undefined && args.length > spec.maxArgs) {
    throw new UsageError(`unknown command "${args[spec.maxArgs]}" for "${prog} ${spec.name}"`);
  }
}

function unknownCommand(name: string, prog: string): string {
  const close = COMMANDS.filter((c) => !c.hidden).map((c) => c.name).filter((c) => editDistance(c, name) <= 2 || c.startsWith(name));
  return `unknown command "${name}" for "${prog}"` + (close.length ? `. Did you mean ${close.map((c) => `"${c}"`).join(' or ')}?` : '');
}
