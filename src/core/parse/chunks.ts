/**
 * Chunks: the units search ranks and get_chunk returns. Every line of a file belongs to exactly one chunk:
 * the innermost owner (a definition, a text section) that covers it, or a run of lines no owner covers.
 */
import type { DefinitionKind } from '../languages/types';
import type { TextKind } from '../languages/text';

/** Bounds that keep chunks and occurrence rows small enough to search and store. */
export const LIMITS = {
  maxChunkLines: 150,
  maxTopLevelChunkLines: 80,
  /** characters of text a chunk part holds at most (~2,000 tokens), for definitions and top-level code alike */
  maxChunkChars: 8000,
  maxIdentifiersPerFile: 4000,
  maxParseMillis: 5000,
};

/** A range of lines that gets a chunk of its own (1-based, inclusive); `path` names it (a symbol path, a key path). */
export interface ChunkOwner {
  path: string; kind: Chunk['kind']; start: number; end: number;
  /** the chunk spans the lines it owns alone (a Markdown section without its subsections), not its whole range (a class with its methods) */
  ownLines?: boolean;
}

export interface Chunk {
  /** symbol_path of the owning definition, or `<top>#N` for top-level code; unique in the file */
  key: string;
  symbol_path: string | null;
  /** a definition's kind, `top_level`, or a text file's kind (doc, config, …) */
  kind: DefinitionKind | 'top_level' | TextKind;
  start_line: number;
  end_line: number;
  /** the lines of text this chunk owns (what search sees) */
  text: string;
  /** estimated tokens of the chunk's whole line range (what get_chunk returns): characters / 4 */
  est_tokens: number;
  /** more names search matches like the chunk's own (a config chunk's nested key paths: `payments.retry.limit`) */
  names?: string;
}

/**
 * Each line belongs to the innermost chunk-producing definition that covers it (a function nested in a
 * function stays in its parent's chunk); lines that no definition owns form top-level chunks. Long
 * owners are split into parts `path#2`, `path#3`, … so every chunk stays small and every line searchable.
 * A top-level chunk is a run of consecutive unowned lines: it never reaches across a definition that has
 * a chunk of its own, so its line range is exactly the text it holds. Both kinds are capped the same way,
 * in lines (`maxChunkLines` / `maxTopLevelChunkLines`) and in characters (`maxChunkChars`; a single longer
 * line stays whole). `est_tokens` is measured on the chunk's whole line range, the text get_chunk returns
 * (for a class, its methods included).
 */
export function buildChunks(owners: readonly ChunkOwner[], lines: string[], lineCount: number, topKind: Chunk['kind'] = 'top_level'): Chunk[] {
  const owner = new Int32Array(lineCount + 2).fill(-1);
  // owners are sorted outer-first, so inner ones overwrite
  owners.forEach((d, idx) => { for (let l = d.start; l <= d.end; l++) owner[l] = idx; });
  const out: Chunk[] = [];
  const lineText = (l: number) => lines[l - 1] ?? '';
  // before[l] = characters of lines 1..l-1, each with its newline: the text of lines a..b is before[b+1] - before[a] - 1.
  const before = new Float64Array(lineCount + 2);
  for (let l = 1; l <= lineCount; l++) before[l + 1] = before[l]! + lineText(l).length + 1;
  const estTokens = (a: number, b: number) => Math.ceil(Math.max(0, before[b + 1]! - before[a]! - 1) / 4);
  const split = (ls: number[], maxLines: number): number[][] => {
    const parts: number[][] = []; let cur: number[] = []; let chars = 0;
    for (const l of ls) {
      const c = lineText(l).length + 1;
      if (cur.length && (cur.length >= maxLines || chars + c > LIMITS.maxChunkChars + 1)) { parts.push(cur); cur = []; chars = 0; }
      cur.push(l); chars += c;
    }
    if (cur.length) parts.push(cur);
    return parts;
  };
  owners.forEach((d, idx) => {
    const s = d.start, e = d.end;
    const owned: number[] = [];
    for (let l = s; l <= e; l++) if (owner[l] === idx) owned.push(l);
    if (!owned.length) return;
    const parts = split(owned, LIMITS.maxChunkLines);
    parts.forEach((slice, i) => {
      const whole = parts.length === 1;
      const start = whole && !d.ownLines ? s : slice[0]!, end = whole && !d.ownLines ? e : slice[slice.length - 1]!;
      out.push({
        key: i === 0 ? d.path : `${d.path}#${i + 1}`, symbol_path: d.path, kind: d.kind, start_line: start, end_line: end,
        text: slice.map(lineText).join('\n'), est_tokens: estTokens(start, end),
      });
    });
  });
  // Top-level code: runs of consecutive unowned lines, cut at every owned line and at the caps; blank
  // lines at the edges of a part are left out, blank-only parts dropped.
  let n = 0;
  const blank = (l: number) => !lineText(l).trim();
  const flushRun = (run: number[]) => {
    for (const part of split(run, LIMITS.maxTopLevelChunkLines)) {
      let a = 0, b = part.length - 1;
      while (a <= b && blank(part[a]!)) a++;
      while (b >= a && blank(part[b]!)) b--;
      if (a > b) continue;
      const start = part[a]!, end = part[b]!;
      out.push({ key: `<top>#${++n}`, symbol_path: null, kind: topKind, start_line: start, end_line: end,
        text: part.slice(a, b + 1).map(lineText).join('\n'), est_tokens: estTokens(start, end) });
    }
  };
  let run: number[] = [];
  for (let l = 1; l <= lineCount; l++) {
    if (owner[l] === -1) { run.push(l); continue; }
    if (run.length) { flushRun(run); run = []; }
  }
  if (run.length) flushRun(run);
  out.sort((a, b) => a.start_line - b.start_line);
  return out;
}

export function topLevelOnly(lines: string[], lineCount: number, topKind: Chunk['kind'] = 'top_level'): Chunk[] {
  return buildChunks([], lines, lineCount, topKind);
}
