/**
 * What `kubectl apply -o json|yaml` prints, as its printObjects and its prune do (kubectl v1.32,
 * apply.go and applyset_pruner.go):
 * - the applied objects at the end: one object as itself, several as a typed `corev1.List` (JSON in
 *   its struct's order, `kind`, `apiVersion`, `metadata: {}`, `items`; YAML with sorted keys), not
 *   get's List (no `resourceVersion: ""`);
 * - then each pruned object, as it was listed before its deletion, through a printer of its own:
 *   JSON documents one after another; YAML documents separated by `---` among themselves, the first
 *   right after the applied output with no `---` before it (kubectl's stream is not one valid YAML
 *   stream there; `-o json` or `-o jsonl` are).
 * managedFields are dropped unless `--show-managed-fields` (kubectl's OmitManagedFieldsPrinter).
 */
import type { Unstructured } from '../core/unstructured.js';

/** The encoder of the applied objects' document: one object, or kubectl apply's List of several. */
export async function appliedDocument(format: 'json' | 'yaml'): Promise<(objects: readonly Unstructured[]) => string> {
  if (format === 'json') {
    const { toJSON } = await import('./json.js');
    return (objects) => {
      if (objects.length === 1) return toJSON(objects[0]);
      // The typed List's fields in struct order; its items' keys sorted (maps), as Go marshals them.
      return '{\n    "kind": "List",\n    "apiVersion": "v1",\n    "metadata": {},\n' + toJSON({ items: objects }).slice(2);
    };
  }
  const { toYAML } = await import('./yaml.js');
  return (objects) => toYAML(objects.length === 1 ? objects[0] : { apiVersion: 'v1', items: objects, kind: 'List', metadata: {} });
}

/**
 * One context's pruned objects as kubectl prints them after the applied ones (`encode`: the
 * format's encoder, undefined for the line formats): `-o json` one document each, `-o yaml`
 * documents separated by `---` but none before the first, `-o jsonl` one line each.
 */
export function prunedText(format: string, objects: readonly Unstructured[], encode: ((value: unknown) => string) | undefined): string {
  if (format === 'jsonl') return objects.map((x) => JSON.stringify(x) + '\n').join('');
  if (!encode) return '';
  return objects.map((x, i) => (format === 'yaml' && i > 0 ? '---\n' : '') + encode(x)).join('');
}
