/**
 * Names the graph cannot account for. An answer that would otherwise be complete (every target checked
 * by a compiler-grade provider, nothing else bounding it) is a lower bound when the target's name appears
 * in files that no edge connects to it: a string of generated code (`"environment.call("`), a template, a
 * name looked up at run time. The full-text index answers which chunks hold the name; a file that uses
 * the target (an edge from it) or defines it accounts for its own mentions.
 */
import type { NodeRow } from '../store/store';
import { ftsFromTokens, tokenize } from '../util/tokens';
import type { Boundary, GraphReader } from './query';

/** At most this many chunks are read per name (enough to name a few files). */
const MENTION_LIMIT = 200;
const EDGE_KINDS = ['calls', 'references', 'imports', 'extends', 'implements', 'contains_test_for'] as const;

export type ChunksWithTerm = (term: string, limit: number) => { file_id: number; key: string }[];

export function mentionBoundaries(g: GraphReader, chunksWithTerm: ChunksWithTerm, symbols: NodeRow[]): Boundary[] {
  if (!symbols.length) return [];
  const incoming = g.edgesOfMany(symbols, 'in', EDGE_KINDS, { dispatch: false });
  const out: Boundary[] = [];
  for (const t of symbols) {
    const term = ftsFromTokens(tokenize(t.name)).split(' ')[0];
    if (!term) continue;
    const accounted = new Set([t.file_id, ...(incoming.get(t.node) ?? []).map(x => x.neighbour.file_id)]);
    const files = new Set(chunksWithTerm(`body:${term}`, MENTION_LIMIT).map(h => h.file_id).filter(f => !accounted.has(f)));
    if (!files.size) continue;
    const paths = [...g.nodes([...files].slice(0, 3).map(f => -f)).values()].map(n => n.path);
    const more = files.size > paths.length ? ', …' : '';
    out.push({ kind: 'dynamic_names', detail: `${t.name} is named in ${files.size} file(s) no edge connects to it `
      + `(${paths.join(', ')}${more}): a string, generated code or a run-time lookup may use it` });
  }
  return out;
}
