/**
 * Which kubeconfig files to read and how to merge them, as client-go's loader does
 * (tools/clientcmd/loader.go): `--kubeconfig` alone (must exist); else `$KUBECONFIG` split on the
 * OS list separator, de-duplicated, missing files skipped; else `~/.kube/config`.
 * The first file to set a cluster/user/context name owns that entry whole; the first file to set
 * `current-context` wins. Relative paths inside a file resolve against that file's directory.
 */
import { readFileSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { pathError } from '../core/fs-errors.js';
import { ConfigError } from '../core/errors.js';
import { parseKubeconfigYaml } from '../core/yaml-fast.js';
import type { Entry, KubeconfigCluster, KubeconfigContext, KubeconfigUser, MergedKubeconfig } from './types.js';

export interface FileSelection {
  /** Absolute paths, precedence order. */
  files: string[];
  /** True for `--kubeconfig` (the file must exist). */
  explicit: boolean;
  /** Absolute path -> the path as the user wrote it (for messages, as kubectl shows them). */
  shown: Map<string, string>;
}

/** kubectl's precedence: --kubeconfig, then KUBECONFIG, then ~/.kube/config. */
export function selectFiles(flag: string | undefined, env: Record<string, string | undefined>, cwd: string, home: string | undefined): FileSelection {
  if (flag) {
    const abs = resolve(cwd, flag);
    return { files: [abs], explicit: true, shown: new Map([[abs, flag]]) };
  }
  const list = env.KUBECONFIG;
  if (list) {
    const shown = new Map<string, string>();
    for (const p of list.split(delimiter)) {
      if (!p) continue;
      const abs = resolve(cwd, p);
      if (!shown.has(abs)) shown.set(abs, p);
    }
    return { files: [...shown.keys()], explicit: false, shown };
  }
  const def = home ? join(home, '.kube', 'config') : undefined;
  return { files: def ? [def] : [], explicit: false, shown: new Map(def ? [[def, def]] : []) };
}

interface RawFile {
  'current-context'?: unknown;
  clusters?: unknown;
  users?: unknown;
  contexts?: unknown;
}

/** Reads and merges the selected files. Missing files are skipped unless explicit. */
export async function loadMerged(sel: FileSelection): Promise<MergedKubeconfig> {
  const displayPath = (abs: string): string => sel.shown.get(abs) ?? abs;
  const merged: MergedKubeconfig = { files: [], clusters: new Map(), users: new Map(), contexts: new Map() };
  for (const file of sel.files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && !sel.explicit) continue;
      if (code === 'ENOENT') throw new ConfigError(`stat ${displayPath(file)}: no such file or directory`);
      // Go's wording, as kubectl: `read k: is a directory`, `open k: permission denied`.
      throw new ConfigError(`error loading config file "${displayPath(file)}": ${pathError(displayPath(file), e)}`);
    }
    const raw = await parseFile(text, displayPath(file));
    merged.files.push(file);
    mergeInto(merged, raw, file, displayPath(file));
  }
  return merged;
}

/** Parses one file's YAML; errors read like kubectl's: `error loading config file "F": yaml: line N: ...`. */
export async function parseFile(text: string, shownPath: string): Promise<RawFile> {
  // The files kubectl, kind and the cloud CLIs write are read without js-yaml (../core/yaml-fast.ts);
  // anything outside that subset is js-yaml's, loaded only then.
  let doc: unknown = parseKubeconfigYaml(text);
  if (doc === undefined) doc = await parseWithJsYaml(text, shownPath);
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw new ConfigError(`error loading config file "${shownPath}": not a kubeconfig (expected a YAML mapping with clusters, users and contexts)`);
  }
  return doc as RawFile;
}

async function parseWithJsYaml(text: string, shownPath: string): Promise<unknown> {
  const { load: loadYaml } = await import('js-yaml');
  try {
    return loadYaml(text);
  } catch (e) {
    // js-yaml 5 refuses an empty stream (or one with only comments); kubectl reads an empty config.
    if ((e as { reason?: string }).reason?.startsWith('expected a document, but the input is empty')) return null;
    const err = e as { reason?: string; mark?: { line?: number }; message?: string };
    const line = typeof err.mark?.line === 'number' ? `line ${err.mark.line + 1}: ` : '';
    const reason = err.reason ?? String(err.message ?? e).split('\n')[0];
    throw new ConfigError(`error loading config file "${shownPath}": yaml: ${line}${reason}`);
  }
}

function mergeInto(m: MergedKubeconfig, raw: RawFile, file: string, shown: string): void {
  const cc = raw['current-context'];
  if (m.currentContext === undefined && typeof cc === 'string' && cc !== '') m.currentContext = cc;
  addEntries<KubeconfigCluster>(m.clusters, raw.clusters, 'clusters', 'cluster', file, shown, resolveClusterPaths);
  addEntries<KubeconfigUser>(m.users, raw.users, 'users', 'user', file, shown, resolveUserPaths);
  addEntries<KubeconfigContext>(m.contexts, raw.contexts, 'contexts', 'context', file, shown, (v) => v);
}

function addEntries<T extends object>(
  into: Map<string, Entry<T>>,
  list: unknown,
  listKey: string,
  valueKey: string,
  file: string,
  shown: string,
  fixPaths: (v: T, dir: string) => T,
): void {
  if (list === undefined || list === null) return;
  if (!Array.isArray(list)) throw new ConfigError(`error loading config file "${shown}": "${listKey}" must be a list`);
  const seen = new Set<string>();
  for (const item of list) {
    if (!item || typeof item !== 'object') continue;
    const rec = item as Record<string, unknown>;
    const name = rec.name === undefined || rec.name === null ? '' : String(rec.name);
    // client-go refuses a name twice in one file (v1 -> internal conversion)
    if (seen.has(name)) throw new ConfigError(`error loading config file "${shown}": duplicate name "${name}" in ${listKey}`);
    seen.add(name);
    if (into.has(name)) continue; // the first file to define a name owns it
    const value = rec[valueKey];
    if (value !== undefined && value !== null && (typeof value !== 'object' || Array.isArray(value))) {
      throw new ConfigError(`error loading config file "${shown}": ${listKey} entry "${name}": "${valueKey}" must be a mapping`);
    }
    into.set(name, { name, value: fixPaths({ ...((value as T | null) ?? ({} as T)) }, dirname(file)), file });
  }
}

const abs = (dir: string, p: string | undefined): string | undefined => (p && !isAbsolute(p) ? join(dir, p) : p);

function resolveClusterPaths(c: KubeconfigCluster, dir: string): KubeconfigCluster {
  if (typeof c['certificate-authority'] === 'string') c['certificate-authority'] = abs(dir, c['certificate-authority']);
  return c;
}

function resolveUserPaths(u: KubeconfigUser, dir: string): KubeconfigUser {
  if (typeof u['client-certificate'] === 'string') u['client-certificate'] = abs(dir, u['client-certificate']);
  if (typeof u['client-key'] === 'string') u['client-key'] = abs(dir, u['client-key']);
  if (typeof u.tokenFile === 'string') u.tokenFile = abs(dir, u.tokenFile);
  // client-go resolves an exec command relative to the file only when it contains a path separator
  // (a bare name is looked up on PATH).
  if (u.exec && typeof u.exec === 'object' && typeof u.exec.command === 'string' && u.exec.command.includes(sep)) {
    u.exec = { ...u.exec, command: abs(dir, u.exec.command) };
  }
  return u;
}
