/**
 * SCIP-based providers: `rust-analyzer-scip` (runs `rust-analyzer scip .`), `java-scip` (runs
 * `scip-java index`) and `scip` (an existing index, any language). `--scip FILE` skips the indexer.
 *
 * The index is decoded with protobufjs from the subset of the SCIP schema (scip.proto) written below as a
 * JSON descriptor. Mapping onto the input symbols:
 *   - a definition occurrence (role bit 0x1) at an input symbol's name position (or on its first line with
 *     the same descriptor name) ties that SCIP symbol to the input symbol;
 *   - every other occurrence of a tied symbol inside an input symbol is an edge from the innermost input
 *     symbol around it: `calls` when the occurrence is followed by `(` in the source line (a textual check,
 *     said so in the evidence), else `references`;
 *   - `is_implementation` relationships between tied symbols become `implements` edges (`extends` when
 *     both input symbols are classes or both interfaces/traits: SCIP does not tell the two apart).
 */
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Root } from 'protobufjs/light';
import {
  describeEdge, EdgeSet, findNamePosition, findOnPath, ProviderError, SourceCache, SymbolTable, waitForExit,
  type Deadline, type EdgeKind, type InputSymbol, type ProviderInput, type ProviderOutput,
} from './common';

// ---------------------------------------------------------------- schema subset (sourcegraph/scip scip.proto)

const SCIP_SCHEMA = {
  nested: {
    scip: {
      nested: {
        Index: { fields: {
          metadata: { type: 'Metadata', id: 1 },
          documents: { rule: 'repeated', type: 'Document', id: 2 },
          external_symbols: { rule: 'repeated', type: 'SymbolInformation', id: 3 },
        } },
        Metadata: { fields: {
          version: { type: 'int32', id: 1 },
          tool_info: { type: 'ToolInfo', id: 2 },
          project_root: { type: 'string', id: 3 },
          text_document_encoding: { type: 'int32', id: 4 },
        } },
        ToolInfo: { fields: {
          name: { type: 'string', id: 1 },
          version: { type: 'string', id: 2 },
          arguments: { rule: 'repeated', type: 'string', id: 3 },
        } },
        Document: { fields: {
          relative_path: { type: 'string', id: 1 },
          occurrences: { rule: 'repeated', type: 'Occurrence', id: 2 },
          symbols: { rule: 'repeated', type: 'SymbolInformation', id: 3 },
          language: { type: 'string', id: 4 },
          text: { type: 'string', id: 5 },
          position_encoding: { type: 'int32', id: 6 },
        } },
        SymbolInformation: { fields: {
          symbol: { type: 'string', id: 1 },
          documentation: { rule: 'repeated', type: 'string', id: 3 },
          relationships: { rule: 'repeated', type: 'Relationship', id: 4 },
          kind: { type: 'int32', id: 5 },
          display_name: { type: 'string', id: 6 },
          enclosing_symbol: { type: 'string', id: 8 },
        } },
        Relationship: { fields: {
          symbol: { type: 'string', id: 1 },
          is_reference: { type: 'bool', id: 2 },
          is_implementation: { type: 'bool', id: 3 },
          is_type_definition: { type: 'bool', id: 4 },
          is_definition: { type: 'bool', id: 5 },
        } },
        Occurrence: { fields: {
          range: { rule: 'repeated', type: 'int32', id: 1 },
          symbol: { type: 'string', id: 2 },
          symbol_roles: { type: 'int32', id: 3 },
          syntax_kind: { type: 'int32', id: 5 },
          enclosing_range: { rule: 'repeated', type: 'int32', id: 7 },
        } },
      },
    },
  },
};

export interface ScipRelationship { symbol: string; is_reference: boolean; is_implementation: boolean; is_type_definition: boolean; is_definition: boolean }
export interface ScipSymbolInformation { symbol: string; relationships: ScipRelationship[]; kind: number; display_name: string; enclosing_symbol: string }
export interface ScipOccurrence { range: number[]; symbol: string; symbol_roles: number; enclosing_range: number[] }
export interface ScipDocument { relative_path: string; language: string; occurrences: ScipOccurrence[]; symbols: ScipSymbolInformation[]; text: string; position_encoding: number }
export interface ScipIndex {
  metadata: { version: number; tool_info: { name: string; version: string; arguments: string[] } | null; project_root: string; text_document_encoding: number } | null;
  documents: ScipDocument[];
  external_symbols: ScipSymbolInformation[];
}

export const SYMBOL_ROLE_DEFINITION = 0x1;
export const SYMBOL_ROLE_IMPORT = 0x2;
/** Document.position_encoding: 1 = UTF-8 code units, 2 = UTF-16, 3 = UTF-32 (0 = unspecified). */
const ENCODING_UTF8 = 1; const ENCODING_UTF32 = 3;

let indexType: ReturnType<Root['lookupType']> | undefined;

/** Decodes an `index.scip` file (protobuf `scip.Index`). */
export function parseScipIndex(bytes: Uint8Array): ScipIndex {
  indexType ??= Root.fromJSON(SCIP_SCHEMA).lookupType('scip.Index');
  let message;
  try { message = indexType.decode(bytes); } catch (e) { throw new ProviderError(`not a SCIP index (protobuf scip.Index): ${(e as Error).message}`); }
  const o = indexType.toObject(message, { defaults: true, arrays: true, longs: Number, enums: Number }) as ScipIndex;
  if (!o.metadata) o.metadata = null;
  return o;
}

/** [startLine, startChar, endLine, endChar], 0-based, from SCIP's 3- or 4-element range. */
export function scipRange(range: number[]): [number, number, number, number] | undefined {
  if (range.length === 3) return [range[0]!, range[1]!, range[0]!, range[2]!];
  if (range.length === 4) return [range[0]!, range[1]!, range[2]!, range[3]!];
  return undefined;
}

export interface ScipDescriptor { name: string; suffix: 'namespace' | 'type' | 'term' | 'method' | 'type-parameter' | 'parameter' | 'meta' | 'macro'; disambiguator?: string }

/** Parses a SCIP symbol string: `local N`, or `scheme manager name version descriptors…`. */
export function parseScipSymbol(symbol: string): { local: boolean; scheme: string; package: string[]; descriptors: ScipDescriptor[] } {
  if (symbol.startsWith('local ')) return { local: true, scheme: 'local', package: [], descriptors: [] };
  // Scheme and package fields are separated by single spaces; a double space is an escaped space.
  const fields: string[] = [];
  let i = 0; let cur = '';
  while (i < symbol.length && fields.length < 4) {
    const c = symbol[i]!;
    if (c === ' ') {
      if (symbol[i + 1] === ' ') { cur += ' '; i += 2; continue; }
      fields.push(cur); cur = ''; i++; continue;
    }
    cur += c; i++;
  }
  const rest = symbol.slice(i);
  const descriptors: ScipDescriptor[] = [];
  let j = 0;
  const readName = (): string => {
    if (rest[j] === '`') {
      let name = ''; j++;
      while (j < rest.length) {
        if (rest[j] === '`') { if (rest[j + 1] === '`') { name += '`'; j += 2; continue; } j++; break; }
        name += rest[j]; j++;
      }
      return name;
    }
    const start = j;
    while (j < rest.length && /[\w+\-$]/.test(rest[j]!)) j++;
    return rest.slice(start, j);
  };
  while (j < rest.length) {
    if (rest[j] === '[') { j++; const name = readName(); j++; descriptors.push({ name, suffix: 'type-parameter' }); continue; }
    if (rest[j] === '(') { j++; const name = readName(); j++; descriptors.push({ name, suffix: 'parameter' }); continue; }
    const name = readName();
    const c = rest[j];
    if (c === '/') { descriptors.push({ name, suffix: 'namespace' }); j++; }
    else if (c === '#') { descriptors.push({ name, suffix: 'type' }); j++; }
    else if (c === '.') { descriptors.push({ name, suffix: 'term' }); j++; }
    else if (c === ':') { descriptors.push({ name, suffix: 'meta' }); j++; }
    else if (c === '!') { descriptors.push({ name, suffix: 'macro' }); j++; }
    else if (c === '(') {
      j++; const close = rest.indexOf(').', j);
      const disambiguator = close >= 0 ? rest.slice(j, close) : '';
      j = close >= 0 ? close + 2 : rest.length;
      descriptors.push({ name, suffix: 'method', disambiguator });
    } else break; // malformed: stop here
  }
  return { local: false, scheme: fields[0] ?? '', package: fields.slice(1), descriptors };
}

/** The name a SCIP symbol defines (its last descriptor's name; `<constructor>` → `constructor`). */
export function scipSymbolName(symbol: string): string | undefined {
  const d = parseScipSymbol(symbol).descriptors;
  const last = d[d.length - 1];
  if (!last) return undefined;
  return last.name.replace(/^<(.*)>$/, '$1');
}

/** Column of a UTF-8 / UTF-32 offset in UTF-16 code units on `line`. */
function toUtf16(line: string, offset: number, encoding: number): number {
  if (encoding === ENCODING_UTF8) {
    const bytes = Buffer.from(line, 'utf8');
    return bytes.subarray(0, Math.min(offset, bytes.length)).toString('utf8').length;
  }
  if (encoding === ENCODING_UTF32) return [...line].slice(0, offset).join('').length;
  return offset;
}

export interface ScipMapResult { edges: ReturnType<EdgeSet['list']>; diagnostics: string[] }

/** Maps a decoded SCIP index onto the input symbols. */
export function mapScipIndex(index: ScipIndex, input: ProviderInput, label?: string): ScipMapResult {
  const tool = index.metadata?.tool_info;
  const toolName = label ?? (tool?.name ? `${tool.name}${tool.version ? ` ${tool.version}` : ''}` : 'SCIP indexer');
  const diagnostics: string[] = [`SCIP index from ${toolName}: ${index.documents.length} documents`];
  const repo = input.repo;
  const table = new SymbolTable(input.symbols);
  const sources = new SourceCache(repo);
  const edges = new EdgeSet();

  // Document paths are relative to the index's project root; make them relative to the repo.
  let projectRoot = repo;
  const rootUri = index.metadata?.project_root;
  if (rootUri) {
    try { projectRoot = rootUri.startsWith('file:') ? fileURLToPath(rootUri) : resolve(rootUri); } catch { /* keep repo */ }
  }
  const repoRel = (docPath: string): string => {
    const rel = relative(repo, resolve(projectRoot, docPath)).split(sep).join('/');
    return rel.startsWith('../') ? docPath : rel;
  };

  // Name positions of the input symbols: path → "line:col" → symbol.
  const namePositions = new Map<string, Map<string, InputSymbol>>();
  for (const [path, list] of table.byPath) {
    const m = new Map<string, InputSymbol>();
    for (const s of list) {
      const at = findNamePosition(sources, s);
      if (at) m.set(`${at.line}:${at.col}`, s);
    }
    namePositions.set(path, m);
  }

  // Pass 1: definitions → input symbols.
  const tied = new Map<string, InputSymbol>();
  const docs = index.documents.map(doc => ({ doc, path: repoRel(doc.relative_path) }));
  const lineOf = (doc: ScipDocument, path: string, line0: number): string => {
    if (doc.text) return doc.text.split(/\r?\n/)[line0] ?? '';
    return sources.line(path, line0 + 1);
  };
  const keyOf = (doc: { path: string }, symbol: string) => (symbol.startsWith('local ') ? `${doc.path}\u0000${symbol}` : symbol);
  for (const d of docs) {
    const names = namePositions.get(d.path);
    if (!names) continue;
    for (const occ of d.doc.occurrences) {
      if (!(occ.symbol_roles & SYMBOL_ROLE_DEFINITION) || !occ.symbol) continue;
      const r = scipRange(occ.range);
      if (!r) continue;
      const col = toUtf16(lineOf(d.doc, d.path, r[0]), r[1], d.doc.position_encoding);
      let s = names.get(`${r[0] + 1}:${col}`);
      if (!s) {
        const name = occ.symbol.startsWith('local ') ? undefined : scipSymbolName(occ.symbol);
        s = name === undefined ? undefined : (table.byPath.get(d.path) ?? []).find(x => x.name === name && x.start_line === r[0] + 1);
      }
      if (s && !tied.has(keyOf(d, occ.symbol))) tied.set(keyOf(d, occ.symbol), s);
    }
  }

  // Pass 2: references.
  let refs = 0; let outside = 0; let untied = 0;
  for (const d of docs) {
    if (!table.byPath.has(d.path)) continue;
    for (const occ of d.doc.occurrences) {
      if (occ.symbol_roles & SYMBOL_ROLE_DEFINITION || !occ.symbol) continue;
      const r = scipRange(occ.range);
      if (!r) continue;
      const to = tied.get(keyOf(d, occ.symbol));
      if (!to) { untied++; continue; }
      const text = lineOf(d.doc, d.path, r[0]);
      const col = toUtf16(text, r[1], d.doc.position_encoding);
      const from = table.innermost(d.path, r[0] + 1, col);
      if (!from) { outside++; continue; }
      refs++;
      const endText = r[2] === r[0] ? text : lineOf(d.doc, d.path, r[2]);
      const endCol = toUtf16(endText, r[3], d.doc.position_encoding);
      const isCall = /^\s*(<[^()]*>)?\s*\(/.test(endText.slice(endCol));
      const kind: EdgeKind = isCall ? 'calls' : 'references';
      edges.add(from, to, kind, `SCIP index (${toolName}): ${describeEdge(from, kind, to, d.path, r[0] + 1)}${isCall ? " (call: the reference is followed by '(' in the source line)" : ''}`);
    }
  }

  // Pass 3: implementation relationships.
  let impl = 0;
  for (const d of docs) {
    for (const si of d.doc.symbols) {
      const from = tied.get(keyOf(d, si.symbol));
      if (!from) continue;
      for (const rel of si.relationships) {
        if (!rel.is_implementation) continue;
        const to = tied.get(rel.symbol);
        if (!to || to === from) continue;
        const kind: EdgeKind = sameFamily(from.kind, to.kind) ? 'extends' : 'implements';
        if (edges.add(from, to, kind, `SCIP index (${toolName}): ${from.symbol_path} ${kind} ${to.symbol_path} (is_implementation relationship at ${from.path}:${from.start_line})`)) impl++;
      }
    }
  }
  diagnostics.push(`${tied.size} SCIP symbols tied to input symbols; ${refs} references inside input symbols, ${outside} at top level or outside any symbol, ${untied} to symbols outside the input; ${impl} implementation relationships; ${edges.size} edges`);
  return { edges: edges.list(), diagnostics };
}

function sameFamily(a: string, b: string): boolean {
  const typeLike = (k: string) => (k === 'interface' || k === 'trait' ? 'interface' : k === 'class' || k === 'struct' ? 'class' : k);
  return (typeLike(a) === 'class' && typeLike(b) === 'class') || (typeLike(a) === 'interface' && typeLike(b) === 'interface');
}

// ---------------------------------------------------------------- running the indexers

const INDEXERS = {
  'rust-analyzer-scip': { command: 'rust-analyzer', args: (out: string) => ['scip', '.', '--output', out], install: 'rustup component add rust-analyzer' },
  'java-scip': { command: 'scip-java', args: (out: string) => ['index', '--output', out], install: 'see https://sourcegraph.github.io/scip-java/' },
} as const;

export interface ScipOptions { indexer?: keyof typeof INDEXERS; scipFile?: string }

export async function runScipProvider(input: ProviderInput, deadline: Deadline, options: ScipOptions): Promise<ProviderOutput> {
  const diagnostics: string[] = [];
  let bytes: Uint8Array;
  if (options.scipFile) {
    const file = resolve(options.scipFile);
    try { bytes = readFileSync(file); } catch (e) { throw new ProviderError(`cannot read --scip ${file}: ${(e as Error).message}`); }
    diagnostics.push(`SCIP index ${file} (indexer not run)`);
  } else {
    const spec = INDEXERS[options.indexer!];
    const exe = findOnPath(spec.command);
    if (!exe) throw new ProviderError(`${spec.command} not found on PATH (install it: ${spec.install}; or pass --scip FILE with an existing index)`);
    const dir = mkdtempSync(join(tmpdir(), 'sightline-scip-'));
    const out = join(dir, 'index.scip');
    try {
      const args = spec.args(out);
      const started = Date.now();
      const child = deadline.spawn(exe, args, { cwd: input.repo, stdio: ['ignore', 'pipe', 'pipe'] });
      const r = await deadline.race(waitForExit(child));
      if (r.code !== 0) {
        const lines = (r.stderr || r.stdout).trim().split('\n');
        const tail = (lines.length > 12 ? [...lines.slice(0, 6), '…', ...lines.slice(-5)] : lines).join('\n');
        throw new ProviderError(`${spec.command} ${args.join(' ')} failed (${r.signal ?? `exit ${r.code}`})${tail ? `:\n${tail}` : ''}`);
      }
      const produced = existsSync(out) ? out : join(input.repo, 'index.scip');
      if (!existsSync(produced)) throw new ProviderError(`${spec.command} finished but wrote no index.scip`);
      bytes = readFileSync(produced);
      diagnostics.push(`${spec.command} command ${exe} ${args.join(' ')} (${Date.now() - started} ms)`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  deadline.check();
  const index = parseScipIndex(bytes);
  const mapped = mapScipIndex(index, input);
  return { edges: mapped.edges, diagnostics: [...diagnostics, ...mapped.diagnostics] };
}
