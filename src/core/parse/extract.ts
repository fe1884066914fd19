/**
 * Turns one source file into definitions, occurrences and chunks. Pure over (language, text):
 * it runs the same in a worker thread, the main thread and tests.
 *
 * Broken syntax is normal input: tree-sitter recovers, we count the error nodes and go on. A tree with
 * errors first gets the language's source repairs (parse/repair.ts: known grammar gaps, fixed in place
 * so positions stay exact); the repaired tree is kept only when it has fewer errors. Keyword
 * declarations left inside error regions are reported (`lost_declarations`), so a file whose
 * declarations went missing says so.
 */
import type { Node } from 'web-tree-sitter';
import type { DefinitionKind, LanguageId, LanguageSpec } from '../languages/types';
import { CONTAINER_KINDS, DEFINITION_KINDS } from '../languages/types';
import { LANGUAGES, type FileLanguage } from '../languages';
import { loadLanguage } from './treesitter';
import { repairSource } from './repair';
import { argumentOccurrence } from './arguments';
import { spanOf, type Span } from './span';
import { buildChunks, topLevelOnly, LIMITS, type Chunk, type ChunkOwner } from './chunks';
import { scriptBlocksOnly } from './embedded';
import { callMember, calleeText, syntaxMember } from './syntax-members';

import { BASE_KINDS, OCCURRENCE_CAPTURES, SYNTAX_SOURCE, type Occurrence, type OccurrenceKind } from './occurrence';

export type { Occurrence, OccurrenceKind } from './occurrence';

export interface Definition {
  kind: DefinitionKind;
  name: string;
  symbol_path: string;
  parent_path: string | null;
  start_line: number; // 1-based
  start_col: number; // 0-based
  end_line: number;
  end_col: number;
}

export type { Chunk } from './chunks';

export interface LostDeclaration { name: string; line: number }

export interface Extraction {
  language: FileLanguage;
  line_count: number;
  syntax_errors: number;
  /** keyword declarations (`interface Foo`, `def run`, …) inside error regions that no definition covers */
  lost_declarations: LostDeclaration[];
  /** the tree came from a repaired copy of the source (same length and positions; see parse/repair.ts) */
  repaired: boolean;
  definitions: Definition[];
  occurrences: Occurrence[];
  chunks: Chunk[];
}

export { LIMITS } from './chunks';

const CHUNK_KINDS = new Set<DefinitionKind>(['function', 'method', 'class', 'interface', 'struct', 'enum', 'trait', 'type', 'module']);
const KIND_SET = new Set<string>(DEFINITION_KINDS);

interface RawDef {
  kind: DefinitionKind;
  node: Span;
  name: string;
  nameStart: number;
  receiverType: string | null;
  parent: RawDef | null;
  basePath: string;
  path: string;
}

function cleanName(text: string): string {
  return text.replace(/^['"`]|['"`]$/g, '').trim();
}

function stripQuotes(text: string): string {
  const t = text.trim();
  if (t.length >= 2 && /^['"`<]/.test(t) && /['"`>]$/.test(t)) return t.slice(1, -1);
  return t;
}

/** The right operand of a binary `a or b` that begins on the line where `a` ends (not an `x ||= make` assignment). */
const sharesLineWithLeft = (n: Node): boolean => {
  const left = n.parent && !/assignment/.test(n.parent.type) ? n.parent.childForFieldName('left') : null;
  return !!left && left.endPosition.row >= n.startPosition.row;
};

/** Whether a name is (part of) a decorator's expression: `@property`, `@pytest.fixture`. */
const inDecorator = (n: Node) => n.parent?.type === 'decorator' || n.parent?.parent?.type === 'decorator';

export async function extractSource(language: LanguageId, source: string): Promise<Extraction> {
  const { parser, query } = await loadLanguage(language);
  const spec: LanguageSpec = LANGUAGES[language];
  const deadline = Date.now() + LIMITS.maxParseMillis;
  const parse = (text: string) => parser.parse(text, null, { progressCallback: () => Date.now() > deadline ? true : undefined } as never);
  let tree = parse(spec.scriptBlocks ? scriptBlocksOnly(source) : source);
  const lines = source.split('\n');
  const lineCount = source.length === 0 ? 0 : (source.endsWith('\n') ? lines.length - 1 : lines.length);
  if (!tree) {
    // Parsing was cancelled (pathological input): the file is still searchable as top-level text.
    return { language, line_count: lineCount, syntax_errors: 1, lost_declarations: declarationLines(lines, lineCount, spec.declarationLine),
      repaired: false, definitions: [], occurrences: [], chunks: topLevelOnly(lines, lineCount) };
  }
  try {
    let syntaxErrors = tree.rootNode.hasError ? countErrors(tree.rootNode) : 0;
    let repaired = false;
    for (const id of syntaxErrors ? spec.repairs ?? [] : []) {
      const fixed = repairSource(id, tree.rootNode, source);
      const next = fixed === null ? null : parse(fixed);
      if (!next) continue;
      const errors = next.rootNode.hasError ? countErrors(next.rootNode) : 0;
      if (errors < syntaxErrors) { tree.delete(); tree = next; syntaxErrors = errors; repaired = true; } else next.delete();
    }
    const root = tree.rootNode;
    // Node text is always read from the original source: a repaired tree was parsed from a copy.
    const textOf = (n: Node) => source.slice(n.startIndex, n.endIndex);
    const matches = query.matches(root);

    const defs: RawDef[] = [];
    const seenDefNodes = new Set<number>();
    const claimed = new Set<number>(); // start indices of name nodes already recorded
    type Pending = { kind: OccurrenceKind; node: Node; name: string; receiver: string | null; source: string | null; alias: string | null };
    const pending: Pending[] = [];
    // member reads (`result.output`): the member name's start → the object read from (@member.object)
    const memberObjects = new Map<number, Node>();

    for (const m of matches) {
      const handed = argumentOccurrence(m.captures, textOf);
      if (handed !== undefined) { if (handed) pending.push(handed); continue; }
      let defNode: Node | null = null; let defKind: string | null = null;
      let nameNode: Node | null = null; let receiver: Node | null = null; let receiverType: Node | null = null;
      let refKind: OccurrenceKind | null = null; let refNode: Node | null = null;
      let importSource: Node | null = null; let importName: Node | null = null; let importAlias: Node | null = null;
      let assignTarget: Node | null = null; let assignValue: Node | null = null; let assignType: Node | null = null; let assignCopy: Node | null = null;
      let memberName: Node | null = null; let memberObject: Node | null = null; let protocol: Node | null = null; let syntax = '';
      for (const c of m.captures) {
        const n = c.name;
        if (n.startsWith('definition.')) { defNode = c.node; defKind = n.slice(11); }
        else if (n === 'name') nameNode = c.node;
        else if (n === 'receiver') receiver = c.node;
        else if (n === 'receiver_type') receiverType = c.node;
        else if (OCCURRENCE_CAPTURES.has(n)) { refKind = n.slice(10) as OccurrenceKind; refNode = c.node; }
        else if (n === 'import.source') importSource = c.node;
        else if (n === 'import.name') importName = c.node;
        else if (n === 'import.alias') importAlias = c.node;
        else if (n === 'assign.target') assignTarget = c.node;
        else if (n === 'assign.value') assignValue = c.node;
        else if (n === 'assign.type') assignType = c.node;
        else if (n === 'assign.copy') assignCopy = c.node;
        else if (n === 'member.name') memberName = c.node;
        else if (n === 'member.object') memberObject = c.node;
        else if (n === 'reference.subscript' || n === 'reference.protocol' || n === 'reference.by_prefix') { protocol = c.node; syntax = n; }
      }
      if (defNode && defKind && KIND_SET.has(defKind)) {
        if (seenDefNodes.has(defNode.startIndex * 31 + defNode.endIndex)) continue;
        const name = cleanName(textOf(nameNode ?? defNode).split('\n')[0]!.slice(0, 200));
        if (!name) continue;
        seenDefNodes.add(defNode.startIndex * 31 + defNode.endIndex);
        if (nameNode) claimed.add(nameNode.startIndex);
        defs.push({ kind: defKind as DefinitionKind, node: spanOf(defNode, spec.detachedBody), name, nameStart: nameNode?.startIndex ?? -1,
          receiverType: receiverType ? cleanName(textOf(receiverType)) : null, parent: null, basePath: '', path: '' });
        continue;
      }
      if (memberName && memberObject) { memberObjects.set(memberName.startIndex, memberObject); continue; }
      if (protocol && receiver) {
        const name = syntaxMember(spec, syntax, protocol, nameNode ? textOf(nameNode) : null);
        // source 'syntax': the member is run by syntax, not named by the code (bound only on a known receiver type)
        const source = syntax === 'reference.by_prefix' ? null : SYNTAX_SOURCE;
        const text = textOf(receiver).slice(0, 200);
        for (const member of name?.split(' ') ?? []) pending.push({ kind: 'call', node: protocol, name: member, receiver: text, source, alias: null });
        continue;
      }
      if (!refKind || !refNode) continue;
      if (refKind === 'import') {
        const src = importSource ? stripQuotes(textOf(importSource)) : null;
        const setName = (m as { setProperties?: Record<string, string | null> }).setProperties?.['import.name'] ?? null;
        const nm = importName ? textOf(importName) : setName ?? (importAlias ? textOf(importAlias) : src ?? textOf(refNode));
        if (importName) claimed.add(importName.startIndex);
        if (importAlias) claimed.add(importAlias.startIndex);
        // `from .core import Argument as Argument` (an explicit re-export) renames nothing: no alias
        const alias = importAlias && !(importName && textOf(importAlias) === textOf(importName)) ? textOf(importAlias) : null;
        pending.push({ kind: 'import', node: refNode, name: cleanName(nm).slice(0, 200), receiver: null, source: src, alias });
        continue;
      }
      if (refKind === 'enters') {
        // with x: / with make() as y: the object entered (its text), or the callee that made it
        pending.push({ kind: 'enters', node: refNode, name: assignTarget ? textOf(assignTarget).slice(0, 200) : '',
          receiver: assignValue ? textOf(assignValue).slice(0, 200) : null, source: null, alias: null });
        continue;
      }
      if (refKind === 'error_path' || refKind === 'memo') {
        // code that runs only on an error (a handler, a raise) or while a value is unset, from its first part (a
        // Ruby `then` begins on the condition's line) through its last line; a fallback (`a or b`) only when it
        // begins on a line of its own (guards are kept by line: `a` would be guarded too)
        if (refKind === 'memo' && sharesLineWithLeft(refNode)) continue;
        const first = refNode.firstNamedChild ?? refNode;
        pending.push({ kind: refKind, node: first, name: '', receiver: null, source: String(refNode.endPosition.row + 1), alias: null });
        continue;
      }
      if (refKind === 'yields' || refKind === 'self_block') {
        // a generator's scope; a block run with `receiver` as self, through its last line
        const self = refKind === 'self_block' && receiver ? textOf(receiver).slice(0, 200) : null;
        const last = self ? String(refNode.endPosition.row + 1) : null;
        if (refKind === 'yields' || self) pending.push({ kind: refKind, node: refNode, name: '', receiver: self, source: last, alias: null });
        continue;
      }
      if (refKind === 'result_call' || refKind === 'returns_call') {
        // make(…)(x) / @make(…): the inner callee, whose returned closure runs; return make(…): what it hands out
        const callee = assignValue ? calleeText(assignValue, textOf).slice(0, 200) : null;
        if (callee) pending.push({ kind: refKind, node: refNode, name: '', receiver: callee, source: null, alias: null });
        continue;
      }
      if (refKind === 'assign' || refKind === 'returns') {
        // types that flow: nothing is claimed (the names stay identifiers of their scope)
        const name = refKind === 'assign' ? assignTarget : nameNode;
        if (!name || (refKind === 'assign' && !assignValue && !assignType && !assignCopy)) continue;
        pending.push({ kind: refKind, node: refKind === 'assign' ? name : refNode, name: textOf(name).slice(0, 200),
          receiver: assignValue ? calleeText(assignValue, textOf).slice(0, 200) : null, source: assignCopy ? textOf(assignCopy).slice(0, 200) : null,
          alias: assignType ? cleanName(textOf(assignType)).slice(0, 200) : null });
        continue;
      }
      if (refKind === 'call') {
        const target = nameNode ?? refNode;
        claimed.add(target.startIndex);
        if (receiver && target.type === 'simple_symbol') {
          // Ruby `list.map(&:name)`: `name` is called on each element of the list (a receiver no flow types)
          const elements = `${textOf(receiver).slice(0, 190)}[…]`;
          pending.push({ kind: 'call', node: target, name: textOf(target).slice(1, 200), receiver: elements, source: null, alias: null });
          continue;
        }
        const name = callMember(spec, refNode, cleanName(textOf(target)).slice(0, 200));
        pending.push({ kind: 'call', node: target, name, receiver: receiver ? textOf(receiver).slice(0, 200) : null, source: null, alias: null });
        continue;
      }
      const target = nameNode ?? refNode;
      if (refKind !== 'identifier') claimed.add(target.startIndex);
      // An identifier's text is read only if it survives (most are claimed by a call, import or definition).
      // a base named through its namespace (Ruby `include Rake::TaskManager`): the qualifier is its receiver
      const qualifier = receiver && BASE_KINDS.has(refKind) ? textOf(receiver).slice(0, 200) : null;
      const name = refKind === 'identifier' ? '' : textOf(target).slice(0, 200);
      pending.push({ kind: refKind, node: target, name, receiver: qualifier, source: null, alias: null });
    }

    // Nesting: sort by start asc, end desc, and keep a stack of open definitions.
    defs.sort((a, b) => a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex);
    const stack: RawDef[] = [];
    const used = new Map<string, number>();
    for (const d of defs) {
      while (stack.length && stack[stack.length - 1]!.node.endIndex <= d.node.startIndex) stack.pop();
      const parent = stack.length ? stack[stack.length - 1]! : null;
      d.parent = parent;
      if (d.kind === 'function' && parent && CONTAINER_KINDS.has(parent.kind)) d.kind = 'method';
      if (d.receiverType && (!parent || !CONTAINER_KINDS.has(parent.kind) || parent.kind === 'module')) {
        // Out-of-body methods (Go receivers, C++ `Foo::run`): the receiver type names the owner.
        d.basePath = parent ? `${parent.basePath}.${d.receiverType}.${d.name}` : `${d.receiverType}.${d.name}`;
        if (d.kind === 'function') d.kind = 'method';
      } else d.basePath = parent ? `${parent.basePath}.${d.name}` : d.name;
      const n = (used.get(d.basePath) ?? 0) + 1;
      used.set(d.basePath, n);
      d.path = n === 1 ? d.basePath : `${d.basePath}~${n}`;
      stack.push(d);
    }

    const definitions: Definition[] = defs.map(d => ({
      kind: d.kind, name: d.name, symbol_path: d.path, parent_path: d.parent ? d.parent.path : null,
      start_line: d.node.startPosition.row + 1, start_col: d.node.startPosition.column,
      end_line: d.node.endPosition.row + 1, end_col: d.node.endPosition.column,
    }));

    // Innermost enclosing definition of a byte offset (defs are sorted; binary search + parent walk).
    const scopeOf = (index: number): string | null => {
      let lo = 0, hi = defs.length - 1, best = -1;
      while (lo <= hi) { const mid = (lo + hi) >> 1; if (defs[mid]!.node.startIndex <= index) { best = mid; lo = mid + 1; } else hi = mid - 1; }
      for (let d: RawDef | null = best >= 0 ? defs[best]! : null; d; d = d.parent) if (d.node.endIndex > index) return d.path;
      return null;
    };

    const occurrences: Occurrence[] = [];
    const identSeen = new Set<string>();
    let identifiers = 0;
    for (const p of pending) {
      if (p.kind === 'identifier') {
        if (claimed.has(p.node.startIndex)) continue;
        if (identifiers >= LIMITS.maxIdentifiersPerFile) continue;
        const scope = scopeOf(p.node.startIndex);
        const name = textOf(p.node).slice(0, 200);
        const object = memberObjects.get(p.node.startIndex);
        const receiver = object ? textOf(object).slice(0, 200) : null;
        const key = `${scope ?? ''}\u0000${name}\u0000${receiver ?? ''}`;
        // each decorator tells of its own definition; each Ruby bare name may be a call (in its own block)
        if (identSeen.has(key) && !inDecorator(p.node) && !spec.graph?.bareCalls) continue;
        identSeen.add(key); identifiers++;
        const at = p.node.startPosition;
        occurrences.push({ kind: 'identifier', name, line: at.row + 1, col: at.column, scope, receiver, source: null, alias: null });
        continue;
      }
      const at = p.node.startPosition;
      occurrences.push({ kind: p.kind, name: p.name, line: at.row + 1, col: at.column,
        scope: scopeOf(p.node.startIndex), receiver: p.receiver, source: p.source, alias: p.alias });
    }

    const chunks = buildChunks(chunkOwners(defs, lineCount), lines, lineCount);
    const lost = syntaxErrors ? lostDeclarations(root, lines, definitions, spec.declarationLine) : [];
    return { language, line_count: lineCount, syntax_errors: syntaxErrors, lost_declarations: lost, repaired, definitions, occurrences, chunks };
  } finally {
    tree.delete();
  }
}

function countErrors(root: Node): number {
  let count = 0;
  const cursor = root.walk();
  try {
    let more = true;
    while (more) {
      const n = cursor.currentNode;
      if (n.isError || n.isMissing) count++;
      if (n.hasError && cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) { if (!cursor.gotoParent()) { more = false; break; } }
    }
  } finally { cursor.delete(); }
  return count;
}

/** Leaves whose text is not code: a declaration keyword found there declares nothing. */
const NOT_CODE = /comment|string_fragment|string_content|template_chars|heredoc|escape_sequence|^string$|regex/;

/**
 * Keyword declarations (the language's `declarationLine`) on lines inside error nodes that no extracted
 * definition starts on or covers under the same name: what the error recovery swallowed.
 */
function lostDeclarations(root: Node, lines: string[], definitions: Definition[], pattern: RegExp): LostDeclaration[] {
  const regions: [number, number][] = []; // 0-based rows of the outermost error nodes
  const cursor = root.walk();
  try {
    let more = true;
    while (more) {
      const n = cursor.currentNode;
      if (n.isError) {
        const r = [n.startPosition.row, n.endPosition.row] as [number, number];
        const last = regions[regions.length - 1];
        if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]); else regions.push(r);
      } else if (n.hasError && cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) { if (!cursor.gotoParent()) { more = false; break; } }
    }
  } finally { cursor.delete(); }
  if (!regions.length) return [];
  const startsOn = new Set(definitions.map(d => d.start_line));
  const out: LostDeclaration[] = [];
  let offset = 0; let row = 0; // running offset of line `row`
  for (const [from, to] of regions) {
    for (; row < from; row++) offset += lines[row]!.length + 1;
    for (; row <= to && row < lines.length; offset += lines[row]!.length + 1, row++) {
      const m = pattern.exec(lines[row]!);
      if (!m) continue;
      const name = m.slice(1).find(g => g !== undefined);
      const line = row + 1;
      if (!name || startsOn.has(line)) continue;
      if (definitions.some(d => d.name === name && d.start_line <= line && line <= d.end_line)) continue;
      const at = offset + lines[row]!.search(/\S/);
      const leaf = root.descendantForIndex(at, at + 1);
      if (leaf && NOT_CODE.test(leaf.type)) continue;
      out.push({ name, line });
    }
  }
  return out;
}

/** Every keyword declaration of a file that could not be parsed at all. */
function declarationLines(lines: string[], lineCount: number, pattern: RegExp): LostDeclaration[] {
  const out: LostDeclaration[] = [];
  for (let i = 0; i < lineCount; i++) {
    const m = pattern.exec(lines[i]!);
    const name = m?.slice(1).find(g => g !== undefined);
    if (name) out.push({ name, line: i + 1 });
  }
  return out;
}

/** The definitions that get a chunk of their own: at top level or directly inside containers, never nested in a function. */
function chunkOwners(defs: RawDef[], lineCount: number): ChunkOwner[] {
  const owners: ChunkOwner[] = [];
  for (const d of defs) {
    if (!CHUNK_KINDS.has(d.kind)) continue;
    let p = d.parent; let nestedInFunction = false;
    for (; p; p = p.parent) if (!CONTAINER_KINDS.has(p.kind)) { nestedInFunction = true; break; }
    if (nestedInFunction) continue;
    owners.push({ path: d.path, kind: d.kind, start: d.node.startPosition.row + 1, end: Math.min(d.node.endPosition.row + 1, lineCount) });
  }
  return owners;
}
