/**
 * Where the discovery cache lives, computed exactly as kubectl does
 * (cli-runtime `genericclioptions/config_flags.go`: getDefaultCacheDir, computeDiscoverCacheDir).
 */
import { isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';

export interface CacheRootOptions {
  /** `--cache-dir`, if given and non-empty. */
  cacheDir?: string;
  env: Record<string, string | undefined>;
  cwd?: string;
}

/** `--cache-dir`, else `$KUBECACHEDIR`, else `$HOME/.kube/cache`; without a home directory, env-paths' cache dir for kdyn. */
export async function resolveCacheRoot(opts: CacheRootOptions): Promise<string> {
  const base = opts.cwd ?? '.';
  if (opts.cacheDir) return resolve(base, expandHome(opts.cacheDir, opts.env));
  if (opts.env.KUBECACHEDIR) return resolve(base, expandHome(opts.env.KUBECACHEDIR, opts.env));
  const home = opts.env.HOME || opts.env.USERPROFILE;
  if (home) return join(home, '.kube', 'cache');
  const { default: envPaths } = await import('env-paths');
  return envPaths('kdyn', { suffix: '' }).cache;
}

function expandHome(p: string, env: Record<string, string | undefined>): string {
  const home = env.HOME || env.USERPROFILE;
  return home && (p === '~' || p.startsWith('~/')) ? join(home, p.slice(1)) : p;
}

/**
 * kubectl's `<host>` directory name: strip the first `https://` then the first `http://`, replace every
 * character outside `[(\w/.)]` with `_`. Returns undefined when the result would leave `parent`
 * (a kubeconfig server such as `https://x/../../etc`), so no cache is used at all.
 */
export function computeDiscoverCacheDir(parent: string, host: string): string | undefined {
  const schemeless = host.replace('https://', '').replace('http://', '');
  const safe = schemeless.replace(/[^(\w/.)]/g, '_');
  const dir = normalize(join(parent, safe)).replace(/[\\/]+$/, '');
  return isInside(parent, dir) && dir !== normalize(parent).replace(/[\\/]+$/, '') ? dir : undefined;
}

/** True when `child` is `parent` or below it (lexically). */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.split(sep).includes('..'));
}

export interface CachePaths {
  root: string;
  /** `<root>/discovery/<host>`: kubectl's layout. */
  kubectlDir: string;
  /** `<root>/kdyn/<host>`: kdyn's own files, never read by kubectl. */
  kdynDir: string;
  /** The combined file kdyn answers warm lookups from. */
  combinedFile: string;
  serverGroupsFile: string;
}

export function cachePaths(root: string, server: string): CachePaths | undefined {
  const kubectlDir = computeDiscoverCacheDir(join(root, 'discovery'), server);
  const kdynDir = computeDiscoverCacheDir(join(root, 'kdyn'), server);
  if (!kubectlDir || !kdynDir) return undefined;
  return {
    root,
    kubectlDir,
    kdynDir,
    combinedFile: join(kdynDir, 'discovery.json'),
    serverGroupsFile: join(kubectlDir, 'servergroups.json'),
  };
}

/** `<kubectlDir>/<group>/<version>/serverresources.json`, core as `<kubectlDir>/<version>/...`. Names must be pre-validated. */
export function serverResourcesFile(kubectlDir: string, group: string, version: string): string {
  return group ? join(kubectlDir, group, version, 'serverresources.json') : join(kubectlDir, version, 'serverresources.json');
}
