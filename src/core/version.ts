declare const __KDYN_VERSION__: string;
declare const __KDYN_BUILD_ID__: string;

/** kdyn's own version, injected at build time from package.json. */
export const VERSION: string = typeof __KDYN_VERSION__ === 'string' ? __KDYN_VERSION__ : '0.0.0-dev';

/**
 * Which build this is: a digest of kdyn's sources, made at build time (12 hex digits). What a build
 * keeps on disk for itself carries it in its name, so no other build (released or not) reads it.
 */
export const BUILD_ID: string = typeof __KDYN_BUILD_ID__ === 'string' ? __KDYN_BUILD_ID__ : 'dev';

export const USER_AGENT = `kdyn/${VERSION}`;
