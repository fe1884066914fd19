/**
 * What graph answers read of one file, once per reader (GraphReader.factsOf): its definitions and the
 * occurrence kinds each question needs, each read from the store on first use.
 */
import type { NodeRow, ChunkSpan } from '../store/store';
import type { Occurrence } from '../parse/occurrence';

export interface FileFacts {
  symbols: NodeRow[]; decorators?: DecoratorSites; bases?: Map<string | null, string[]>; assigns?: Occurrence[];
  handOffs?: Occurrence[];
  /** what a function's signature says: `yields` (a generator), `returns` (`-> T`, `return T(…)`) */
  signature?: Occurrence[];
  /** the line spans of code that runs only on an error (`error_path`) or while a value is unset (`memo`) */
  guards?: Partial<Record<Guard, GuardSpan[]>>;
  text?: { tokens: string[]; spans: ChunkSpan[] }; // full-text tokens and each chunk's lines (wordsOf)
}

export { BASE_KINDS } from '../parse/occurrence';
export const DECORATOR_KINDS: ReadonlySet<string> = new Set(['call', 'identifier']);
export const ASSIGN_KINDS: ReadonlySet<string> = new Set(['assign']);
export const SIGNATURE_KINDS: ReadonlySet<string> = new Set(['yields', 'returns']);

/** Code that runs only on an error (a handler, a raise) or only while a value is unset (`@x ||= make`). */
export type Guard = 'error' | 'memo';
export const GUARD_KINDS: Record<Guard, ReadonlySet<string>> = { error: new Set(['error_path']), memo: new Set(['memo']) };
/** The lines of one guarded block, and the function whose body holds it. */
export interface GuardSpan { first: number; last: number; scope: string | null }
export const guardSpans = (occurrences: Occurrence[]): GuardSpan[] =>
  occurrences.map(o => ({ first: o.line, last: Number(o.source ?? o.line), scope: o.scope }));
export const HANDOFF_KINDS: ReadonlySet<string> = new Set(['argument', 'params', 'call', 'assign', 'identifier']);

/** How far above a definition its decorators may start (stacked, with arguments over several lines). */
export const DECORATOR_LINES = 16;

/** A file's call and identifier occurrences by line, and the lines where a definition ends. */
export interface DecoratorSites { byLine: Map<number, Occurrence[]>; ends: Set<number> }

export function decoratorSites(occurrences: Occurrence[], symbols: readonly NodeRow[]): DecoratorSites {
  const byLine = new Map<number, Occurrence[]>();
  for (const o of occurrences) {
    let l = byLine.get(o.line);
    if (!l) byLine.set(o.line, l = []);
    l.push(o);
  }
  return { byLine, ends: new Set(symbols.map(d => d.end_line)) };
}
