/**
 * Which row ids a rewritten file's definitions keep (store/files.ts `writeFile`): other files' graph
 * edges point at definitions by row id, so a definition that stays keeps its row.
 */

/**
 * For each of a file's new definitions (in the parser's order), the row id of the old definition it
 * continues (same symbol path and kind, matched in order), or null for a new row. All null when keeping
 * ids would change the order of the definitions of one name: rows of new definitions are numbered after
 * every kept one, and a fresh index numbers them in the parser's order.
 */
export function keptSymbolIds(old: readonly { rowid: number; symbol_path: string; kind: string }[], now: readonly { name: string; symbol_path: string; kind: string }[]): (number | null)[] {
  const queues = new Map<string, number[]>();
  for (const o of old) { const k = `${o.symbol_path}\0${o.kind}`; (queues.get(k) ?? queues.set(k, []).get(k)!).push(o.rowid); }
  const ids = now.map(s => queues.get(`${s.symbol_path}\0${s.kind}`)?.shift() ?? null);
  const last = new Map<string, number>(); const fresh = new Set<string>();
  for (const [i, s] of now.entries()) {
    const id = ids[i] ?? null;
    if (id === null) { fresh.add(s.name); continue; }
    if (fresh.has(s.name) || id < (last.get(s.name) ?? -Infinity)) return now.map(() => null);
    last.set(s.name, id);
  }
  return ids;
}
