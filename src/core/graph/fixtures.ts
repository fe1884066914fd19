/**
 * Test fixtures injected by name (pytest): a test's parameter named like a fixture receives what the
 * fixture returns. A fixture is a function decorated with the language's fixture decorator
 * (`@pytest.fixture`, `@fixture(scope=…)`) in the test's own class (or its bases), its own file or a fixture
 * file (conftest.py) of its folder or any folder above it, the nearest first, as pytest looks them up. Its type is what its
 * body constructs or its signature names (`return CliRunner()`, `-> Starlette`): the classes its scope
 * names.
 *
 * Used by the `fixture` call rule (calls.ts: `runner.invoke()` in a test) and by identifier resolution
 * (resolve.ts: a test naming a fixture uses it). Answers are memoised for one resolution pass
 * (`RepoTables.passMemo`): a fixture file's edit changes them.
 */
import { posix } from 'node:path';
import { passScope, type FileScope } from './scope';
import { CLASSY, type GFile, type GSymbol, type RepoTables } from './tables';
import type { Occurrence } from '../parse/occurrence';
import type { GraphRules } from '../languages/types';
import { isTestPath } from '../languages';

/**
 * A fixture: its function, the classes its scope names (what it returns, or makes), and of those the
 * classes it hands out uncalled (`functools.partial(TestClient, …)`, `return TestClient`): a factory
 * of them, so that calling its value constructs one.
 */
export interface Fixture { fn: GSymbol; classes: GSymbol[]; factoryOf: GSymbol[] }

/** Lines above a definition where its decorators may sit. */
const DECORATOR_LINES = 4;

/**
 * The fixture a name means in a file, seen from scope `at` (null: none visible, or the language has no
 * fixtures): a fixture method of the enclosing test class or its bases first, then the file's and the
 * fixture files' functions.
 */
export function fixtureNamed(scope: FileScope, name: string, at: string | null = null): Fixture | null {
  const rules = scope.L.fixtures;
  if (!rules || !/^[a-z_]\w*$/.test(name)) return null;
  const t = scope.t;
  const cls = at ? scope.classOf(at) : undefined;
  const method = cls ? t.memberIn(cls, name) : undefined;
  if (method?.kind === 'method') {
    const key = `fixture\0${method.id}`;
    let hit = t.passMemo.get(key) as Fixture | null | undefined;
    if (hit === undefined) { t.passMemo.set(key, null); hit = fixtureOf(t, method, rules.decorator); t.passMemo.set(key, hit); }
    if (hit) return hit;
  }
  const asked = `fixture-of\0${scope.file.id}\0${name}`;
  const known = t.passMemo.get(asked) as Fixture | null | undefined;
  if (known !== undefined) return known;
  t.passMemo.set(asked, null);
  const found = nearestFixture(t, scope.file, name, rules);
  t.passMemo.set(asked, found);
  return found;
}

function nearestFixture(t: RepoTables, file: GFile, name: string, rules: { decorator: string; files: readonly string[] }): Fixture | null {
  // a fixture is a top-level function: files defining no function of that name are passed over at once
  if (!t.byName.get(name)?.some(s => s.kind === 'function')) return null;
  for (const f of fixtureFiles(t, file, rules.files)) {
    const key = `fixture\0${f.id}\0${name}`;
    let hit = t.passMemo.get(key) as Fixture | null | undefined;
    if (hit === undefined) {
      t.passMemo.set(key, null); // fixtures naming each other: the inner ask sees none
      hit = findFixture(t, f, name, rules.decorator);
      t.passMemo.set(key, hit);
    }
    if (hit) return hit;
  }
  return null;
}

/** How evidence names a fixture: `runner (tests/conftest.py)`. */
export function fixtureLabel(scope: FileScope, fx: Fixture): string {
  return `${fx.fn.name} (${scope.t.filesById.get(fx.fn.fileId)?.path ?? '?'})`;
}

/** The file itself, then the fixture files of its folder and every folder above it. */
function fixtureFiles(t: RepoTables, file: GFile, names: readonly string[]): GFile[] {
  const out = [file];
  for (let dir = posix.dirname(file.path); ; dir = posix.dirname(dir)) {
    for (const n of names) {
      const f = t.fileByPath.get(dir === '.' ? n : `${dir}/${n}`);
      if (f && f.id !== file.id) out.push(f);
    }
    if (dir === '.' || dir === '/') return out;
  }
}

function findFixture(t: RepoTables, file: GFile, name: string, decorator: string): Fixture | null {
  const fn = t.topLevel(file.id, name).find(s => s.kind === 'function');
  return fn ? fixtureOf(t, fn, decorator) : null;
}

/** A function or method as a fixture, when the fixture decorator sits above it. */
function fixtureOf(t: RepoTables, fn: GSymbol, decorator: string): Fixture | null {
  const view = passScope(t, fn.fileId);
  if (!view) return null;
  const occ = view.occ;
  const decorated = occ.some(o => o.name === decorator && o.scope === fn.parent
    && (o.kind === 'call' || o.kind === 'identifier') && o.line < fn.line && o.line >= fn.line - DECORATOR_LINES);
  if (!decorated) return null;
  view.scope.collectScopeClasses(occ);
  const classes = view.scope.classesNamedIn(fn.sp);
  const uses = occ.filter(o => o.scope === fn.sp && !o.receiver);
  // the return annotation names what the value is, not a class handed out
  const annotated = new Set(uses.filter(o => o.kind === 'returns').map(o => o.name.slice(o.name.lastIndexOf('.') + 1)));
  const factoryOf = classes.filter(c => !annotated.has(c.name) && !uses.some(o => o.name === c.name && o.kind === 'call')
    && uses.some(o => o.name === c.name && o.kind === 'identifier'));
  return { fn, classes, factoryOf };
}

/** How far above a test a parametrize call may start when no decorator of the test is seen to be one. */
const PARAMETRIZE_LINES = 40;

/**
 * `@pytest.mark.parametrize("transform", [iter, auto_aiter])` above a test hands those values to the test,
 * which calls them as its parameters: the lines of such a decorator, each to the test it decorates (its
 * symbol path). Only in test files; the decorated definition is the next one below the decorator. Once per file
 * and resolution pass (the file's own resolution and the parametrize call rule both ask).
 */
export function parametrizedLines(t: RepoTables, file: GFile, occ: readonly Occurrence[], rules: GraphRules): Map<number, string> {
  const key = `parametrized lines\0${file.id}`;
  const hit = t.passMemo.get(key) as Map<number, string> | undefined;
  if (hit) return hit;
  const out = new Map<number, string>();
  t.passMemo.set(key, out);
  const name = rules.fixtures?.parametrize;
  if (!name || !isTestPath(file.path)) return out;
  const sites = occ.filter(o => o.kind === 'call' && o.name === name);
  if (!sites.length) return out;
  const defs = (t.byFile.get(file.id) ?? []).filter(s => s.kind === 'function' || s.kind === 'method').sort((a, b) => a.line - b.line);
  // a decorator's cases may span a hundred lines: its function is named (an `@…parametrize()` argument occurrence)
  const decorated = new Set(occ.filter(o => o.kind === 'argument' && o.receiver?.startsWith('@') && o.receiver.includes(name)).map(o => o.name));
  for (const site of sites) {
    const test = defs.find(d => d.line > site.line);
    if (!test || (test.line - site.line > PARAMETRIZE_LINES && !decorated.has(test.name))) continue;
    for (let line = site.line; line < test.line; line++) out.set(line, test.sp);
  }
  return out;
}

/**
 * `@pytest.mark.parametrize(("obj", "expect"), [pytest.param(click.Path(), …), (click.Option(…), …)])`: the classes
 * the decorator constructs, which a parameter of the test (`test` its symbol path) may hold, one per case; none
 * when `param` is no parameter of the test, is a fixture's name or is assigned in the test. Memoised for the pass.
 */
export function parametrizedClasses(f: FileScope, test: string, param: string): GSymbol[] {
  const cases = parametrizedTests(f).get(test);
  if (!cases || !cases.params.has(param) || param === 'self' || fixtureNamed(f, param, test)) return [];
  return cases.classes();
}

/**
 * The tests of a file that a parametrize decorator decorates: each with its parameters not assigned in its body,
 * and (asked once) the classes its cases construct. Once per file and resolution pass; none outside test files.
 */
function parametrizedTests(f: FileScope): Map<string, { params: Set<string>; classes: () => GSymbol[] }> {
  const key = `parametrized\0${f.file.id}`;
  let hit = f.t.passMemo.get(key) as ReturnType<typeof parametrizedTests> | undefined;
  if (hit) return hit;
  hit = new Map();
  f.t.passMemo.set(key, hit);
  const view = f.L.fixtures?.parametrize && isTestPath(f.file.path) ? passScope(f.t, f.file.id) : null;
  const lines = view ? parametrizedLines(f.t, f.file, view.occ, f.L) : new Map<number, string>();
  for (const test of new Set(lines.values())) {
    const own = view!.occ.filter(o => o.scope === test);
    const assigned = new Set(own.filter(o => o.kind === 'assign').map(o => o.name));
    const params = new Set((own.find(o => o.kind === 'params')?.name.split(',') ?? []).filter(p => !assigned.has(p)));
    let classes: GSymbol[] | undefined;
    hit.set(test, { params, classes: () => classes ??= constructed(f, view!.occ, lines, test) });
  }
  return hit;
}

/** The classes the calls on a test's parametrize lines construct (`pytest.param(click.Path(), …)`). */
function constructed(f: FileScope, occ: readonly Occurrence[], lines: ReadonlyMap<number, string>, test: string): GSymbol[] {
  const made = occ.filter(o => o.kind === 'call' && lines.get(o.line) === test)
    .map(o => f.flow.calleeOf(o.receiver ? `${o.receiver}.${o.name}` : o.name, o));
  return [...new Set(made.filter((s): s is GSymbol => !!s && CLASSY.has(s.kind)))];
}
