// Placeholder until the transport lands.
import { KdynError } from '../core/errors.js';
import type { Transport } from './types.js';
export function createTransport(_config: unknown, _opts: unknown): Transport { throw new KdynError('transport: not implemented yet'); }
