/**
 * `-n a,b` (issue 24): several namespaces, one request each, merged as with `-A` (a NAMESPACE
 * column). One name keeps kubectl's single-namespace behaviour.
 */
import { UsageError } from '../core/errors.js';

/**
 * The namespaces `-n` names, each once in the order given; undefined for none (the context's
 * namespace applies). Empty items (`a,,b`) are a usage error.
 */
export function parseNamespaces(value: unknown): string[] | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const items = value.split(',').map((s) => s.trim());
  if (items.some((s) => s === '')) throw new UsageError(`invalid argument "${value}" for "-n, --namespace" flag: empty namespace in the list`);
  return [...new Set(items)];
}

/** Whether `-n` names several namespaces. */
export function isMultiNamespace(value: unknown): boolean {
  return typeof value === 'string' && value.includes(',');
}
