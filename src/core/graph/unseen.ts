/**
 * Calls no provider sees as calls: a function run without its name at the call site. It is handed over
 * as a value (a callback, a decorator, a handler table, a property read: an incoming `references` edge,
 * but not a test naming a fixture, which the graph binds as the fixture's call), run by the language's
 * syntax (`__getitem__`, `__iter__`: the language's `implicitMembers`), read as a property, handed to a
 * decorator (which may register it: `@app.route`, `@stack.callback`), or it
 * overrides a method of a base class outside the workspace, whose own code may call it (a
 * `textwrap.TextWrapper` subclass's `_wrap_chunks`, an HTTP transport's `handle_request`), or it is a
 * generator (its body runs where the generator is iterated: `next(gen)` is not a call of it).
 *
 * Each is an `implicit_calls` boundary: an answer about such a function is a lower bound, and so is a
 * walk (impact, related tests) that passes through one, since what reaches it through the unseen call
 * is not reached either.
 */
import type { NodeRow } from '../store/store';
import { graphRules } from '../languages';
import type { LanguageId } from '../languages/types';
import type { Boundary, GraphReader } from './query';

/** Bases whose own code calls no member a subclass defines (beyond the syntax's: `implicitMembers`). */
export const INERT_BASES = /^(?:Object|object|BasicObject|BaseException|Exception|StandardError|\w+Error|\w+Warning)$/;
/** How far up the workspace's own bases an outside base is looked for. */
const BASE_DEPTH = 6;

const isFunction = (n: NodeRow) => n.kind === 'function' || n.kind === 'method';

/**
 * The implicit calls of `nodes`, one boundary per way for an answer's targets; for the functions a walk
 * passed through (`onTheWay`), one boundary naming how many and in which ways.
 */
export function implicitCallBoundaries(g: GraphReader, nodes: readonly NodeRow[], onTheWay = false): Boundary[] {
  const fns = nodes.filter(isFunction);
  if (!fns.length) return [];
  const ways = implicitWays(g, fns);
  if (!onTheWay) return ways.map(w => ({ kind: 'implicit_calls', detail: `${list(w.fns.map(nameOf))} ${w.how}` }));
  if (!ways.length) return [];
  const count = new Set(ways.flatMap(w => w.fns.map(f => f.node))).size;
  const parts = ways.map(w => `${list(w.fns.map(nameOf))} ${w.how}`);
  return [{ kind: 'implicit_calls', detail: `${count} function(s) on the way are called where no edge shows it: ${parts.join('; ')}` }];
}

interface Way { fns: NodeRow[]; how: string }

/** How each way is said, after the functions' names. */
const HOW = {
  syntax: "run(s) through the language's syntax (operators, iteration, attribute access…): "
    + 'those calls name no method and are not edges',
  asValue: (count: number, where: string) => `handed over as a value in ${count} place(s) `
    + `(e.g. ${where}: a callback, decorator or property): calls through that value are not edges`,
  property: 'run(s) on an attribute read (a property): a read on a value of unknown type binds only '
    + 'when every definition of the name overrides one property',
  decorated: (decorators: string) => `handed to a decorator (${decorators}) that may call or register it: `
    + 'those calls are not edges',
  generator: 'yield(s): a generator, whose body runs where it is iterated (calls of it only make it)',
  override: (bases: string) => `override(s) a method of a base class outside the workspace (${bases}): `
    + "that base's code may call it, and those calls are not edges",
};

function implicitWays(g: GraphReader, fns: readonly NodeRow[]): Way[] {
  const rules = (n: NodeRow) => graphRules(n.language as LanguageId);
  // a constructor runs through calls that construct its class: edges of their own
  const syntax = fns.filter(t => rules(t).implicitMembers?.test(t.name) && t.name !== rules(t).constructorMember);
  const asValue = [...g.edgesOfMany(fns, 'in', ['references'], { dispatch: false }).entries()]
    .map(([node, uses]) => [node, uses.filter(u => u.edge.tier !== 'fixture')] as const).filter(([, uses]) => uses.length);
  const { properties, decorated } = byDecorators(g, fns);
  const overrides = overridesOfOutsideBases(g, fns.filter(t => t.kind === 'method' && !syntax.includes(t)));
  const ways: Way[] = [];
  if (syntax.length) ways.push({ fns: syntax, how: HOW.syntax });
  if (asValue.length) {
    const at = asValue[0]![1][0]!;
    const where = `${at.neighbour.path}${at.edge.line ? `:${at.edge.line}` : ''}`;
    const count = asValue.reduce((n, [, uses]) => n + uses.length, 0);
    const handed = fns.filter(f => asValue.some(([node]) => node === f.node));
    ways.push({ fns: handed, how: HOW.asValue(count, where) });
  }
  if (properties.length) ways.push({ fns: properties, how: HOW.property });
  if (decorated.length) {
    const decorators = list([...new Set(decorated.map(d => `@${d.decorator}`))]);
    ways.push({ fns: decorated.map(d => d.fn), how: HOW.decorated(decorators) });
  }
  if (overrides.length) {
    const bases = list([...new Set(overrides.map(o => o.base))]);
    ways.push({ fns: overrides.map(o => o.method), how: HOW.override(bases) });
  }
  const generators = fns.filter(f => g.isGenerator(f));
  if (generators.length) ways.push({ fns: generators, how: HOW.generator });
  return ways;
}

const nameOf = (n: NodeRow) => n.symbol_path ?? n.name;

/** Functions run on an attribute read (properties), and those handed to a decorator that is not inert. */
function byDecorators(g: GraphReader, fns: readonly NodeRow[]) {
  const properties: NodeRow[] = [];
  const decorated: { fn: NodeRow; decorator: string }[] = [];
  for (const fn of fns) {
    const { decorators: rules, fixtures } = graphRules(fn.language as LanguageId);
    if (!rules) continue;
    const names = g.decoratorsOf(fn);
    if (names.some(n => rules.property.test(n))) properties.push(fn);
    else {
      // a fixture's decorator is modelled: the graph binds the tests that name the fixture
      const decorator = names.find(n => !rules.inert.test(n) && n !== fixtures?.decorator);
      if (decorator) decorated.push({ fn, decorator });
    }
  }
  return { properties, decorated };
}

/** Methods whose class (or a base of it in the workspace) extends a class outside the workspace that is not inert. */
function overridesOfOutsideBases(g: GraphReader, methods: readonly NodeRow[]): { method: NodeRow; base: string }[] {
  const out: { method: NodeRow; base: string }[] = [];
  const memo = new Map<number, string | null>();
  for (const m of methods) {
    const rules = graphRules(m.language as LanguageId);
    if (m.name === rules.constructorMember) continue; // run by constructing the class: a call edge of its own
    const cls = g.containers(m)[0];
    if (!cls || cls.kind === 'file' || cls.kind === 'function' || cls.kind === 'method') continue;
    const base = outsideBase(g, cls, rules.inertBases, memo, 0);
    if (base) out.push({ method: m, base });
  }
  return out;
}

/** The first base outside the workspace that a class or its workspace bases declare, unless inert (memoised per class). */
function outsideBase(g: GraphReader, cls: NodeRow, inert: RegExp | undefined, memo: Map<number, string | null>, depth: number): string | null {
  if (memo.has(cls.node)) return memo.get(cls.node)!;
  memo.set(cls.node, null); // a cycle of bases ends here
  const inside = g.edges(cls, 'out', ['extends', 'implements']).map(e => e.neighbour).filter(n => n.kind !== 'file');
  const named = new Set(inside.map(n => n.name));
  let found = g.declaredBases(cls).find(b => !named.has(b) && !INERT_BASES.test(b) && !inert?.test(b)) ?? null;
  for (const base of inside) {
    if (found || depth >= BASE_DEPTH) break;
    found = outsideBase(g, base, inert, memo, depth + 1);
  }
  memo.set(cls.node, found);
  return found;
}

const list = (xs: readonly string[]) => `${xs.slice(0, 3).join(', ')}${xs.length > 3 ? ', …' : ''}`;
