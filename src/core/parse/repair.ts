/**
 * Workarounds for known grammar gaps. A repair runs only on a tree that has errors: it rewrites a few
 * characters of the source *in place* (same length, so every byte offset, line and column of the
 * repaired parse is the original's), and the caller keeps the repaired tree only when it has fewer
 * error nodes than the first one. A file that parses cleanly never reaches this code.
 *
 * `typeMemberSeparators` (TypeScript, TSX): tree-sitter-typescript inserts no automatic semicolon
 * before a line that starts with `<`, so an interface or object type whose members are generic call
 * signatures without `;` fails:
 *
 *     interface Route<E> {
 *       <P extends string>(path: P): Route<E>
 *       <P extends string, R>(path: P, r: R): Route<E>    ← error; everything after may be lost
 *     }
 *
 * The repair turns the whitespace character just before such a `<` (an indentation space or tab,
 * else a trailing space or `\r` of the line before) into `;`, when the line before ends a member (an
 * identifier, a keyword type, `)`, `]`, `}`, `>`, a closing quote; not `=>`, `,`, `|`, `:` …) and the
 * `<` sits in an error region or in a body that has errors. The text a tree node covers is always
 * read from the original source, never from the repaired copy.
 *
 * `constructorOnNextLine` (Kotlin): tree-sitter-kotlin cannot read a primary constructor that starts
 * on the line after the class name, and the whole class becomes an error:
 *
 *     public class Options
 *     private constructor(            ← error; the class and everything in it is lost
 *       internal val strings: Array<out String>,
 *     ) { … }
 *
 * The repair moves the `(` to the end of the class line and blanks what stood between (the line
 * break moves by one byte; every line keeps its number): `public class Options(⏎` and a line of
 * spaces. The constructor's modifiers are not read; nothing Sightline extracts depends on them.
 */
import type { Node } from 'web-tree-sitter';
import type { RepairId } from '../languages/types';

/** Tokens that end a type member, so that a following line starting with `<` starts a new one. */
const MEMBER_END = new Set([')', ']', '}', '>', '>>', '>>>', '"', "'", '`']);
/** Words after which a type or an expression goes on (a `<` on the next line continues it). */
const CONTINUES = new Set(['extends', 'keyof', 'typeof', 'infer', 'new', 'in', 'is', 'as', 'satisfies', 'readonly',
  'unique', 'asserts', 'return', 'yield', 'await', 'export', 'default', 'declare', 'import', 'from', 'type',
  'interface', 'class', 'function', 'const', 'let', 'var', 'abstract', 'implements', 'case', 'else', 'do',
  'throw', 'delete', 'out', 'accessor', 'static', 'public', 'private', 'protected', 'override', 'get', 'set']);
/** Bodies whose own error flag decides whether a `<` inside them needs looking at. */
const BODIES = new Set(['program', 'statement_block', 'interface_body', 'object_type', 'class_body']);
const JSX = new Set(['jsx_element', 'jsx_self_closing_element', 'jsx_fragment', 'jsx_expression']);
const LINE_START_ANGLE = /\n[ \t]*<\s*[A-Za-z_$]/g;

/** The repaired source (same length as `source`), or null when nothing applies. */
export function repairSource(id: RepairId, root: Node, source: string): string | null {
  if (id === 'typeMemberSeparators') return typeMemberSeparators(root, source);
  if (id === 'constructorOnNextLine') return constructorOnNextLine(source);
  return null;
}

/** `class Name<T>` at the end of a line, then a line of modifiers or annotations and `constructor(`. */
const CONSTRUCTOR_NEXT_LINE = /\bclass[ \t]+[A-Za-z_]\w*(?:[ \t]*<[^<>\n]*(?:<[^<>\n]*>[^<>\n]*)*>)?[ \t]*(\r?\n[ \t]*(?:(?:@[\w.]+(?:\([^()\n]*\))?|public|private|protected|internal)[ \t]+)*constructor[ \t]*\()/g;

function constructorOnNextLine(source: string): string | null {
  let out: string | null = null;
  CONSTRUCTOR_NEXT_LINE.lastIndex = 0;
  for (let m = CONSTRUCTOR_NEXT_LINE.exec(source); m; m = CONSTRUCTOR_NEXT_LINE.exec(source)) {
    const gap = m[1]!; // from the line break to the `(`, inclusive
    const start = m.index + m[0].length - gap.length;
    const eol = gap.startsWith('\r') ? '\r\n' : '\n';
    const moved = `(${eol}${' '.repeat(gap.length - 1 - eol.length)}`;
    out = (out ?? source).slice(0, start) + moved + (out ?? source).slice(start + gap.length);
  }
  return out;
}

function typeMemberSeparators(root: Node, source: string): string | null {
  const at: number[] = [];
  LINE_START_ANGLE.lastIndex = 0;
  for (let m = LINE_START_ANGLE.exec(source); m; m = LINE_START_ANGLE.exec(source)) {
    const lt = m.index + m[0].indexOf('<');
    const leaf = root.descendantForIndex(lt, lt + 1);
    if (!leaf || leaf.type !== '<' || leaf.startIndex !== lt) continue; // in a comment, a string, a template …
    if (!inTroubledBody(leaf)) continue;
    const prev = previousToken(root, source, lt);
    if (!prev) continue;
    const text = source.slice(prev.startIndex, prev.endIndex);
    if (!MEMBER_END.has(prev.type) && !(/^[\w$]+$/.test(text) && !CONTINUES.has(text))) continue;
    // The whitespace character nearest to the `<` between the two members becomes the separator.
    let spot = -1;
    for (let i = lt - 1; i >= prev.endIndex; i--) {
      const c = source.charCodeAt(i);
      if (c === 32 || c === 9 || c === 13) { spot = i; break; }
    }
    if (spot >= 0) at.push(spot);
  }
  if (!at.length) return null;
  let out = ''; let from = 0;
  for (const i of at) { out += source.slice(from, i) + ';'; from = i + 1; }
  return out + source.slice(from);
}

/** True when the `<` lies in an error node, or in the nearest enclosing body that contains errors (not inside valid JSX). */
function inTroubledBody(leaf: Node): boolean {
  for (let n = leaf.parent; n; n = n.parent) {
    if (n.isError) return true;
    if (JSX.has(n.type) && !n.hasError) return false;
    if (BODIES.has(n.type)) return n.hasError;
  }
  return false;
}

/** The last token before `index`, skipping whitespace and comments. */
function previousToken(root: Node, source: string, index: number): Node | null {
  let p = index - 1;
  for (let guard = 0; guard < 64; guard++) {
    while (p >= 0 && /\s/.test(source[p]!)) p--;
    if (p < 0) return null;
    const leaf = root.descendantForIndex(p, p + 1);
    if (!leaf) return null;
    if (leaf.type === 'comment' || leaf.type === 'html_comment') { p = leaf.startIndex - 1; continue; }
    return leaf;
  }
  return null;
}
