/**
 * Hotspots: complexity × churn. Complexity is a cheap proxy read from the stored data, never from the
 * files: lines × (1 + branch keywords), the keywords (BRANCH_TOKENS) counted in the full-text token
 * text of the definition's own chunks (comments and strings included, `&&`/`||` not seen). Churn is the
 * number of mined commits that touched the definition's lines (history_symbols; a file: its churn).
 * Without history (not a git repository, nothing mined) the ranking is by complexity alone, and the
 * answer says so.
 */
import type { AnalyticsSource, ChunkInfo, RepoModel } from '../services/analytics';

export const BRANCH_TOKENS: ReadonlySet<string> = new Set(['if', 'elif', 'elsif', 'for', 'foreach', 'while', 'case', 'catch', 'except', 'when', 'unless', 'until', 'loop', 'select', 'rescue']);
const KINDS = new Set(['function', 'method']);

export type HotspotLevel = 'file' | 'symbol';
export interface Hotspot { node: number; lines: number; branches: number; complexity: number; churn: number; score: number }

export function findHotspots(src: AnalyticsSource, m: RepoModel, level: HotspotLevel, keep: (path: string) => boolean, withHistory: boolean): Hotspot[] {
  const churn = withHistory ? src.churn(m.repo_id) : { files: new Map<string, number>(), symbols: new Map<string, number>() };
  const chunksByFile = new Map<number, ChunkInfo[]>();
  for (const c of src.chunks(m.repo_id)) (chunksByFile.get(c.file_id) ?? chunksByFile.set(c.file_id, []).get(c.file_id)!).push(c);
  const byFile = new Map<number, number[]>();
  for (const n of m.nodes.values()) {
    if (!keep(n.path)) continue;
    if (level === 'file' ? n.node < 0 : n.node > 0 && KINDS.has(n.kind) && n.chunk_key === n.symbol_path) (byFile.get(n.file_id) ?? byFile.set(n.file_id, []).get(n.file_id)!).push(n.node);
  }
  const out: Hotspot[] = [];
  for (const [fileId, nodes] of byFile) {
    const text = src.tokenText(fileId) ?? [];
    const chunks = chunksByFile.get(fileId) ?? [];
    const branchesOf = (cs: ChunkInfo[]) => { let b = 0; for (const c of cs) for (const t of (text[2 + 2 * c.ord] ?? '').split(' ')) if (BRANCH_TOKENS.has(t)) b++; return b; };
    for (const node of nodes) {
      const n = m.nodes.get(node)!;
      const own = level === 'file' ? chunks : chunks.filter(c => c.key === n.chunk_key || c.key.startsWith(`${n.chunk_key}#`));
      const lines = n.end_line - n.start_line + 1;
      const branches = branchesOf(own);
      const complexity = lines * (1 + branches);
      const c = level === 'file' ? churn.files.get(n.path) ?? 0 : churn.symbols.get(m.ids.get(node)!) ?? 0;
      out.push({ node, lines, branches, complexity, churn: c, score: withHistory ? complexity * c : complexity });
    }
  }
  const order = (a: number, b: number) => { const x = m.nodes.get(a)!, y = m.nodes.get(b)!; return x.path.localeCompare(y.path) || x.start_line - y.start_line; };
  return out.sort((a, b) => b.score - a.score || b.complexity - a.complexity || order(a.node, b.node));
}
