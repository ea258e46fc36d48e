/**
 * The TypeScript releases a consumer of kdyn's declarations is checked with: the repository's own
 * (5.x, node_modules) and the current release from the npm registry, installed once per version into
 * the CI cache (`$XDG_CACHE_HOME/kdyn-ci` or `~/.cache/kdyn-ci`, as .ci/run keeps Node releases).
 * `KDYN_TSC_LATEST` names a tsc to use instead (offline). Where the registry cannot be reached the
 * current release is missing and says why.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './tsc-strict.js';

export interface TypeScriptRelease {
  version: string;
  /** The tsc script, run with `process.execPath`. */
  tsc: string;
}

export function repoTypeScript(): TypeScriptRelease {
  const dir = join(REPO_ROOT, 'node_modules/typescript');
  return { version: versionOf(dir), tsc: join(dir, 'bin/tsc') };
}

/** The registry's current TypeScript, or why it is not there. */
export function currentTypeScript(): TypeScriptRelease | { missing: string } {
  const given = process.env.KDYN_TSC_LATEST;
  if (given) return { version: tscVersion(given), tsc: given };
  const view = spawnSync('npm', ['view', 'typescript@latest', 'version'], { encoding: 'utf8', timeout: 60_000 });
  const version = view.stdout?.trim();
  if (view.status !== 0 || !/^\d+\.\d+\.\d+$/.test(version ?? '')) return { missing: `npm view typescript@latest failed (no registry?): ${(view.stderr ?? '').trim().split('\n')[0] ?? ''}` };
  const dir = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'kdyn-ci', `typescript-${version}`);
  const tsc = join(dir, 'node_modules/typescript/bin/tsc');
  if (!existsSync(tsc)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const r = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--no-package-lock', '--prefix', dir, `typescript@${version}`], { encoding: 'utf8', timeout: 300_000 });
    if (r.status !== 0 || !existsSync(tsc)) {
      rmSync(dir, { recursive: true, force: true });
      return { missing: `npm install typescript@${version} failed: ${(r.stderr ?? '').trim().split('\n').at(-1) ?? ''}` };
    }
  }
  return { version, tsc };
}

function versionOf(packageDir: string): string {
  return (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;
}

function tscVersion(tsc: string): string {
  const r = spawnSync(process.execPath, [tsc, '--version'], { encoding: 'utf8' });
  return /Version (\S+)/.exec(r.stdout ?? '')?.[1] ?? 'unknown';
}
