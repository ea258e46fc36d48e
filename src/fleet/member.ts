/**
 * What the fetch paths over contexts (./get.ts, ./watch.ts, ./apply.ts) need of one context's
 * connection: its RESTMapper, dynamic client and namespace, built lazily (the CLI's context fits, and
 * so does the library's Connection).
 */
import type { DynamicClient } from '../dynamic/client.js';
import type { RESTMapper } from '../restmapper/types.js';

export interface Member {
  mapper(): Promise<RESTMapper>;
  dynamic(): Promise<DynamicClient>;
  /** The context's namespace (kubeconfig's, else `default`). */
  namespace(): Promise<string>;
  preconnect?(): Promise<void>;
  flush?(): Promise<void>;
  close(): void;
}
