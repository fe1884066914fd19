/**
 * Federated ranking: local results and the adapters' results in one order by weighted reciprocal rank
 * fusion. An item at rank r (1-based) of a list of weight w scores w / (RRF_K + r); local results have
 * weight 1.0, an adapter its `weight` (default 0.9). RRF_K is the customary 60: fusion by rank, not by
 * the lists' scores, which no two sources share a scale for. Ties go to the local list, then by source
 * name, so the order is the same for the same lists. Pure.
 */
export const RRF_K = 60;
export const LOCAL_WEIGHT = 1.0;

export interface FuseList { source: string; weight: number; count: number }
export interface FusedEntry { source: string; /** 0-based index in its list */ index: number; score: number }

export function fuseLists(lists: readonly FuseList[], local = 'local'): FusedEntry[] {
  const out: FusedEntry[] = [];
  for (const l of lists) for (let i = 0; i < l.count; i++) out.push({ source: l.source, index: i, score: l.weight / (RRF_K + i + 1) });
  return out.sort((a, b) => b.score - a.score || Number(b.source === local) - Number(a.source === local) || a.source.localeCompare(b.source) || a.index - b.index);
}

/** A query for a peer's search: short as given; a long one (a pasted issue) as its most informative terms. */
export function peerQuery(query: string, terms: readonly string[], maxChars = 300): string {
  const q = query.trim();
  if (q.length <= maxChars) return q;
  let out = '';
  for (const t of terms) { if ((out + ' ' + t).trim().length > maxChars) break; out = `${out} ${t}`.trim(); }
  return out || q.slice(0, maxChars);
}
