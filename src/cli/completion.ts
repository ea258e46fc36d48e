/**
 * Shell completion scripts for kdyn (bash, zsh, fish), generated from the declarative command
 * table (./spec.ts). Commands, flags and `-o` formats complete from the script itself, without
 * running kdyn. The rest asks `kdyn __complete` (./commands/complete.ts):
 * - resource types (`kdyn get <TAB>`): `__complete types`, from the discovery cache, no request,
 *   in kubectl's name forms (`deployments.apps`);
 * - object names (`kdyn get pods <TAB>`): `__complete names TYPE`, one second at most;
 * - namespaces after `-n`, contexts after `--context` (also after a comma: `--context east,w<TAB>`).
 * The connection flags already on the line (--kubeconfig, --context, -n, --server, --cache-dir...)
 * are passed along, so names come from the cluster the command will talk to. Pure: returns text.
 */
import { COMMANDS, GLOBAL_FLAGS, type FlagSpec } from './spec.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

export const OUTPUT_FORMATS = [
  'json', 'yaml', 'name', 'wide', 'jsonl', 'jsonpath=', 'jsonpath-file=', 'jsonpath-as-json=', 'go-template=', 'go-template-file=',
  'template=', 'templatefile=', 'custom-columns=', 'custom-columns-file=',
];

/** Commands whose first argument is a resource type and the next ones object names (watch, once it exists). */
export const TYPE_AND_NAME_COMMANDS = ['get', 'watch', 'describe', 'delete'];

/** Commands whose one argument is a resource type (`kdyn explain po<TAB>`), with no object names after it. */
export const TYPE_ONLY_COMMANDS = ['explain'];

/** Global flags that select the cluster, passed on to `kdyn __complete`. */
export const CONNECTION_FLAGS = ['kubeconfig', 'context', 'cluster', 'user', 'namespace', 'server', 'token', 'certificate-authority',
  'client-certificate', 'client-key', 'insecure-skip-tls-verify', 'tls-server-name', 'cache-dir', 'as', 'as-group', 'as-uid'];

export const FILE_FLAGS = ['--kubeconfig', '--certificate-authority', '--client-certificate', '--client-key', '--cache-dir', '-f', '--filename'];

function flagWords(flags: readonly FlagSpec[]): string[] {
  const out: string[] = [];
  for (const f of flags) {
    if (f.hidden) continue;
    out.push(f.name.length === 1 ? `-${f.name}` : `--${f.name}`);
    if (f.short && f.short !== f.name) out.push(`-${f.short}`);
  }
  return out;
}

/** Flags that take their value from the next word (`-n ns`), so that word is not an argument. */
function valueFlags(flags: readonly FlagSpec[]): string[] {
  return flagWords(flags.filter((f) => f.type !== 'boolean'));
}

const visible = () => COMMANDS.filter((c) => !c.hidden);
const typeCommands = () => visible().filter((c) => TYPE_AND_NAME_COMMANDS.includes(c.name)).flatMap((c) => [c.name, ...(c.aliases ?? [])]);
const typeOnlyCommands = () => visible().filter((c) => TYPE_ONLY_COMMANDS.includes(c.name)).map((c) => c.name);
const connectionWords = () => flagWords(GLOBAL_FLAGS.filter((f) => CONNECTION_FLAGS.includes(f.name)));

/** The completion script for `shell` (`source <(kdyn completion bash)`, `kdyn completion fish | source`). */
export function completionScript(shell: Shell): string {
  if (shell === 'fish') return fishScript();
  const bash = bashScript(shell);
  if (shell === 'bash') return bash;
  return `#compdef kdyn\n# zsh's completion system must be loaded first: autoload -Uz compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n${bash}`;
}

function bashScript(shell: Shell): string {
  const commands = [...visible().flatMap((c) => [c.name, ...(c.aliases ?? [])]), 'help'];
  const perCommand = visible()
    .map((c) => `      ${[c.name, ...(c.aliases ?? [])].join('|')}) flags="${flagWords(c.flags).join(' ')}" ;;`)
    .join('\n');
  const allValueFlags = [...new Set([...valueFlags(GLOBAL_FLAGS), ...COMMANDS.flatMap((c) => valueFlags(c.flags))])];
  return `# kdyn ${shell} completion. Load it with: source <(kdyn completion ${shell})
_kdyn() {
  local cur prev cmd="" flags="" i w skip=0
  local -a args=() conn=()
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local global="${flagWords(GLOBAL_FLAGS).join(' ')}"
  local value=" ${allValueFlags.join(' ')} "
  local connection=" ${connectionWords().join(' ')} "
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    case "$w" in
      -*=*) [[ "$connection" == *" \${w%%=*} "* ]] && conn+=("$w") ;;
      -*)
        if [[ "$value" == *" $w "* ]]; then
          skip=1
          [[ "$connection" == *" $w "* ]] && ((i + 1 < COMP_CWORD)) && conn+=("$w" "\${COMP_WORDS[i+1]}")
        fi ;;
      *) if [[ -z "$cmd" ]]; then cmd="$w"; else args+=("$w"); fi ;;
    esac
  done
  case "$prev" in
    -o|--output) COMPREPLY=($(compgen -W "${OUTPUT_FORMATS.join(' ')}" -- "$cur")); compopt -o nospace 2>/dev/null; return ;;
    -n|--namespace) COMPREPLY=($(compgen -W "$(kdyn __complete names namespaces "\${conn[@]}" 2>/dev/null)" -- "$cur")); return ;;
    --context) COMPREPLY=($(compgen -W "$(kdyn __complete contexts "$cur" "\${conn[@]}" 2>/dev/null)" -- "$cur")); return ;;
    ${FILE_FLAGS.join('|')})
      COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  # Flags only once a dash is typed, so "kdyn <TAB>" offers the commands (as cobra does).
  if [[ -z "$cmd" || "$cmd" == help ]]; then
    if [[ "$cur" == -* ]]; then
      COMPREPLY=($(compgen -W "$global" -- "$cur"))
    elif [[ -z "$cmd" || \${#args[@]} -eq 0 ]]; then
      COMPREPLY=($(compgen -W "${commands.join(' ')}" -- "$cur"))
    fi
    return
  fi
  case "$cmd" in
${perCommand}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$flags $global" -- "$cur"))
    return
  fi
  case "$cmd" in
    ${typeCommands().join('|') || '__none__'})
      # kubectl's forms: TYPE then NAMEs, or TYPE/NAME words ("kdyn get rockets/fa<TAB>").
      if [[ "$cur" == */* ]]; then
        if ((\${#args[@]} == 0)) || [[ "\${args[0]}" == */* ]]; then
          COMPREPLY=($(compgen -W "$(kdyn __complete names "$cur" "\${conn[@]}" 2>/dev/null)" -- "$cur"))
        fi
      elif ((\${#args[@]} == 0)); then
        COMPREPLY=($(compgen -W "$(kdyn __complete types "\${conn[@]}" 2>/dev/null)" -- "$cur"))
      elif [[ "\${args[0]}" == */* ]]; then
        COMPREPLY=($(compgen -W "$(kdyn __complete types "\${conn[@]}" 2>/dev/null)" -- "$cur"))
        COMPREPLY=("\${COMPREPLY[@]/%//}")
        compopt -o nospace 2>/dev/null
      elif [[ "\${args[0]}" != *,* ]]; then
        COMPREPLY=($(compgen -W "$(kdyn __complete names "\${args[0]}" "\${conn[@]}" 2>/dev/null)" -- "$cur"))
      fi ;;
    ${typeOnlyCommands().join('|') || '__none__'})
      ((\${#args[@]} == 0)) && COMPREPLY=($(compgen -W "$(kdyn __complete types "\${conn[@]}" 2>/dev/null)" -- "$cur")) ;;
    completion) COMPREPLY=($(compgen -W "${SHELLS.join(' ')}" -- "$cur")) ;;
  esac
}
complete -F _kdyn kdyn
`;
}

function fishScript(): string {
  const lines: string[] = [];
  const esc = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const allValueFlags = [...new Set([...valueFlags(GLOBAL_FLAGS), ...COMMANDS.flatMap((c) => valueFlags(c.flags))])];
  lines.push(
    '# kdyn fish completion. Load it with: kdyn completion fish | source',
    '# The words before the cursor: the command, its arguments, and the connection flags to pass on.',
    'function __kdyn_parse',
    '    set -l words (commandline -opc)',
    '    set -e words[1]',
    '    set -g __kdyn_cmd',
    '    set -g __kdyn_args',
    '    set -g __kdyn_conn',
    '    set -l skip 0',
    '    for i in (seq (count $words))',
    '        set -l w $words[$i]',
    '        if test $skip = 1',
    '            set skip 0',
    '            continue',
    '        end',
    '        switch $w',
    '            case \'-*=*\'',
    `                if contains -- (string split -m1 = -- $w)[1] ${connectionWords().join(' ')}`,
    '                    set -a __kdyn_conn $w',
    '                end',
    `            case ${allValueFlags.join(' ')}`,
    '                set skip 1',
    `                if contains -- $w ${connectionWords().join(' ')}; and test $i -lt (count $words)`,
    '                    set -a __kdyn_conn $w $words[(math $i + 1)]',
    '                end',
    "            case '-*'",
    '            case \'*\'',
    '                if test -z "$__kdyn_cmd"',
    '                    set -g __kdyn_cmd $w',
    '                else',
    '                    set -a __kdyn_args $w',
    '                end',
    '        end',
    '    end',
    'end',
    'function __kdyn_no_command',
    '    __kdyn_parse',
    '    test -z "$__kdyn_cmd"',
    'end',
    'function __kdyn_using',
    '    __kdyn_parse',
    '    contains -- "$__kdyn_cmd" $argv',
    'end',
    'function __kdyn_objects',
    '    __kdyn_parse',
    `    if contains -- "$__kdyn_cmd" ${typeOnlyCommands().join(' ') || '__none__'}`,
    '        test (count $__kdyn_args) -eq 0; and kdyn __complete types $__kdyn_conn 2>/dev/null',
    '        return',
    '    end',
    `    contains -- "$__kdyn_cmd" ${typeCommands().join(' ') || '__none__'}; or return`,
    '    set -l cur (commandline -ct)',
    "    if string match -q -- '*/*' $cur",
    "        if test (count $__kdyn_args) -eq 0; or string match -q -- '*/*' $__kdyn_args[1]",
    '            kdyn __complete names $cur $__kdyn_conn 2>/dev/null',
    '        end',
    '    else if test (count $__kdyn_args) -eq 0',
    '        kdyn __complete types $__kdyn_conn 2>/dev/null',
    "    else if string match -q -- '*/*' $__kdyn_args[1]",
    "        kdyn __complete types $__kdyn_conn 2>/dev/null | string replace -r '$' /",
    "    else if not string match -q -- '*,*' $__kdyn_args[1]",
    '        kdyn __complete names $__kdyn_args[1] $__kdyn_conn 2>/dev/null',
    '    end',
    'end',
    'function __kdyn_namespaces',
    '    __kdyn_parse',
    '    kdyn __complete names namespaces $__kdyn_conn 2>/dev/null',
    'end',
    'function __kdyn_contexts',
    '    __kdyn_parse',
    '    kdyn __complete contexts (commandline -ct) $__kdyn_conn 2>/dev/null',
    'end',
    'complete -c kdyn -e',
    'complete -c kdyn -f',
  );
  for (const c of visible()) lines.push(`complete -c kdyn -n __kdyn_no_command -a ${esc(c.name)} -d ${esc(c.summary)}`);
  lines.push("complete -c kdyn -n __kdyn_no_command -a help -d 'Help about any command'");
  const flagLine = (f: FlagSpec, cond: string): string => {
    let s = `complete -c kdyn -n ${cond}`;
    s += f.name.length === 1 ? ` -o ${f.name}` : ` -l ${f.name}`;
    if (f.short && f.short !== f.name) s += ` -s ${f.short}`;
    // A value flag's argument is a file only for the file flags (-f, --kubeconfig...): -x is -r without files.
    if (f.type !== 'boolean') s += FILE_FLAGS.includes(`--${f.name}`) ? ' -r' : ' -x';
    if (f.name === 'output') s += ` -a ${esc((f.choices ?? OUTPUT_FORMATS).join(' '))}`;
    else if (f.name === 'namespace') s += " -a '(__kdyn_namespaces)'";
    else if (f.name === 'context') s += " -a '(__kdyn_contexts)'";
    else if (f.choices) s += ` -a ${esc(f.choices.join(' '))}`;
    else if (FILE_FLAGS.includes(`--${f.name}`)) s += ' -F';
    return `${s} -d ${esc(f.describe.split('. ')[0]!.replace(/\.$/, ''))}`;
  };
  for (const f of GLOBAL_FLAGS) if (!f.hidden) lines.push(flagLine(f, "'true'"));
  for (const c of visible()) for (const f of c.flags) if (!f.hidden) lines.push(flagLine(f, esc(`__kdyn_using ${c.name}`)));
  lines.push(
    "complete -c kdyn -n '__kdyn_using completion' -a 'bash zsh fish'",
    `complete -c kdyn -n '__kdyn_using help; and test (count $__kdyn_args) -eq 0' -a ${esc(visible().map((c) => c.name).join(' '))}`,
    "complete -c kdyn -a '(__kdyn_objects)'",
  );
  return lines.join('\n') + '\n';
}
