// Placeholder until the dynamic client lands.
import type { Transport } from '../transport/types.js';
export class DynamicClient { constructor(readonly transport: Transport) {} }
