/**
 * The one definition of "the tests of a symbol", used by `related_tests`, `impact` and
 * `impact_analysis` alike.
 *
 * A test is a test case — a test function or method by its language's convention, or the module body
 * of a test file (where `describe`/`it` callbacks, gtest macros and RSpec blocks live) — never a
 * function merely because it sits in a test file: such helpers are followed, and the tests reached
 * through them name them in `via`.
 *
 * Tests are found by walking incoming calls/references (every provider) from the targets through any
 * number of hops, nearest first, within a cost bound. Name-only bindings (`isNameOnly`: the receiver's type
 * was unknown or the name shared) are not followed further, and a test reached through one counts only
 * when it also reaches the method's class. When the bound or the depth limit cuts the walk, the answer
 * carries a `depth_limit` boundary. A test that requests a route through a test client reaches its
 * handler (testClientEdges). When no test reaches the target, the tests of its class (a closure's enclosing
 * function) are listed as possible, and when still none, the cases of test files named after its file or
 * importing it or its class.
 *
 * A test is `likely` to run the target when every step on its way is a call or use bound with at least
 * LIKELY_CONFIDENCE (or runs an override of a called base method, when the test reaches the override's class
 * or a subclass), no step only names a type (an annotation), and every registration on the way
 * (`isRegistration`: a table or class body holds a function as a value) is one whose function the test
 * names (`FILTERS = {"random": do_random}` and a test whose text says `random`), and so is every call made
 * only while a value is unset (`@app ||= Application.new`: once per object or per run). A way
 * through code that runs only on an error (an exception handler, a raise) counts for a test that expects an
 * error (`expectsError`: its text says raises, throws, …). The others
 * are possible. Likely tests come first.
 */
import type { NodeRow } from '../store/store';
import { graphRulesOf, isTestPath } from '../languages';
import type { Boundary, GraphEdge, GraphReader } from './query';
import { NAME_ONLY_TIERS } from './tiers';
import { splitIdentifier } from '../util/tokens';
import { appendAll } from '../util/arrays';

/** Below this an edge was bound by a name only (receiver type unknown, or a shared name). */
export const NAME_ONLY = 0.5;
/** Whether an edge was bound by a name only: by its tier, or (another provider's) by its confidence. */
export const isNameOnly = (e: GraphEdge): boolean => (e.tier ? NAME_ONLY_TIERS.has(e.tier) : e.confidence < NAME_ONLY);
const WALK_KINDS = ['calls', 'references', 'extends', 'implements'] as const;
/** The lowest edge confidence on a likely test's way: a binding more likely right than wrong (confidences are measured precisions). */
export const LIKELY_CONFIDENCE = 0.5;
/** Definitions whose own body holds values rather than runs: a constant's table, a class's body (decorators, defaults). */
const HOLDER_KINDS: ReadonlySet<string> = new Set(['constant', 'class', 'struct', 'interface', 'enum', 'trait', 'type', 'module']);

/**
 * Whether `referrer` holds `used` as a value rather than running it: a table (`FILTERS = {"random":
 * do_random}`), a class body (a decorator, a default), a module's top level outside a test file, or a
 * function handing a function over (a hook set, a callback passed, a default argument). What reaches the
 * holder runs the function only when it looks that entry up or calls the hook, which a static walk cannot tell.
 */
export function isRegistration(edge: GraphEdge, referrer: NodeRow, used: NodeRow): boolean {
  if (edge.kind !== 'references' || edge.tier === 'fixture') return false; // a test naming a fixture runs it
  if (used.kind === 'function' || used.kind === 'method') return true;
  return HOLDER_KINDS.has(referrer.kind) || (referrer.kind === 'file' && !isTestPath(referrer.path));
}

/**
 * Whether a use of `used` only names a type: a reference to a class (an annotation, `isinstance`, a class
 * handed over as a value) runs none of its code; constructing it is a call.
 */
const namesTypeOnly = (edge: GraphEdge, used: NodeRow): boolean => edge.kind === 'references' && TYPE_KINDS.has(used.kind);
const TYPE_KINDS: ReadonlySet<string> = new Set(['class', 'struct', 'interface', 'enum', 'trait', 'type']);

/** Words too common in code to tell that a test means one registered function. */
const COMMON_WORDS = new Set(['self', 'init', 'call', 'test', 'data', 'value', 'name', 'make', 'create', 'build', 'handle',
  'default', 'process', 'func', 'function', 'method', 'wrap', 'wrapper', 'decorator', 'callback', 'inner', 'get', 'set']);

/** Words by which a test says it expects an error (`pytest.raises`, `assertRaises`, `toThrow`, `assert_raises`). */
const ERROR_WORDS = ['raises', 'raise', 'throws', 'throw', 'rejects'];
const expectsError = (words: ReadonlySet<string>): boolean => ERROR_WORDS.some(w => words.has(w));

/**
 * The words by which a test names a function: its name and its parts of 4+ letters that are not common
 * words; a constructor's are its class's (`@store ||= Store.new`: `store`).
 */
export function namingWords(fn: NodeRow): string[] {
  const constructs = fn.name === graphRulesOf(fn.language)?.constructorMember;
  const name = constructs && fn.parent_path ? fn.parent_path.slice(fn.parent_path.lastIndexOf('.') + 1) : fn.name;
  const parts = fn.kind === 'file' ? [] : [name.toLowerCase(), ...splitIdentifier(name)];
  return [...new Set(parts)].filter(w => w.length >= 4 && !COMMON_WORDS.has(w));
}

/**
 * The words of what a method chosen by a name prefix is chosen for (`visit_OverlayScope`: overlayscope, overlay,
 * scope): a visitor runs it only for that kind of node, so only the tests that name it likely run it.
 */
function chosenForWords(fn: NodeRow): string[] {
  const rest = fn.name.slice(fn.name.indexOf('_') + 1);
  return rest ? [...new Set([rest.toLowerCase(), ...splitIdentifier(rest)])] : [];
}

export interface TestHit {
  node: NodeRow;
  /** Edges between the test and the target (1 = the test uses the target itself). */
  distance: number;
  /** Lowest edge confidence on the way. */
  confidence: number;
  /** Provider of the weakest edge on the way. */
  provider: string;
  reason: string;
  /** Nodes between the test and the target, nearest to the test first (helpers, API layers). */
  via: NodeRow[];
  /** Every step bound with at least LIKELY_CONFIDENCE and none a registration (see the header). */
  likely: boolean;
}

export interface TestsOf {
  tests: TestHit[]; boundaries: Boundary[]; lowConfidence: number; examined: number;
  /** The nodes the walk went through (not the targets): their own boundaries bound the answer too (GraphReader.walkBoundaries). */
  walked: NodeRow[];
}

export interface TestsOptions {
  maxDepth?: number; maxNodes?: number;
  /** no fallback to the tests of a method's class (the fallback's own walk) */
  noClassFallback?: boolean;
}
export const TESTS_MAX_DEPTH = 32;
export const TESTS_MAX_NODES = 4000;

/** Whether a node is a test case (see the header), by the common conventions of its language. */
export function isTestCase(n: NodeRow): boolean {
  const inTestFile = isTestPath(n.path);
  if (n.kind === 'file') return inTestFile;
  if (n.kind !== 'function' && n.kind !== 'method') return false;
  const name = n.name;
  const sp = n.symbol_path ?? '';
  switch (n.language) {
    case 'rust': return inTestFile || /(^|\.)tests\./.test(sp);
    case 'go': return inTestFile && /^(Test|Benchmark|Fuzz|Example)([A-Z_0-9]|$)/.test(name);
    case 'python': return inTestFile && /^test/.test(name);
    case 'java': case 'csharp':
      return inTestFile && n.kind === 'method' && !/^(setUp|tearDown|before|after|init|setup|teardown)/i.test(name)
        && (/^test/i.test(name) || /Tests?(\.|$)|^Test/.test(n.parent_path ?? ''));
    case 'ruby': case 'php': return inTestFile && /^test/.test(name);
    case 'c': case 'cpp': return inTestFile && /^(test|TEST)/.test(name);
    default: return inTestFile && /^(test|it_|should)/.test(name); // JS/TS: the module body is the test; named functions are helpers
  }
}

export function testsOf(g: GraphReader, targets: NodeRow[], opts: TestsOptions = {}): TestsOf {
  const maxDepth = opts.maxDepth ?? TESTS_MAX_DEPTH;
  const maxNodes = opts.maxNodes ?? TESTS_MAX_NODES;
  const targetSet = new Set(targets.map(t => t.node));
  const classes = new Map<number, NodeRow>(); // method target → its class (for the name-only rule)
  for (const t of targets) {
    const cls = t.kind === 'method' ? holderOf(g, t) : undefined;
    if (cls) classes.set(t.node, cls);
  }
  interface Visit {
    node: NodeRow; distance: number; confidence: number; weakest: GraphEdge | null; parent: Visit | null; edge: GraphEdge | null;
    nameOnly: boolean; root: NodeRow; likely: boolean;
    /** per registration (or memoised call) on the way, the words by which a test names the registered function (namingWords) */
    named: readonly string[][];
    /** per override reached through a call of its base method (tier dispatch), the override's class */
    overrides: readonly NodeRow[];
    /** some step on the way is made by code that runs only on an error */
    onError: boolean;
    /** wayStrength: unlikely 0, likely on conditions the test must meet 1, likely 2 */
    strength: number;
    /** whether the walk goes on from this node (a node first met through a name-only binding is not, until a better edge reaches it) */
    queued: boolean;
  }
  const seen = new Map<number, Visit>();
  const found = new Map<number, TestHit>();
  let lowConfidence = 0; let examined = 0; let cut = false;
  const walked: NodeRow[] = [];
  const reachers = new Map<number, Set<number>>();
  const families = new Map<number, Makers>();
  const start = (t: NodeRow): Visit => ({
    node: t, distance: 0, confidence: 1, weakest: null, parent: null, edge: null, nameOnly: false, root: t, queued: true,
    likely: true, named: [], overrides: [], onError: false, strength: 2,
  });
  let frontier: Visit[] = targets.map(start);
  for (const f of frontier) seen.set(f.node.node, f);
  for (let d = 1; frontier.length; d++) {
    if (d > maxDepth || examined >= maxNodes) { cut = true; break; }
    const next: Visit[] = [];
    if (examined + frontier.length > maxNodes) { cut = true; frontier = frontier.slice(0, Math.max(0, maxNodes - examined)); }
    // a callback's invoker runs whatever any caller hands it: the test that hands the function over reaches
    // it by its reference, the invoker's other callers do not (callback edges are not read)
    const edgesOf = g.dependentsOfMany(frontier.map(f => f.node), WALK_KINDS, { callbacks: false });
    for (const [node, list] of testClientEdges(g, frontier.map(f => f.node))) appendAll(edgesOf.get(node)!, list);
    for (const f of frontier) {
      examined++;
      if (f.distance > 0) walked.push(f.node);
      for (const { neighbour, edge } of edgesOf.get(f.node.node) ?? []) {
        if (targetSet.has(neighbour.node)) continue;
        const confidence = Math.min(f.confidence, edge.confidence);
        const nameOnly = f.nameOnly || isNameOnly(edge);
        const registers = isRegistration(edge, neighbour, f.node);
        const override = edge.tier === 'dispatch' ? classOf(g, f.node) : undefined;
        // a test's own `except` block is its scenario, not a rare path: the guards are read in the code it runs
        const own = isTestCase(neighbour);
        const onError = !own && g.guardedSite(edge, neighbour, 'error');
        const memo = !own && g.guardedSite(edge, neighbour, 'memo');
        const naming = edge.tier === 'by_prefix' ? chosenForWords(f.node) : registers || memo ? namingWords(f.node) : null;
        const likely = f.likely && (edge.confidence >= LIKELY_CONFIDENCE || !!override) && !namesTypeOnly(edge, f.node)
          && (!naming || naming.length > 0);
        const named = naming ? [...f.named, naming] : f.named;
        const errorOnly = f.onError || (likely && onError);
        const strength = wayStrength(likely, named.length, f.overrides.length + (override ? 1 : 0), errorOnly);
        const prev = seen.get(neighbour.node);
        // a stronger way beats a weaker one found earlier, however long (a test that reaches an override by
        // dispatch, and its base method by plain calls; a memoised call it must name, and a plain call): the node is
        // visited, and walked on, once more
        const upgrade = !!prev && prev.strength < strength;
        if (prev && !upgrade && (prev.distance < d || (prev.confidence >= confidence && prev.strength >= strength))) continue;
        const weakest = edge.confidence <= (f.weakest?.confidence ?? 1) ? edge : f.weakest;
        const v: Visit = {
          node: neighbour, distance: d, confidence, weakest, parent: f, edge, nameOnly, root: f.root, queued: !!prev?.queued && !upgrade, likely,
          named, overrides: override ? [...f.overrides, override] : f.overrides, onError: errorOnly, strength,
        };
        seen.set(neighbour.node, v);
        if (own) {
          const cls = classes.get(v.root.node);
          if (nameOnly && cls && !reachesClass(g, neighbour, cls, reachers)) { lowConfidence++; continue; }
          const words = v.likely && (v.named.length || v.onError) ? g.wordsOf(neighbour) : undefined;
          if (words && v.named.length) v.likely = namesEach(words, v.named);
          if (v.likely && v.overrides.length) v.likely = v.overrides.every(c => reachesFamily(g, neighbour, c, families));
          if (words && v.likely && v.onError) v.likely = expectsError(words);
          found.set(neighbour.node, hit(v));
        } else if (isNameOnly(edge)) {
          lowConfidence++; // listed nowhere, followed no further: a name-only binding does not carry reachability
        } else if (!v.queued) { v.queued = true; next.push(v); }
      }
    }
    frontier = next;
  }
  // A method (a closure) no test reaches by calls (run from generated code, a framework, an operator): the tests
  // that reach its class (its enclosing function), possible only, unless the walk was cut; then test files (below)
  if (!found.size && !cut && !opts.noClassFallback) for (const [node, hit] of classTests(g, targets, opts)) found.set(node, hit);
  // Test files named after a target's file, or importing it or its class (no call seen): only when the walk
  // found no test at all (the weakest evidence; beside tests found by calls it lists hundreds that never run it)
  if (!found.size) for (const [node, hit] of fileTests(g, targets, classes)) found.set(node, hit);
  const tests = [...found.values()].sort(byLikelihood);
  const boundaries: Boundary[] = [];
  if (cut) boundaries.push({ kind: 'depth_limit', detail: `the search for tests stopped after ${examined} node(s) and depth ${Math.min(maxDepth, TESTS_MAX_DEPTH)}; more tests may reach the target through longer paths` });
  return { tests, boundaries, lowConfidence, examined, walked };

  function hit(v: Visit): TestHit {
    const via: NodeRow[] = [];
    for (let p = v.parent; p && p.parent; p = p.parent) via.push(p.node);
    const chain = [v.node, ...via, v.root].map(n => n.symbol_path ?? n.path);
    const shown = chain.length > 6 ? [...chain.slice(0, 3), '…', ...chain.slice(-2)] : chain;
    return {
      node: v.node, distance: v.distance, confidence: v.confidence, provider: (v.weakest ?? v.edge!).provider, via, likely: v.likely,
      reason: v.distance === 1 ? directly(v.edge!) : `reaches it in ${v.distance} hops: ${shown.join(' → ')}`,
    };
  }
}

/** What holds a method or a closure: its class, its enclosing function (not a file or module). */
const holderOf = (g: GraphReader, t: NodeRow): NodeRow | undefined =>
  (t.kind === 'method' || t.kind === 'function' ? g.containers(t).find(c => c.kind !== 'file' && c.kind !== 'module') : undefined);

const HOLDER_WORD: Record<string, string> = { class: 'its class', function: 'its enclosing function', method: 'its enclosing method' };

/**
 * The tests that reach what holds methods or closures no test reaches by calls (a method's class, a closure's
 * function): possible, one hop further, with the reason.
 */
function classTests(g: GraphReader, targets: NodeRow[], opts: TestsOptions): Map<number, TestHit> {
  const out = new Map<number, TestHit>();
  const owners = [...new Set(targets.map(t => holderOf(g, t)).filter((c): c is NodeRow => !!c))];
  if (!owners.length) return out;
  for (const t of testsOf(g, owners, { ...opts, noClassFallback: true }).tests) {
    const reason = `uses ${owners.map(c => `${HOLDER_WORD[c.kind] ?? 'its'} ${c.symbol_path}`).join(', ')} (no call of it seen): ${t.reason}`;
    out.set(t.node.node, { ...t, distance: t.distance + 1, likely: false, reason });
  }
  return out;
}

/**
 * The test cases of test files named after a target's file (a naming convention) or importing the target or
 * its class (a module-level use: `app = Starlette(middleware=[Middleware(AuthenticationMiddleware)])`), those
 * named for the target when some are; the file itself only when its body is the test (JS/TS).
 */
function fileTests(g: GraphReader, targets: NodeRow[], classes: ReadonlyMap<number, NodeRow>): Map<number, TestHit> {
  const out = new Map<number, TestHit>();
  const add = (t: NodeRow, testFile: NodeRow, edge: GraphEdge, reason: string) => {
    if (testFile.kind !== 'file' || !isTestPath(testFile.path)) return;
    const cases = namedFor(t, g.symbolsIn(testFile.file_id).filter(isTestCase));
    for (const c of cases.length ? cases : [testFile]) {
      if (!out.has(c.node)) out.set(c.node, { node: c, distance: 1, confidence: edge.confidence, provider: edge.provider, reason, via: [], likely: false });
    }
  };
  for (const t of targets) {
    const file = t.kind === 'file' ? t : g.nodes([-t.file_id]).get(-t.file_id);
    if (!file) continue;
    for (const { neighbour, edge } of g.edges(file, 'in', ['contains_test_for'])) {
      add(t, neighbour, edge, `in a test file named after ${file.path} (naming convention; no call seen)`);
    }
    for (const held of [t, classes.get(t.node)]) {
      for (const { neighbour, edge } of held ? g.edges(held, 'in', ['imports']) : []) {
        add(t, neighbour, edge, `in a test file that imports ${held!.symbol_path ?? held!.path} (no call seen)`);
      }
    }
  }
  return out;
}

/** How a test at distance 1 uses the target, with the provider and line of the edge. */
function directly(e: GraphEdge): string {
  const how = e.kind === 'link_http' ? 'requests its route through a test client: it directly'
    : e.tier === 'dispatch' ? 'calls the method it overrides' : `${e.kind} it directly`;
  return `${how} (${e.provider}${e.line ? `, line ${e.line}` : ''})`;
}

/** How strong a way is: unlikely 0; likely when the test meets conditions (names, a class it makes, an error it expects) 1; likely 2. */
const wayStrength = (likely: boolean, named: number, overrides: number, onError: boolean): number =>
  !likely ? 0 : named || overrides || onError ? 1 : 2;

/** Whether a test's words name each registered function on its way (one of its naming words each). */
const namesEach = (words: ReadonlySet<string>, named: readonly string[][]): boolean => named.every(ws => ws.some(w => words.has(w)));

/** Likely tests first, then nearest, then strongest link, then by place. */
const byLikelihood = (a: TestHit, b: TestHit): number => Number(b.likely) - Number(a.likely) || a.distance - b.distance
  || b.confidence - a.confidence || a.node.path.localeCompare(b.node.path) || a.node.start_line - b.node.start_line;

/**
 * Of a named test file's cases, those named for the target when any is (`test_first` for `sync_do_first`,
 * `test_total_empty` for `total`: the last word of its name, at least 3 letters); else all of them.
 */
function namedFor(target: NodeRow, cases: NodeRow[]): NodeRow[] {
  const word = target.kind === 'file' ? '' : (/([A-Za-z][a-z0-9]*)_*$/.exec(target.name)?.[1] ?? '').toLowerCase();
  if (word.length < 3) return cases;
  const named = cases.filter(c => c.name.toLowerCase().split(/_|(?=[A-Z])/).includes(word));
  return named.length ? named : cases;
}

/** Everything that bounds a tests answer: the targets' boundaries, the walk's cuts, and those of the functions it passed through. */
export function testsBoundaries(g: GraphReader, targets: NodeRow[], t: TestsOf): Boundary[] {
  const out = [...g.boundaries(targets, t.lowConfidence), ...t.boundaries];
  return [...out, ...g.walkBoundaries(t.walked, out)];
}

/**
 * Test clients: a test that requests a route (`client.get("/users")`) reaches the handler the workspace
 * registers for it (a matched `http` link, kind link_http). Only a request from a test file counts, to a
 * route of the application code or of the test's own file (tests that each build an app with a "/" route
 * do not reach each other's handlers).
 */
function testClientEdges(g: GraphReader, nodes: NodeRow[]): Map<number, { neighbour: NodeRow; edge: GraphEdge }[]> {
  const handlers = nodes.filter(n => n.kind === 'function' || n.kind === 'method' || n.kind === 'class');
  const out = new Map<number, { neighbour: NodeRow; edge: GraphEdge }[]>();
  if (!handlers.length) return out;
  for (const [node, list] of g.linkEdgesOfMany(handlers, 'in')) {
    const handler = handlers.find(h => h.node === node)!;
    const kept = list.filter(({ neighbour, edge }) => edge.kind === 'link_http' && isTestPath(neighbour.path)
      && (!isTestPath(handler.path) || neighbour.path === handler.path));
    if (kept.length) out.set(node, kept.map(x => ({ ...x, edge: { ...x.edge, evidence: `test client: ${x.edge.evidence}` } })));
  }
  return out;
}

/**
 * Whether a test reaches a class (through calls, references or imports of enough confidence) within 3 hops,
 * from itself or its file. `reachers` memoises, per class, what reaches it that way (one walk backwards
 * from the class, a few batched reads, instead of a walk forwards from each of thousands of tests).
 */
function reachesClass(g: GraphReader, test: NodeRow, cls: NodeRow, reachers: Map<number, Set<number>>): boolean {
  let set = reachers.get(cls.node);
  if (!set) reachers.set(cls.node, set = reachersOf(g, cls));
  return set.has(test.node) || (test.kind !== 'file' && set.has(-test.file_id));
}

const REACH_HOPS = 3;

/** The class (or other container) a method belongs to. */
const classOf = (g: GraphReader, fn: NodeRow): NodeRow | undefined => g.containers(fn).find(c => c.kind !== 'file' && c.kind !== 'module');

/**
 * Whether a test makes or is handed an instance of a class or one of its subclasses (calls and references
 * within REACH_HOPS, not imports): a call of a base method runs an override only on such an instance.
 */
function reachesFamily(g: GraphReader, test: NodeRow, cls: NodeRow, families: Map<number, Makers>): boolean {
  let makers = families.get(cls.node);
  if (!makers) families.set(cls.node, makers = makersOf(g, cls));
  if (makers.nodes.has(test.node)) return true;
  // a test method runs in its class and in every test class inheriting it: a member of one of those
  // (a fixture or factory a subclass overrides) that makes the override's class counts
  const own = test.kind === 'method' ? classOf(g, test) : undefined;
  return !!own && familyOf(g, own).some(c => makers.owners.has(classKey(c.path, c.symbol_path)));
}

/** What makes a class family's instances: the nodes, and the classes those are members of. */
interface Makers { nodes: Set<number>; owners: Set<string> }
const classKey = (path: string, sp: string | null): string => `${path}\0${sp}`;

function makersOf(g: GraphReader, cls: NodeRow): Makers {
  const nodes = new Set<number>();
  for (const member of familyOf(g, cls)) for (const n of reachersOf(g, member, MAKES)) nodes.add(n);
  const owners = new Set([...g.nodes([...nodes]).values()].map(n => classKey(n.path, n.parent_path)));
  return { nodes, owners };
}

/** A class and its subclasses, transitively (at most 50). */
function familyOf(g: GraphReader, cls: NodeRow): NodeRow[] {
  const out = [cls];
  for (let i = 0; i < out.length && out.length < 50; i++) {
    for (const { neighbour } of g.edges(out[i]!, 'in', ['extends'])) if (!out.some(n => n.node === neighbour.node)) out.push(neighbour);
  }
  return out;
}

/** What makes or hands out an instance: a call (a constructor, a factory) or a reference (`partial(Cls)`), not an import. */
const MAKES = ['calls', 'references'] as const;

function reachersOf(g: GraphReader, cls: NodeRow, kinds: readonly string[] = ['calls', 'references', 'imports']): Set<number> {
  const seen = new Set<number>();
  let frontier = [cls];
  for (let d = 0; d < REACH_HOPS && frontier.length; d++) {
    const next: NodeRow[] = [];
    for (const list of g.edgesOfMany(frontier, 'in', kinds, { dispatch: false }).values()) {
      for (const { neighbour, edge } of list) {
        if (isNameOnly(edge) || seen.has(neighbour.node) || neighbour.node === cls.node) continue;
        seen.add(neighbour.node); next.push(neighbour);
      }
    }
    frontier = next;
  }
  return seen;
}
