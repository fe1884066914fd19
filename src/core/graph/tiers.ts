/**
 * The heuristic provider's resolution tiers: one table with each tier's confidence and the text an
 * answer's evidence sentence uses for it. An edge stores a short evidence code, `tier` or
 * `tier:detail` (graph_edges.evidence); `parseEvidence` reads the tier back, `evidenceCode` writes it.
 *
 *   local       0.85  a definition nested in the calling scope
 *   self        0.85  self./this. call bound to the enclosing class (or a base class in the same repo)
 *   same_file   0.8   defined at top level of the same file
 *   import      0.8   imported by name (aliases and re-export barrels followed), or via a module alias
 *   receiver    0.75  method on a constructed or named class: new Worker().run(), Worker().run(), Worker.run()
 *   assigned    0.7   x.run() where x holds a class: its assignment (x = Worker(), x = make() -> Worker), its
 *                     declared type (x: Worker, a typed parameter), self.x assigned in the class's methods
 *   fixture     0.7   runner.run() in a test, where the fixture `runner` (conftest.py) returns a class with run;
 *                     also a test naming a fixture uses it
 *   scope_type  0.65  x.run() where exactly one class named in the calling scope (a parameter's type, a
 *                     constructor call) has a method run
 *   host        0.8   self.f() / a bare f() where the enclosing class or module lacks f and the one class built on it
 *                     defines it (a Ruby mixin calling its includer's method; a base's hook only a subclass defines)
 *   self_chain  0.6   a call on a call chain rooted at the instance (this.a().run(), (c ? this.a() : this).run()):
 *                     fluent interfaces return the instance, so run is looked up in the enclosing class
 *   same_dir    0.6   the only definition with that name in the same folder (package)
 *   unique      0.55  the only definition with that name in the repository
 *   receiver_name 0.5 x.run() where x is named like the one class with run (`ctx` → Context, `parser` → Parser)
 *   hierarchy   0.5   x.run() where every method named run overrides one (the root's callers reach each by dispatch)
 *   method_name 0.4   the only method with that name, called on a receiver of unknown type
 *   run_time    0.4   a call of a method the receiver's class (or self's) lacks, where the class body defines methods at
 *                     run time (define_method, class_eval): an edge to the class (a fallback method, method_missing or
 *                     __getattr__, surely runs: its edge keeps the tier that typed the receiver)
 *   ambiguous   0.25  one of 2–3 definitions sharing the name (each gets an edge; never confident)
 *   dispatch    0.1   a call of a base method that this method overrides (read at query time, graph/dispatch.ts;
 *                     one override runs per call: 0.05–0.16 of these edges ran in bench:stake)
 *   by_prefix   0.5   a method looked up by a computed name (getattr(self, f"visit_{…}"), graph/dynamic.ts)
 *   patch       0.5   a function assigned over a module's function (`utils.echo = fake_echo`): it `implements`
 *                     the one it replaces, whose callers are its possible callers (read at query time, dispatch.ts)
 *   callable    0.7   a call of a value whose declared type is a callable type (`self.app(…)`, `app: ASGIApp`):
 *                     an edge to the type itself
 *   outside     0.7   x.f() where x holds a class that does not define f and extends a class outside the workspace:
 *                     an edge to the class; the callers of such edges are possible callers of its methods, which
 *                     the outside base's code may run (read at query time, dispatch.ts: tier inherited)
 *   inherited   0.1   a method of a class no workspace code calls by name, possibly run by the code its outside base
 *                     runs when the class is used through it (read at query time from tier `outside` uses, dispatch.ts)
 *   protocol    0.05  a call of a value of a callable type: a possible call of each function whose parameter
 *                     types are the type's (read at query time, graph/protocol.ts; 0.02 ran in bench:stake)
 *   callback    0.6   a function handed over as a value (a decorator, an argument) is called by the code that
 *                     calls the parameter it lands in (read at query time, graph/callbacks.ts)
 *   import_file 0.85  file → file import
 *   naming      0.5   a test file named after a source file
 *
 * All stay below 0.9, the `exact` threshold, which only compiler-grade providers reach.
 */

export const TIERS = {
  local: { confidence: 0.85, text: 'a definition nested in the calling scope' },
  self: { confidence: 0.85, text: 'a self/this call bound to the enclosing class' },
  same_file: { confidence: 0.8, text: 'defined in the same file' },
  import: { confidence: 0.8, text: 'imported' },
  receiver: { confidence: 0.75, text: 'a method of the receiver\'s class' },
  assigned: { confidence: 0.7, text: 'a method of the type the receiver holds:' },
  fixture: { confidence: 0.7, text: 'through the test fixture' },
  scope_type: { confidence: 0.65, text: 'a method of the one class the calling scope names with that method:' },
  host: { confidence: 0.8, text: 'a method self has through the class built on the enclosing one:' },
  self_chain: { confidence: 0.6, text: 'a call chain on the instance of' },
  same_dir: { confidence: 0.6, text: 'the only definition with that name in' },
  unique: { confidence: 0.55, text: 'the only definition with that name in the repository' },
  receiver_name: { confidence: 0.5, text: 'a method of the class the receiver is named like:' },
  hierarchy: { confidence: 0.5, text: 'the method every definition of the name overrides:' },
  method_name: { confidence: 0.4, text: 'the only method with that name (receiver type unknown)' },
  run_time: { confidence: 0.4, text: 'a method the class defines at run time:' },
  ambiguous: { confidence: 0.25, text: 'one of several definitions sharing the name' },
  dispatch: { confidence: 0.1, text: 'a call of the base method it overrides' },
  by_prefix: { confidence: 0.5, text: 'a method chosen at run time by its name:' },
  patch: { confidence: 0.5, text: 'a function assigned in place of a module\'s function:' },
  callable: { confidence: 0.7, text: 'a call of a value of the callable type' },
  outside: { confidence: 0.7, text: 'a call of a method the class has from a base outside the workspace:' },
  inherited: { confidence: 0.1, text: 'a method the base outside the workspace may run, used through its class:' },
  protocol: { confidence: 0.05, text: 'a call of a value of a callable type it implements:' },
  callback: { confidence: 0.6, text: 'a call of a parameter the function is handed to:' },
  import_file: { confidence: 0.85, text: 'import of' },
  naming: { confidence: 0.5, text: 'test file named after' },
} as const satisfies Record<string, { confidence: number; text: string }>;

export type Tier = keyof typeof TIERS;

/**
 * Per language family, the tiers whose measured precision departs from the table (bench:stake's tier
 * precision against what runs, bench:graph's against pyright): their edges get this confidence instead.
 * Python: a class the scope names (httpx 0.41 against pyright, 0.23–0.65 against what runs) and a method
 * name alone (0.00–0.41) are guesses; Ruby: a method every definition overrides (0.21), a class the scope names (0.52),
 * a method defined at run time (0.04 of 52 edges on rake).
 */
export const FAMILY_CONFIDENCE: Readonly<Record<string, Partial<Record<Tier, number>>>> = {
  python: { scope_type: 0.45, method_name: 0.25 },
  ruby: { hierarchy: 0.25, scope_type: 0.5, run_time: 0.1 },
};

/**
 * Tiers that bind by a name alone (the receiver's type unknown, or the name shared), or by a signature
 * alone (protocol: any implementation may be the one called), whatever their confidence.
 */
export const NAME_ONLY_TIERS: ReadonlySet<string> = new Set<Tier>(['method_name', 'ambiguous', 'protocol']);

/** Tiers that know the receiver's type (the only ones a member run by syntax, `x[k]` or `str(x)`, binds through). */
export const TYPED_TIERS: ReadonlySet<string> = new Set<Tier>(['receiver', 'self', 'host', 'self_chain', 'assigned', 'fixture', 'run_time']);

/** The confidence of an edge of `tier` in a file of language `family`. */
export const tierConfidence = (tier: Tier, family: string | null): number =>
  (family ? FAMILY_CONFIDENCE[family]?.[tier] : undefined) ?? TIERS[tier].confidence;

/** A name shared by more than this many definitions gets no edge (the call site goes to unbound_calls). */
export const AMBIGUOUS_MAX = 3;

export const isTier = (s: string): s is Tier => Object.prototype.hasOwnProperty.call(TIERS, s);

/** The stored evidence code of an edge of `tier` (graph_edges.evidence). */
export const evidenceCode = (tier: Tier, detail: string): string => (detail ? `${tier}:${detail}` : tier);

/** The tier (null when the code names none) and detail of a stored evidence code. */
export function parseEvidence(code: string): { tier: Tier | null; detail: string } {
  const cut = code.indexOf(':');
  const head = cut < 0 ? code : code.slice(0, cut);
  return { tier: isTier(head) ? head : null, detail: cut < 0 ? '' : code.slice(cut + 1) };
}
