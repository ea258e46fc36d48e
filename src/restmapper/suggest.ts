/**
 * "Did you mean ...?" hints for a name that maps to nothing. Runs only on the error path.
 * - A known name with an unknown qualifier (`pods.nosuch.example.com`, `deployments.v9.apps`)
 *   suggests the qualified forms that do exist.
 * - Otherwise the closest known names by edit distance (plural, singular, short name, category),
 *   then names the input is a prefix of; only the best distance is kept, at most three.
 */
import { editDistance } from '../core/editdistance.js';
import type { Catalog, Hit } from './catalog.js';
import { groupResource } from '../core/gvk.js';

const MAX_SUGGESTIONS = 3;

export function suggestNames(catalog: Catalog, arg: string): string[] {
  const lower = arg.toLowerCase();
  const dot = lower.indexOf('.');
  const head = dot < 0 ? lower : lower.slice(0, dot);
  if (dot >= 0) {
    const qualified = qualifiedForms(catalog, head, lower.split('.'));
    if (qualified.length) return qualified;
  }
  return closeNames(catalog, head);
}

function hitsFor(catalog: Catalog, name: string): Hit[] {
  const hits = [...catalog.byName(name)];
  for (const sc of catalog.shortcuts.get(name) ?? []) {
    for (const h of catalog.byName(sc.res.name.toLowerCase())) if (h.gv.group === sc.gv.group) hits.push(h);
  }
  return hits.sort((a, b) => a.gv.rank - b.gv.rank);
}

function qualifiedForms(catalog: Catalog, head: string, parts: string[]): string[] {
  const hits = hitsFor(catalog, head);
  if (!hits.length) return [];
  const out = new Set<string>();
  if (parts.length >= 3) {
    const group = parts.slice(2).join('.');
    for (const h of hits) if (h.gv.group === group) out.add(`${h.res.name}.${h.gv.version}.${group}`);
    if (out.size) return [...out].slice(0, MAX_SUGGESTIONS + 1);
  }
  for (const h of hits) out.add(groupResource(h.res.name, h.gv.group));
  return [...out].slice(0, MAX_SUGGESTIONS + 1);
}

function closeNames(catalog: Catalog, head: string): string[] {
  if (!head) return [];
  const maxDist = head.length <= 3 ? 1 : head.length <= 5 ? 2 : 3;
  const scored = new Map<string, { dist: number; rank: number }>();
  const consider = (candidate: string, display: string, rank: number) => {
    if (candidate === head) return;
    let dist: number;
    if (Math.abs(candidate.length - head.length) <= maxDist) dist = editDistance(head, candidate);
    else dist = Infinity;
    if (dist > maxDist) {
      if (head.length >= 3 && candidate.startsWith(head)) dist = maxDist + 1;
      else return;
    }
    const prev = scored.get(display);
    if (!prev || dist < prev.dist || (dist === prev.dist && rank < prev.rank)) scored.set(display, { dist, rank });
  };
  for (const [name, hits] of catalog.names()) {
    const best = Array.isArray(hits) ? hits.reduce((a, b) => (b.gv.rank < a.gv.rank ? b : a)) : hits;
    consider(name, best.res.name, best.gv.rank);
  }
  for (const [short, longs] of catalog.shortcuts) consider(short, short, longs[0]?.gv.rank ?? Number.MAX_SAFE_INTEGER);
  for (const cat of catalog.categories.keys()) consider(cat, cat, Number.MAX_SAFE_INTEGER);
  if (!scored.size) return [];
  const best = Math.min(...[...scored.values()].map((s) => s.dist));
  return [...scored.entries()]
    .filter(([, s]) => s.dist === best)
    .sort((a, b) => a[1].rank - b[1].rank || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_SUGGESTIONS)
    .map(([name]) => name);
}
