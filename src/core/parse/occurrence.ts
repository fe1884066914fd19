/**
 * The occurrence record: one use of a name in a file (a call, an import, a base class, an identifier),
 * as the extractor finds it, the store packs it (store/occurrences.ts) and graph resolution reads it.
 * This is its one definition; the order of OCCURRENCE_KINDS is the packed encoding's kind column.
 */

/**
 * `assign` (types that flow): `name` is the bound name (`client`, `self.client`), `receiver` the callee of
 * the value when it is a call (`Client`, `make_client`, `runner.invoke`), `alias` a declared type's name
 * (`client: Client = …`, a typed parameter). `returns`: `name` is the return annotation's type, the scope
 * the function it belongs to. `enters`: a context manager entered (`with x:`, `with open_db() as db`): `name`
 * the object's text when it is not a call, `receiver` the callee when it is. `result_call`: what a call
 * returns is called (`make(…)(x)`, a decorator `@make(…)`): `receiver` the inner callee (`make`).
 * `returns_call`: a function returns what a call returns (`return command(name, cls)`): `receiver` the
 * callee, the scope the returning function (what a decorator factory wrapping another hands out).
 * `yields`: the scope is a generator function (Python, JavaScript): calling it only makes the generator,
 * its body runs where that is iterated. `self_block`: a block run with another object as self (Ruby
 * `@app.instance_eval do … end`): `receiver` that object, `source` the block's last line (its bare calls
 * are that object's methods). `error_path`: code that runs only on an error (an exception handler, a
 * raise or throw statement): `source` its last line. `memo`: code that runs only while a value is unset (`@x ||= make`,
 * `x ??= make()`): `source` its last line. `argument` / `params`: a value handed to a call, a function's parameters
 * (parse/arguments.ts).
 */
/** The `source` of a call that syntax makes (`x[k]`, `len(x)`, `await x`): a member the code does not name. */
export const SYNTAX_SOURCE = 'syntax';

export const OCCURRENCE_KINDS = [
  'call', 'import', 'extends', 'implements', 'identifier', 'assign', 'returns', 'enters', 'result_call',
  'returns_call', 'yields', 'self_block', 'argument', 'params', 'error_path', 'memo',
] as const;
export type OccurrenceKind = (typeof OCCURRENCE_KINDS)[number];

/** Query captures that record an occurrence of their kind: `reference.call` → `call`, … */
export const OCCURRENCE_CAPTURES: ReadonlySet<string> = new Set(OCCURRENCE_KINDS.map(k => `reference.${k}`));

export interface Occurrence {
  kind: OccurrenceKind;
  name: string;
  /** 1-based */
  line: number;
  /** 0-based */
  col: number;
  /** symbol_path of the innermost enclosing definition, null at top level */
  scope: string | null;
  /** the receiver expression of a call (`self`, `new Worker()`, `a.b`) */
  receiver: string | null;
  /** an import's module specifier */
  source: string | null;
  /** an import's local binding */
  alias: string | null;
}

/**
 * The occurrence kinds other files' graph resolution reads from a file: its imports (re-exports included)
 * and base classes. The graph's first pass reads only these, and a file whose list of them (and whose
 * definitions) did not change keeps every other file's edges valid.
 */
export const CROSS_FILE_KINDS: ReadonlySet<OccurrenceKind> = new Set<OccurrenceKind>(['import', 'extends', 'implements']);
/** A class's bases: `extends` and `implements` (Ruby `include`), named through a qualifier held as the receiver. */
export const BASE_KINDS: ReadonlySet<OccurrenceKind> = new Set<OccurrenceKind>(['extends', 'implements']);

const KIND_INDEX = new Map<string, number>(OCCURRENCE_KINDS.map((k, i) => [k, i]));

/** The kind's index in OCCURRENCE_KINDS; an unknown kind is an error (it used to be stored as `call`). */
export function occurrenceKindIndex(kind: string): number {
  const i = KIND_INDEX.get(kind);
  if (i === undefined) throw new Error(`unknown occurrence kind ${JSON.stringify(kind)} (known: ${OCCURRENCE_KINDS.join(', ')})`);
  return i;
}
