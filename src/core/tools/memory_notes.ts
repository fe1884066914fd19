/**
 * Project memories inside other answers (impact, post_change_impact, pre_change_context, search_code).
 *
 * One call reads them once: `MemoryNotes.open` runs the memories service's check on read
 * (`reconcileAll` with `onlyChanged`: a memory whose file changed since its last check is reconciled
 * first, so it is never served `current` after an edit), then every match is in memory. Without memory
 * documents that costs a failed read of each document.
 *
 * Matching a node or chunk (repo_id, path, symbol_path, lines): a symbol memory by repo_id +
 * anchor_path + anchor_id = symbol_path; a file memory by path; a span memory by path when its lines
 * overlap the node's. A file node (no symbol_path) holds every memory of its file. Repository-wide
 * memories are not attached to code (memory_list has them).
 *
 * Answers carry at most NOTES_CAP memories (`total_memories` counts them all), each text cut at
 * NOTE_TEXT_CHARS; stale and gone first, since they need a look, and flagged so in Markdown.
 */
import { z } from 'zod';
import { code, plural, estimateTokens } from './contract';
import type { ToolServices } from './services';
import type { MemoryRecord, MemoryStatus } from '../services/memories';

export const NOTE_TEXT_CHARS = 300;
export const NOTES_CAP = 20;
/** Memories listed in Markdown (the rest are counted). */
const MD_NOTES = 8;
const MD_TEXT_CHARS = 160;

const STATUSES = ['current', 'relocated', 'stale', 'gone'] as const;
const SEVERITY: Record<MemoryStatus, number> = { current: 0, relocated: 1, stale: 2, gone: 3 };
const needsLook = (s: MemoryStatus) => s === 'stale' || s === 'gone';

export const memoryNoteSchema = z.object({
  id: z.string().describe('memory:<repo_id>:<hash> (for memory_update / memory_delete).'),
  anchor_kind: z.enum(['repo', 'file', 'symbol', 'span']).describe('What it is anchored to.'),
  anchor_path: z.string().nullable().describe('Anchored file.'),
  anchor_id: z.string().describe('symbol_path (symbol) or path (file/span).'),
  start_line: z.number().int().nullable().describe('First anchored line now.'),
  end_line: z.number().int().nullable().describe('Last anchored line now.'),
  status: z.enum(STATUSES).describe('Checked against the file now: current, relocated (moved), stale (anchor gone), gone (file gone). Stale and gone need a look.'),
  text: z.string().describe(`The memory, cut at ${NOTE_TEXT_CHARS} characters (memory_list has it whole).`),
  text_truncated: z.boolean().describe('True when text was cut.'),
  source: z.string().describe('human, agent, …'),
  code_change: z.string().nullable().describe('How its anchored code changed since it was written or last confirmed (null: it did not): it may no longer hold.'),
  on: z.string().describe('What in this answer it is anchored on: a node id, chunk id or file path.'),
});
export type MemoryNote = z.infer<typeof memoryNoteSchema>;

/** The output fields an answer with memories adds. */
export function memoryNotesFields(what: string) {
  return {
    memories: z.array(memoryNoteSchema).describe(`Project memories anchored on ${what}, stale and gone first (at most ${NOTES_CAP}).`),
    total_memories: z.number().int().describe('All matching memories.'),
  };
}

export const memoryMarkerSchema = z.object({
  count: z.number().int().describe('Memories on it.'),
  needs_look: z.number().int().describe('Of which stale or gone.'),
  worst_status: z.enum(STATUSES).describe('Worst status among them (gone, stale, relocated, current).'),
  code_changed: z.number().int().describe('Of which the anchored code changed since they were confirmed.'),
}).optional().describe('Project memories anchored on it (absent: none); memory_list path=… lists them.');
export type MemoryMarker = z.infer<typeof memoryMarkerSchema>;

export interface Anchorable { repo_id: string; path: string; symbol_path: string | null; start_line: number; end_line: number }
export interface LineSpan { start_line: number; end_line: number }

const overlaps = (m: MemoryRecord, a: LineSpan) => m.start_line !== null && m.end_line !== null && m.start_line <= a.end_line && a.start_line <= m.end_line;

export class MemoryNotes {
  private constructor(private readonly byFile: ReadonlyMap<string, MemoryRecord[]>) {}

  /** One check on read of the memories (of one repository, or all), then matching in memory. */
  static async open(engine: ToolServices, repoId?: string): Promise<MemoryNotes> {
    const { memories } = await engine.memories.reconcileAll({ repo_id: repoId, onlyChanged: true });
    const byFile = new Map<string, MemoryRecord[]>();
    for (const m of memories) {
      if (m.anchor_kind === 'repo' || !m.anchor_path) continue;
      const k = `${m.repo_id}\0${m.anchor_path}`;
      byFile.set(k, [...(byFile.get(k) ?? []), m]);
    }
    return new MemoryNotes(byFile);
  }

  get empty(): boolean { return this.byFile.size === 0; }

  inFile(repoId: string, path: string): MemoryRecord[] { return this.byFile.get(`${repoId}\0${path}`) ?? []; }

  /** The memories on a chunk or definition: its symbol's, its file's, and spans overlapping its lines. */
  on(a: Anchorable): MemoryRecord[] {
    return this.inFile(a.repo_id, a.path).filter(m => m.anchor_kind === 'file' || (m.anchor_kind === 'symbol' ? m.anchor_id === a.symbol_path : overlaps(m, a)));
  }

  /** The memories of a file node (symbol_path null) or a definition. */
  onNode(n: Anchorable & { kind?: string }): MemoryRecord[] {
    return n.symbol_path === null ? this.inFile(n.repo_id, n.path) : this.on(n);
  }

  /** File memories of a changed file, and those whose lines overlap the changed ranges (null: the whole file). */
  inRanges(repoId: string, path: string, ranges: readonly LineSpan[] | null): MemoryRecord[] {
    const all = this.inFile(repoId, path);
    if (!ranges) return all;
    return all.filter(m => m.anchor_kind === 'file' || ranges.some(r => overlaps(m, r)));
  }

  /** The compact marker of a search hit (undefined: no memories). */
  static marker(ms: readonly MemoryRecord[]): MemoryMarker {
    if (!ms.length) return undefined;
    const worst = ms.reduce((w, m) => (SEVERITY[m.status] > SEVERITY[w] ? m.status : w), 'current' as MemoryStatus);
    const needs_look = ms.filter(m => needsLook(m.status)).length;
    return { count: ms.length, needs_look, worst_status: worst, code_changed: ms.filter(m => m.code_change).length };
  }
}

/** Gathers the memories of an answer: each once, at the first (lowest-rank) place it was found. */
export class NoteCollector {
  private readonly found = new Map<string, { m: MemoryRecord; on: string; rank: number }>();
  add(ms: readonly MemoryRecord[], on: string, rank = 0): void {
    for (const m of ms) if (!this.found.has(m.id)) this.found.set(m.id, { m, on, rank });
  }
  /** The memories, most urgent first, at most NOTES_CAP (and, given maxTokens, those that fit in it; at least one). */
  result(maxTokens = Infinity): { memories: MemoryNote[]; total_memories: number } {
    const urgency = (m: MemoryRecord) => SEVERITY[m.status] * 2 + (m.code_change ? 1 : 0);
    const all = [...this.found.values()].sort((a, b) => urgency(b.m) - urgency(a.m) || a.rank - b.rank
      || (a.m.anchor_path ?? '').localeCompare(b.m.anchor_path ?? '') || (a.m.start_line ?? 0) - (b.m.start_line ?? 0) || a.m.id.localeCompare(b.m.id));
    const memories: MemoryNote[] = [];
    let tokens = 0;
    for (const { m, on } of all.slice(0, NOTES_CAP)) {
      const note = toNote(m, on);
      tokens += estimateTokens(JSON.stringify(note));
      if (tokens > maxTokens && memories.length) break;
      memories.push(note);
    }
    return { memories, total_memories: all.length };
  }
}

export function toNote(m: MemoryRecord, on: string): MemoryNote {
  const cut = m.text.length > NOTE_TEXT_CHARS;
  return { id: m.id, anchor_kind: m.anchor_kind, anchor_path: m.anchor_path, anchor_id: m.anchor_id, start_line: m.start_line, end_line: m.end_line,
    status: m.status, text: cut ? `${m.text.slice(0, NOTE_TEXT_CHARS - 1)}…` : m.text, text_truncated: cut, source: m.source,
    code_change: m.code_change ? `${m.code_change.summary} (since ${new Date(m.code_change.since_ms).toISOString().slice(0, 10)})` : null, on };
}

// ---- Markdown ---------------------------------------------------------------------------------------
/** `; 📝 3 memories (1 stale or gone: needs a look)` for a header, '' without memories. */
export function notesSummary(r: { memories: MemoryNote[]; total_memories: number }): string {
  if (!r.total_memories) return '';
  const look = r.memories.filter(m => needsLook(m.status)).length;
  const changed = r.memories.filter(m => m.code_change).length;
  const flags = [look ? `**${look} stale or gone: needs a look**` : '', changed ? `**${changed} on code changed since confirmed**` : ''].filter(Boolean);
  return `; 📝 ${plural(r.total_memories, 'memory', 'memories')}${flags.length ? ` (${flags.join('; ')})` : ''}`;
}

/** One line a memory (the first MD_NOTES), stale and gone flagged; then how many more. */
export function noteLines(r: { memories: MemoryNote[]; total_memories: number }): string[] {
  const lines = r.memories.slice(0, MD_NOTES).map(m => {
    const where = m.anchor_kind === 'file' ? m.anchor_path! : `${m.anchor_path}:${m.start_line}${m.end_line !== m.start_line ? `-${m.end_line}` : ''}${m.anchor_kind === 'symbol' ? ` ${m.anchor_id}` : ''}`;
    const flag = (needsLook(m.status) ? `⚠ **${m.status}: needs a look** ` : m.status === 'relocated' ? '↪ relocated ' : '')
      + (m.code_change ? '✎ **code changed since it was confirmed** ' : '');
    const text = m.text.replace(/\s*\r?\n\s*/g, ' ');
    return `- 📝 ${flag}${code(where)} — ${text.length > MD_TEXT_CHARS ? `${text.slice(0, MD_TEXT_CHARS - 1)}…` : text} · ${code(m.id)}`;
  });
  const more = r.total_memories - lines.length;
  if (more > 0) lines.push(`- 📝 ${plural(more, 'more memory', 'more memories')}: memory_list`);
  return lines;
}

/** ` · [📝 2 memories, ⚠ 1 stale or gone]` after a search hit, '' without memories. */
export function markerText(m: MemoryMarker): string {
  if (!m) return '';
  const changed = m.code_changed ? `, ✎ ${m.code_changed} on changed code` : '';
  return ` · [📝 ${plural(m.count, 'memory', 'memories')}${m.needs_look ? `, ⚠ ${m.needs_look} ${m.needs_look === 1 ? m.worst_status : 'stale or gone'}` : ''}${changed}]`;
}
