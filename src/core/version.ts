declare const __KDYN_VERSION__: string;

/** kdyn's own version, injected at build time from package.json. */
export const VERSION: string = typeof __KDYN_VERSION__ === 'string' ? __KDYN_VERSION__ : '0.0.0-dev';

export const USER_AGENT = `kdyn/${VERSION}`;
