/**
 * A text file (docs, configuration, data, scripts, markup, styles) into chunks. Pure over (format, text):
 * sections a grammar finds (languages/text.ts), SQL statements, or bounded line windows; no definitions
 * or occurrences. A section too long for one chunk is cut at its subsections; what no section owns is
 * cut into line windows, as top-level code is.
 */
import type { Node } from 'web-tree-sitter';
import { TEXT_FORMATS, type SectionRules, type TextFormat, type TextFormatId, type TextKind, fileKindOf } from '../languages/text';
import { buildChunks, LIMITS, type Chunk, type ChunkOwner } from './chunks';
import { loadGrammar } from './treesitter';
import type { Extraction } from './extract';

export async function extractText(format: TextFormatId, path: string, source: string): Promise<Extraction> {
  const lines = source.split('\n');
  const lineCount = source.length === 0 ? 0 : (source.endsWith('\n') ? lines.length - 1 : lines.length);
  const spec: TextFormat = TEXT_FORMATS[format];
  const kind = fileKindOf(format, path) as TextKind;
  let owners: ChunkOwner[] = [];
  let keys: { line: number; path: string }[] = [];
  if (spec.sections) {
    // A tree with errors (templated YAML, JSON with comments) still gives the sections it recovered.
    const tree = await parseText(spec.sections.wasm, source);
    if (tree) {
      owners = sectionOwners(tree.rootNode, spec.sections, kind, lines, lineCount);
      if (spec.sections.keyPaths) keys = keyPaths(tree.rootNode, spec.sections);
      tree.delete();
    }
  } else if (spec.statements) owners = statementOwners(source, kind, lineCount);
  if (spec.keyLines) keys = keyLines(lines);
  return { language: format, line_count: lineCount, syntax_errors: 0, lost_declarations: [], repaired: false,
    definitions: [], occurrences: [], chunks: withKeys(buildChunks(uniquePaths(owners), lines, lineCount, kind), keys) };
}

/** Each chunk's nested key paths (at most 64), by the line each key is on. */
function withKeys(chunks: Chunk[], keys: readonly { line: number; path: string }[]): Chunk[] {
  if (!keys.length) return chunks;
  const sorted = [...keys].sort((a, b) => a.line - b.line);
  for (const c of chunks) {
    let lo = 0, hi = sorted.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (sorted[mid]!.line < c.start_line) lo = mid + 1; else hi = mid; }
    const inside = new Set<string>();
    for (let i = lo; i < sorted.length && sorted[i]!.line <= c.end_line && inside.size < 64; i++) inside.add(sorted[i]!.path);
    if (inside.size) c.names = [...inside].join(' ');
  }
  return chunks;
}

/** Keys of `KEY=value`, `key = value`, `key: value` lines (an `export` before is allowed) under their `[section]`. */
function keyLines(lines: readonly string[]): { line: number; path: string }[] {
  const out: { line: number; path: string }[] = [];
  let section = '';
  lines.forEach((text, i) => {
    const header = /^\s*\[([^\]\n]{1,80})\]\s*$/.exec(text);
    if (header) { section = header[1]!.trim(); out.push({ line: i + 1, path: section }); return; }
    const key = /^\s*(?:export\s+)?([A-Za-z_][\w.-]{0,80})\s*[=:]/.exec(text)?.[1];
    if (key) out.push({ line: i + 1, path: section ? `${section}.${key}` : key });
  });
  return out;
}

/** Every section's full path and first line, however deep (a config file's keys: `payments.retry.limit`). */
function keyPaths(root: Node, rules: SectionRules): { line: number; path: string }[] {
  const out: { line: number; path: string }[] = [];
  const visit = (node: Node, path: string, depth: number) => {
    if (depth > 24 || out.length >= 20_000) return;
    for (const c of node.namedChildren) {
      if (!c) continue;
      const name = rules.sections[c.type]?.(c)?.replace(/[\n:\s]+/g, ' ').trim();
      const full = name ? (path ? `${path}${rules.joiner}${name}` : name) : path;
      if (name) out.push({ line: c.startPosition.row + 1, path: full });
      visit(c, full, depth + 1);
    }
  };
  visit(root, '', 0);
  return out;
}

/** The tree of a text file, or null when its grammar cannot be loaded or parsing ran out of time (line windows then). */
async function parseText(wasm: string, source: string) {
  const parser = await loadGrammar(wasm).catch(() => null);
  if (!parser) return null;
  const deadline = Date.now() + LIMITS.maxParseMillis;
  return parser.parse(source, null, { progressCallback: () => (Date.now() > deadline ? true : undefined) } as never);
}

/** Characters of lines a..b (1-based), to tell whether a section fits one chunk. */
function sizeOf(lines: string[]): (a: number, b: number) => number {
  const before = new Float64Array(lines.length + 2);
  for (let l = 1; l <= lines.length; l++) before[l + 1] = before[l]! + lines[l - 1]!.length + 1;
  return (a, b) => before[Math.min(b, lines.length) + 1]! - before[a]!;
}

/**
 * Sections in document order, outer ones before the ones inside them (buildChunks lets inner owners
 * overwrite outer ones): a section that fits one chunk is whole; a longer one (or any, for a flat
 * format) has its subsections cut out of it.
 */
function sectionOwners(root: Node, rules: SectionRules, kind: TextKind, lines: string[], lineCount: number): ChunkOwner[] {
  const out: ChunkOwner[] = [];
  const chars = sizeOf(lines);
  const blank = (l: number) => !lines[l - 1]?.trim();
  const visit = (node: Node, path: string, depth: number) => {
    if (depth > 64) return;
    for (const c of node.namedChildren) {
      if (!c) continue;
      const named = rules.sections[c.type];
      const name = named?.(c)?.replace(/[\n:\s]+/g, ' ').trim();
      if (!name) { if (rules.containers.has(c.type)) visit(c, path, depth + 1); continue; }
      const start = c.startPosition.row + 1;
      let end = Math.min(c.endPosition.row + (c.endPosition.column === 0 && c.endPosition.row > c.startPosition.row ? 0 : 1), lineCount);
      // trailing blank lines stay outside (a flat format's go to no parent either: they end the section above)
      while (!rules.flat && end > start && blank(end)) end--;
      const full = path ? `${path}${rules.joiner}${name}` : name;
      if (end - start + 1 < rules.minLines) continue;
      out.push({ path: full, kind, start, end, ownLines: true });
      const tooBig = end - start + 1 > LIMITS.maxChunkLines || chars(start, end) > LIMITS.maxChunkChars;
      if (rules.flat || tooBig) visit(c, full, depth + 1);
    }
  };
  visit(root, '', 0);
  return out;
}

/** What a statement does and to what: `create table orders`, `insert into orders`, `alter table x`. */
const SQL_HEAD = new RegExp('^\\s*(create|alter|drop|insert\\s+into|update|delete\\s+from|select|with|grant|comment\\s+on)\\b(?:\\s+or\\s+replace)?'
  + '(?:\\s+(?:unique|temp|temporary|materialized|global|local))*'
  + '(?:\\s+(table|view|index|function|procedure|trigger|type|sequence|schema|extension|policy|domain))?'
  + '(?:\\s+if\\s+(?:not\\s+)?exists)?\\s+([\\w."`[\\]]+)?', 'i');

/** SQL: each statement of two lines or more is a chunk, named by what it does (`create table orders`). */
function statementOwners(source: string, kind: TextKind, lineCount: number): ChunkOwner[] {
  const out: ChunkOwner[] = [];
  for (const s of sqlStatements(source)) {
    if (s.end - s.start < 1) continue;
    const head = SQL_HEAD.exec(s.text);
    const name = head ? [head[1], head[2], head[3]].filter(Boolean).join(' ').replace(/\s+/g, ' ').toLowerCase() : `statement at line ${s.start}`;
    out.push({ path: name, kind, start: s.start, end: Math.min(s.end, lineCount), ownLines: true });
  }
  return out;
}

/** SQL statements: text up to each `;` outside quotes, comments and dollar-quoted bodies, with their lines. */
export function sqlStatements(source: string): { text: string; start: number; end: number }[] {
  const out: { text: string; start: number; end: number }[] = [];
  let line = 1, start = -1, startLine = 1;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (ch === '\n') { line++; continue; }
    if (start < 0 && /\s/.test(ch)) continue;
    if (ch === '-' && source[i + 1] === '-') { const j = source.indexOf('\n', i); i = (j < 0 ? source.length : j) - 1; continue; }
    if (ch === '/' && source[i + 1] === '*') {
      const j = source.indexOf('*/', i + 2); const k = j < 0 ? source.length : j + 2;
      line += countNewlines(source, i, k); i = k - 1; continue;
    }
    if (start < 0) { start = i; startLine = line; }
    let close = -1;
    if (ch === '\'' || ch === '"' || ch === '`') close = source.indexOf(ch, i + 1);
    else if (ch === '$') close = dollarQuoteEnd(source, i);
    if (close > i) { line += countNewlines(source, i, close); i = close; continue; }
    if (ch === ';') { out.push({ text: source.slice(start, i + 1), start: startLine, end: line }); start = -1; }
  }
  if (start >= 0 && source.slice(start).trim()) out.push({ text: source.slice(start), start: startLine, end: line - (source.endsWith('\n') ? 1 : 0) });
  return out;
}

/** The last character of a dollar-quoted body that starts at `i` (`$$ … $$`, `$fn$ … $fn$`), or -1. */
function dollarQuoteEnd(source: string, i: number): number {
  const tag = /^\$\w*\$/.exec(source.slice(i, i + 64))?.[0];
  if (!tag) return -1;
  const j = source.indexOf(tag, i + tag.length);
  return j < 0 ? -1 : j + tag.length - 1;
}

function countNewlines(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to && i < s.length; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
}

/** Two sections with one name (a heading used twice, a key in two YAML documents) get `~2`, `~3`: chunk keys are unique in a file. */
function uniquePaths(owners: ChunkOwner[]): ChunkOwner[] {
  const seen = new Map<string, number>();
  return owners.map(o => {
    const n = (seen.get(o.path) ?? 0) + 1; seen.set(o.path, n);
    return n === 1 ? o : { ...o, path: `${o.path}~${n}` };
  });
}
