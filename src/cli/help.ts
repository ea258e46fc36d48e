/**
 * `kdyn --help` and `kdyn COMMAND --help`, rendered by yargs from the declarative command table
 * (./spec.ts), so help always lists exactly what the parser accepts. yargs is imported
 * dynamically: only a help request pays for loading it (the bundle aliases its string-width
 * dependency to an ASCII shim, see scripts/build.mjs).
 *
 * Layout follows kubectl: a description, `Examples:` with `  # comment` / `  kdyn ...` pairs,
 * the command's own flags, the global flags, and `Usage:`.
 */
import { VERSION } from '../core/version.js';
import { COMMANDS, GLOBAL_FLAGS, HELP_GROUPS, type CommandSpec, type FlagSpec } from './spec.js';

export interface HelpOptions {
  /** Wrap width in columns (default 100). */
  width?: number;
  /** How the user runs kdyn: `kdyn` (default), or `kubectl kdyn` as a kubectl plugin. */
  prog?: string;
}

const INTRO = 'kdyn controls Kubernetes resources, built-in or custom, without generated types.';

/** The help text for one command, or the top-level help when `spec` is undefined. */
export async function renderHelp(spec?: CommandSpec, options: HelpOptions = {}): Promise<string> {
  const { default: yargs } = await import('yargs');
  const width = options.width ?? 100;
  const prog = options.prog ?? 'kdyn';
  let y = yargs([])
    .scriptName(prog)
    .locale('en')
    .detectLocale(false)
    .parserConfiguration({ 'boolean-negation': false, 'parse-positional-numbers': false })
    .wrap(width)
    .version('version', describeOf('version'), VERSION)
    // cobra's text: `help for get` in get's help, `help for kdyn` at the top.
    .help('help', `help for ${spec?.name ?? 'kdyn'}`)
    .alias('help', 'h');

  if (spec) {
    y = y.usage(spec.description ?? `${spec.summary}.`);
    y = addFlags(y, spec.flags, 'Flags:');
    y = addFlags(y, GLOBAL_FLAGS, 'Global Flags:');
    y = y.epilogue(`${formatExamples(spec, prog)}\nUsage:\n  ${prog} ${spec.usage}\n\nUse "${prog} --help" for a list of all commands.`);
  } else {
    y = y.usage(INTRO);
    y = addFlags(y, GLOBAL_FLAGS, 'Global Flags:');
    y = y.epilogue(`Usage:\n  ${prog} <command> [flags]\n\nUse "${prog} <command> --help" for more information about a given command.`);
  }
  let text = await y.getHelp();
  // yargs has no command groups and trims the usage's indentation: the groups go in after the intro.
  if (!spec) text = text.replace(INTRO, `${INTRO}\n\n${commandGroups()}`);
  return text.replace(/[ \t]+$/gm, '') + '\n';
}

/** The commands under kubectl's group headings (`Basic Commands (Intermediate):` ...), names padded to one column. */
export function commandGroups(): string {
  const width = Math.max(...COMMANDS.filter((c) => !c.hidden).map((c) => c.name.length)) + 2;
  const blocks: string[] = [];
  for (const group of HELP_GROUPS) {
    const cmds = COMMANDS.filter((c) => !c.hidden && (c.group ?? 'Other Commands:') === group);
    if (cmds.length > 0) blocks.push(`${group}\n${cmds.map((c) => `  ${c.name.padEnd(width)}${c.summary}`).join('\n')}`);
  }
  return blocks.join('\n\n');
}

type Y = ReturnType<typeof import('yargs').default>;

function addFlags(y: Y, flags: readonly FlagSpec[], group: string): Y {
  const names: string[] = [];
  for (const f of flags) {
    if (f.hidden || f.name === 'help' || f.name === 'version') continue;
    const opt: Record<string, unknown> = { describe: f.describe, type: f.type, hidden: false };
    if (f.short && f.short !== f.name) opt.alias = f.short;
    if (f.default !== undefined && !(f.type === 'boolean' && f.default === false)) opt.default = f.default;
    if (f.choices) opt.choices = [...f.choices];
    y = y.option(f.name, opt);
    names.push(f.name);
  }
  if (group === 'Global Flags:') names.push('help', 'version');
  return y.group(names, group);
}

function describeOf(name: string): string {
  return GLOBAL_FLAGS.find((f) => f.name === name)?.describe ?? name;
}

/**
 * kubectl's example block: `  # comment` then `  kdyn ...`, a blank line between examples. As a
 * kubectl plugin (`prog` is `kubectl kdyn`), the commands read `kubectl kdyn ...`.
 */
export function formatExamples(spec: CommandSpec, prog = 'kdyn'): string {
  if (spec.examples.length === 0) return '';
  const blocks = spec.examples.map(([comment, command]) => `  # ${comment}\n  ${command.replace(/(^|\| )kdyn /g, `$1${prog} `)}`);
  return `Examples:\n${blocks.join('\n\n')}\n`;
}
