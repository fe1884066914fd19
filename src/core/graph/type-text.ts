/**
 * Type annotations as written (Python `Callable[[Scope, Receive, Send], Awaitable[None]]`): what a callable
 * type takes and gives. Read by the resolution pass (flow.ts: calling a value of such a type) and at query
 * time (protocol.ts: which functions implement it).
 */
import { graphRules } from '../languages';
import type { LanguageId } from '../languages/types';

/**
 * What a callable type's declared text says (`Callable[[Scope, Receive, Send], Awaitable[None]]`): the
 * parameter types, and the result type (an awaitable's or coroutine's result), or null when it is no callable type.
 */
export function callableSignature(language: string, declared: string): { params: string[]; returns: string | null } | null {
  const start = graphRules(language as LanguageId).callableType?.exec(declared);
  if (!start) return null;
  const outer = bracketed(declared, start[0].length - 2);
  const list = bracketed(declared, start[0].length - 1);
  if (outer === null || list === null) return null;
  const result = typeKey(awaited(splitTopLevel(outer)[1]?.trim() ?? ''));
  return { params: splitTopLevel(list).map(typeKey).filter(Boolean), returns: SAYS_NOTHING.test(result) ? null : result };
}

/** Results that name no type of the workspace: they would match every function without parameters. */
const SAYS_NOTHING = /^(?:|None|Any|object|NoReturn|Never)$/;

/** `Awaitable[T]`, `Coroutine[Any, Any, T]`: T; any other type as written. */
function awaited(type: string): string {
  const m = /^(?:\w+\.)*(?:Awaitable|Coroutine)\[(.*)\]$/s.exec(type);
  return m ? (splitTopLevel(m[1]!).at(-1) ?? '').trim() : type;
}

/** A type as written, without module qualifiers (`types.Scope` and `Scope` are one type here). */
export const typeKey = (t: string) => t.trim().replace(/\b[A-Za-z_]\w*\./g, '');

/** The text inside the bracket that opens at `open`, or null when it never closes. */
function bracketed(text: string, open: number): string | null {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '[') depth++;
    else if (text[i] === ']' && --depth === 0) return text.slice(open + 1, i);
  }
  return null;
}

function splitTopLevel(list: string, separator = ','): string[] {
  const parts: string[] = [];
  let depth = 0; let from = 0;
  for (let i = 0; i < list.length; i++) {
    const ch = list[i];
    if (ch === '[' || ch === '(') depth++;
    else if (ch === ']' || ch === ')') depth--;
    else if (ch === separator && depth === 0) { parts.push(list.slice(from, i)); from = i + 1; }
  }
  parts.push(list.slice(from));
  return parts;
}

/**
 * The types a call of a value of a callable type gives (`Awaitable[Response] | Response` → Response): each
 * alternative of a union, awaited; none for results that name no type.
 */
export function resultTypes(returns: string): string[] {
  const alternatives = splitTopLevel(returns, '|').map(t => typeKey(awaited(t.trim())));
  return [...new Set(alternatives)].filter(t => !SAYS_NOTHING.test(t));
}
