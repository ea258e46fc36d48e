/**
 * The types of the command table (./spec.ts): a command's flags, usage and help text, and what the
 * parser makes of argv. A leaf: it imports nothing of src/cli/, so the parser, the help, completion,
 * the context and every command can share these types without an import circle.
 */

export type FlagType = 'string' | 'boolean' | 'number' | 'array';

export interface FlagSpec {
  name: string; // long name, kebab-case
  short?: string; // one letter
  type: FlagType;
  describe: string;
  default?: string | boolean | number | string[];
  /** Allowed values (checked by the parser; exit 2 otherwise). */
  choices?: readonly string[];
  /** For `array`: split each value at commas as well (pflag stringSlice). */
  commaSplit?: boolean;
  hidden?: boolean;
  /** The value of a non-boolean flag given without one (`--cascade` alone: pflag's NoOptDefVal); `--flag v` then never takes `v`. */
  noValue?: string;
}

export interface ParsedArgs {
  command: string;
  args: string[];
  /** Flag values by long name, defaults filled in. */
  flags: Record<string, string | boolean | number | string[] | undefined>;
  /** Long names of the flags given on the command line. */
  explicit: Set<string>;
  /** How the user runs kdyn, for usage lines and messages: `kdyn`, or `kubectl kdyn` as a kubectl plugin (default `kdyn`). */
  prog?: string;
}

/** kubectl's command groups in `kubectl --help`, in its order. */
export const HELP_GROUPS = [
  'Basic Commands (Beginner):',
  'Basic Commands (Intermediate):',
  'Deploy Commands:',
  'Cluster Management Commands:',
  'Troubleshooting and Debugging Commands:',
  'Advanced Commands:',
  'Settings Commands:',
  'Other Commands:',
] as const;
export type HelpGroup = (typeof HELP_GROUPS)[number];

/** One command's entry in the table: everything the parser, the help and completion need; its run is loaded apart (./command-runs.ts). */
export interface CommandSpec {
  name: string;
  /** Where `kdyn --help` lists the command (kubectl's group for it; default 'Other Commands:'). */
  group?: HelpGroup;
  /** Not listed in help or completed (`__complete`, the shells' helper). */
  hidden?: boolean;
  aliases?: string[];
  /** `get [(-o|--output=)json|yaml|name|...] (TYPE[.VERSION][.GROUP] [NAME | -l label] | TYPE[.VERSION][.GROUP]/NAME ...)` */
  usage: string;
  summary: string;
  description?: string;
  examples: Array<[string, string]>; // [comment, command]
  flags: FlagSpec[];
  minArgs?: number;
  maxArgs?: number;
}
