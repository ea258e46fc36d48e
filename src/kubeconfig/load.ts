// Placeholder until the kubeconfig module lands.
import { KdynError } from '../core/errors.js';
import type { RestConfig } from './types.js';
export async function loadRestConfig(_opts: unknown): Promise<RestConfig> { throw new KdynError('kubeconfig: not implemented yet'); }
