// Placeholder until the discovery module lands.
import { KdynError } from '../core/errors.js';
import type { CachedDiscovery } from './types.js';
export function createCachedDiscovery(_opts: unknown): CachedDiscovery { throw new KdynError('discovery: not implemented yet'); }
