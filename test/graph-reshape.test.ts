/**
 * An edit that changes a file's definitions (a function or method added, removed, renamed or moved), in
 * an engine that keeps the repository's resolver tables: the tables take the new definitions and only
 * what the change reaches is resolved again (pipeline/phases/graph.ts `reshapeUpdate`). After every such
 * edit the graph must be the one a rebuild from scratch gives; edits it cannot bound (a class, an import
 * or a base class changed) rebuild.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { Engine } from '../src/core/engine';
import { keptSymbolIds } from '../src/core/store/symbol-ids';
import { freshGraph, graphOf } from './helpers/graph';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

const FILES: Record<string, string> = {
  'py/pkg/__init__.py': 'from pkg.base import Base as Base\nfrom pkg.util import helper\n',
  'py/pkg/base.py': 'class Root:\n    def ping(self):\n        return 0\n\nclass Base(Root):\n    def save(self):\n        return self.ping() + self.extra_step()\n',
  'py/pkg/model.py': 'from pkg import Base\n\nclass Model(Base):\n    def load(self):\n        def inner():\n            return 1\n        return self.save() + inner() + self.extra_step()\n',
  'py/pkg/util.py': 'def helper(x):\n    return x\n\ndef unique_name_here():\n    return helper(2)\n',
  'py/pkg/service.py': 'from pkg.model import Model\nfrom pkg import helper\nfrom pkg.util import *\n\ndef serve():\n    m = Model()\n    helper(m)\n    unique_name_here()\n    later_defined()\n    return m.load()\n',
  'py/pkg/late.py': 'def call_later():\n    return later_defined()\n',
  'py/tests/test_util.py': 'from pkg.util import helper\n\ndef test_helper():\n    assert helper(1)\n',
  'ts/src/shape.ts': 'export class Shape {\n  area(): number { return 0; }\n}\nexport function make(): Shape { return new Shape(); }\n',
  'ts/src/circle.ts': 'import { Shape } from "./shape";\nexport class Circle extends Shape {\n  radius(): number { return this.area() + this.perimeter(); }\n}\n',
  'ts/src/app.ts': 'import { make } from "./shape";\nimport { Circle } from "./circle";\nexport function run(): number {\n  const c = new Circle();\n  return c.radius() + make().area() + make().perimeter();\n}\n',
  'go/store/store.go': 'package store\n\ntype Store struct{}\n',
  'go/store/ops.go': 'package store\n\nfunc (s *Store) Get() int { return s.Put() }\n\nfunc (s *Store) Put() int { return 1 }\n',
  'go/store/other.go': 'package store\n\nfunc Other() int {\n\ts := &Store{}\n\treturn s.Del()\n}\n',
  'go/store/use.go': 'package store\n\nfunc Use() int {\n\ts := &Store{}\n\treturn s.Get() + s.Del()\n}\n',
  'rs/src/thing.rs': 'pub struct Thing;\n',
  'rs/src/make.rs': 'impl Thing {\n    pub fn make() -> Thing { Thing }\n    pub fn size(&self) -> u8 { 1 }\n}\n',
  'rs/src/more.rs': 'impl Thing {\n    pub fn twice(&self) -> u8 { self.weight() + self.weight() }\n}\n',
  'rs/src/weigh.rs': 'pub fn weigh(t: &Thing) -> u8 {\n    t.weight()\n}\n',
  'rs/src/main.rs': 'fn main() {\n    let t = Thing::make();\n    t.size();\n    t.weight();\n}\n',
};

describe('graph: an edit that changes definitions, against kept tables', function () {
  this.timeout(120_000);
  let ws: TempWorkspace; let e: Engine | undefined;
  afterEach(() => { e?.close(); e = undefined; ws?.remove(); });
  const messages: string[] = [];

  /** Whether the graph holds an edge starting with `edge`. */
  const has = (g: { edges: string[] }, edge: string) => g.edges.some(x => x.startsWith(edge));

  /** Writes the files, runs the engine on them by name, and checks the graph against a rebuild. */
  const edit = async (files: Record<string, string>, expect: 'partial' | 'full') => {
    for (const [p, text] of Object.entries(files)) ws.write(p, text);
    messages.length = 0;
    const r = (await e!.index({ paths: Object.keys(files).map(p => join(ws.root, p)) })).repos[0]!;
    assert.equal(r.graph_update, expect, `${Object.keys(files).join(', ')}: ${messages.join('; ')}`);
    const now = await graphOf(ws.db); const rebuilt = await freshGraph(ws.root);
    assert.deepEqual(now.edges, rebuilt.edges, Object.keys(files).join(', '));
    assert.deepEqual(now.unbound, rebuilt.unbound, Object.keys(files).join(', '));
    return now;
  };

  /** Deletes the files, runs the engine on their paths, and checks the graph against a rebuild. */
  const gone = async (paths: string[], expect: 'partial' | 'full') => {
    for (const p of paths) rmSync(join(ws.root, p));
    messages.length = 0;
    const r = (await e!.index({ paths: paths.map(p => join(ws.root, p)) })).repos[0]!;
    assert.equal(r.graph_update, expect, `${paths.join(', ')} deleted: ${messages.join('; ')}`);
    assert.equal(r.files_deleted, paths.length);
    const now = await graphOf(ws.db); const rebuilt = await freshGraph(ws.root);
    assert.deepEqual(now.edges, rebuilt.edges, paths.join(', '));
    assert.deepEqual(now.unbound, rebuilt.unbound, paths.join(', '));
    return now;
  };

  it('functions and methods added, removed, renamed and moved leave the graph a rebuild gives, resolving only what they reach', async () => {
    ws = tempWorkspace(FILES);
    e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0, log: (_l, m) => messages.push(m) });
    assert.equal((await e.index()).repos[0]!.graph_update, 'full');
    // a function other files already call by name (no edge to it until now): found through their text
    let g = await edit({ 'py/pkg/util.py': `${FILES['py/pkg/util.py']}\ndef later_defined():\n    return 3\n` }, 'partial');
    assert.ok(has(g, 'py/pkg/service.py#serve -> py/pkg/util.py#later_defined calls'), g.edges.join('\n'));
    assert.ok(has(g, 'py/pkg/late.py#call_later -> py/pkg/util.py#later_defined calls'), 'a file with no edge into util.py before');
    // the definitions that stayed kept their ids: only the file and the two that name the new function
    assert.ok(messages.some(m => /1 file\(s\) with changed definitions; 3 file\(s\) resolved again/.test(m)), messages.join('\n'));
    // a function removed: its callers lose the edge
    g = await edit({ 'py/pkg/util.py': 'def helper(x):\n    return x\n\ndef later_defined():\n    return 3\n' }, 'partial');
    assert.ok(!g.edges.some(x => x.includes('unique_name_here')));
    // renamed, and moved below another definition (every definition of the file gets a new id)
    g = await edit({ 'py/pkg/util.py': 'def later_defined():\n    return 3\n\n\ndef helper_renamed(x):\n    return x\n' }, 'partial');
    // a method added to a base class: the subclass's self-call reaches it through the member map
    g = await edit({ 'py/pkg/base.py': FILES['py/pkg/base.py']!.replace('class Base(Root):\n', 'class Base(Root):\n    def extra_step(self):\n        return 1\n\n') }, 'partial');
    assert.ok(has(g, 'py/pkg/model.py#Model.load -> py/pkg/base.py#Base.extra_step calls'), g.edges.join('\n'));
    // TypeScript: a method added to a class and another edited in the same run
    g = await edit({ 'ts/src/shape.ts': FILES['ts/src/shape.ts']!.replace('  area(): number { return 0; }\n', '  area(): number { return 0; }\n  perimeter(): number { return 1; }\n'),
      'ts/src/app.ts': FILES['ts/src/app.ts']!.replace('return c.radius()', 'return 1 + c.radius()') }, 'partial');
    assert.ok(has(g, 'ts/src/circle.ts#Circle.radius -> ts/src/shape.ts#Shape.perimeter calls'), g.edges.join('\n'));
    // Go: a method defined apart from its type; Rust: a method in an impl block of another file
    g = await edit({ 'go/store/ops.go': `${FILES['go/store/ops.go']}\nfunc (s *Store) Del() int { return 0 }\n` }, 'partial');
    assert.ok(has(g, 'go/store/other.go#Other -> go/store/ops.go#Store.Del calls'), g.edges.join('\n'));
    g = await edit({ 'rs/src/make.rs': FILES['rs/src/make.rs']!.replace('    pub fn size', '    pub fn weight(&self) -> u8 { 2 }\n    pub fn size') }, 'partial');
    assert.ok(has(g, 'rs/src/main.rs#main -> rs/src/make.rs#Thing.weight calls'), g.edges.join('\n'));
    assert.ok(has(g, 'rs/src/weigh.rs#weigh -> rs/src/make.rs#Thing.weight calls'), g.edges.join('\n'));
    assert.ok(has(g, 'rs/src/more.rs#Thing.twice -> rs/src/make.rs#Thing.weight calls'), g.edges.join('\n'));
    // a method named like methods of other classes, added before them: their ids would no longer follow
    // the parser's order of that name, so the file's definitions are numbered again (and the graph still matches)
    await edit({ 'py/pkg/base.py': FILES['py/pkg/base.py']!.replace('class Root:\n', 'class Root:\n    def save(self):\n        return 2\n\n').replace('class Base(Root):\n', 'class Base(Root):\n    def extra_step(self):\n        return 1\n\n') }, 'partial');
    // an import added and one removed: the file and its importers are resolved again
    await edit({ 'py/pkg/service.py': FILES['py/pkg/service.py']!.replace('from pkg import helper\n', 'from pkg import helper\nimport os\n') }, 'partial');
    await edit({ 'py/pkg/__init__.py': 'from pkg.base import Base as Base\n' }, 'partial');
    // an import added to a file whose class extends something, that binds no base's name
    await edit({ 'py/pkg/model.py': FILES['py/pkg/model.py']!.replace('from pkg import Base\n', 'from pkg import Base\nimport os\n') }, 'partial');
    // edits the kept tables cannot take in place: a class added; the import its base class is named through
    await edit({ 'py/pkg/util.py': 'def later_defined():\n    return 3\n\n\ndef helper_renamed(x):\n    return x\n\nclass Helper:\n    pass\n' }, 'full');
    await edit({ 'py/pkg/model.py': FILES['py/pkg/model.py']!.replace('from pkg import Base\n', 'from pkg.base import Base\nimport os\n') }, 'full');
  });

  it('a new or deleted file without classes is resolved with what its names, its module name and its edges reach, leaving the graph a rebuild gives', async () => {
    ws = tempWorkspace({
      ...FILES,
      'py/pkg/client.py': 'from pkg.missing import fetch\n\ndef go():\n    return fetch()\n',
      'py/pkg/client2.py': 'from .absent import *\n',
      'py/tests/test_fresh.py': 'def test_it():\n    assert True\n',
      'ts/src/use-lib.ts': 'import { libFn } from "./lib";\nexport function useLib(): number { return libFn(); }\n',
      'go/store/caller.go': 'package store\n\nfunc Caller() int { return Helper() }\n',
      'ts/src/barrel/impl.ts': 'export function deep(): number { return 1; }\n',
      'ts/src/barrel/mid.ts': "export * from './impl';\n",
      'ts/src/barrel/impl2.ts': 'export function deep(): number { return 3; }\n',
      'ts/src/barrel/index.ts': "export * from './mid';\n",
      'ts/src/consumer.ts': "import { deep } from './barrel';\nexport function useDeep(): number { return deep(); }\n",
      'ts/src/other-deep.ts': 'export function deep(): number { return 2; }\n',
      'rb/user.rb': 'def check(user)\n  user.valid?\nend\n',
    });
    e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0, log: (_l, m) => messages.push(m) });
    await e.index();
    // a function other files call by name, in a new module
    let g = await edit({ 'py/pkg/extra.py': 'from pkg.util import helper\n\ndef later_defined():\n    return helper(3)\n' }, 'partial');
    assert.ok(has(g, 'py/pkg/service.py#serve -> py/pkg/extra.py#later_defined calls'), g.edges.join('\n'));
    assert.ok(has(g, 'py/pkg/extra.py#later_defined -> py/pkg/util.py#helper calls'), 'the new file\'s own calls');
    assert.ok(messages.some(m => /\(1 new\)/.test(m)), messages.join('\n'));
    // the module an import named before it existed
    g = await edit({ 'py/pkg/missing.py': 'def fetch():\n    return 1\n' }, 'partial');
    assert.ok(has(g, 'py/pkg/client.py#go -> py/pkg/missing.py#fetch calls'), g.edges.join('\n'));
    // a module imported whole by a file that names nothing in it
    g = await edit({ 'py/pkg/absent.py': 'def not_named_anywhere():\n    return 1\n' }, 'partial');
    assert.ok(g.edges.some(x => x.startsWith('py/pkg/client2.py -> py/pkg/absent.py imports')), g.edges.join('\n'));
    // a source file a test file is named after (the test names nothing of it), and a test named after a source file
    g = await edit({ 'py/pkg/fresh.py': 'def fresh_value():\n    return 1\n' }, 'partial');
    assert.ok(g.edges.some(x => x.startsWith('py/tests/test_fresh.py -> py/pkg/fresh.py contains_test_for')), g.edges.join('\n'));
    await edit({ 'py/tests/test_late.py': 'def test_it():\n    assert True\n' }, 'partial');
    // TypeScript: a folder's index module an import named; Go: a function of a package, in a new file of it
    g = await edit({ 'ts/src/lib/index.ts': 'export function libFn(): number { return 1; }\n' }, 'partial');
    assert.ok(has(g, 'ts/src/use-lib.ts#useLib -> ts/src/lib/index.ts#libFn calls'), g.edges.join('\n'));
    g = await edit({ 'go/store/helper.go': 'package store\n\nfunc Helper() int { return 1 }\n' }, 'partial');
    assert.ok(has(g, 'go/store/caller.go#Caller -> go/store/helper.go#Helper calls'), g.edges.join('\n'));
    // a name that is not one word of the full-text index (Ruby's `valid?`): the files holding its words
    g = await edit({ 'rb/valid.rb': 'def valid?\n  true\nend\n' }, 'partial');
    assert.ok(has(g, 'rb/user.rb#check -> rb/valid.rb#valid? calls'), g.edges.join('\n'));
    // two new files in one run, one calling the other
    await edit({ 'py/pkg/one.py': 'from pkg.two import second\n\ndef first():\n    return second()\n', 'py/pkg/two.py': 'def second():\n    return 2\n' }, 'partial');
    // a new file with a class: bases and member maps may change, so the graph is rebuilt
    await edit({ 'py/pkg/klass.py': 'class Extra:\n    def run(self):\n        return 1\n' }, 'full');
    // deleted files, the same way: callers and importers lose their edges, a test its naming link
    g = await gone(['py/pkg/extra.py'], 'partial');
    assert.ok(!g.edges.some(x => x.includes('extra.py')), g.edges.join('\n'));
    assert.ok(messages.some(m => /\(1 deleted\)/.test(m)), messages.join('\n'));
    await gone(['py/pkg/missing.py', 'py/pkg/fresh.py', 'py/pkg/absent.py'], 'partial');
    await gone(['ts/src/lib/index.ts'], 'partial');
    await gone(['go/store/helper.go', 'py/tests/test_late.py'], 'partial');
    // an agent's new module and the import of it in an existing file, in one run
    g = await edit({ 'py/pkg/addr.py': 'from pkg.util import helper\n\ndef label(x):\n    return helper(x)\n',
      'py/pkg/late.py': 'from pkg.addr import label\n\ndef call_later():\n    return label(later_defined())\n' }, 'partial');
    assert.ok(has(g, 'py/pkg/late.py#call_later -> py/pkg/addr.py#label calls'), g.edges.join('\n'));
    // a re-export changed in the middle of a chain: the importer two hops away is resolved again
    g = await edit({ 'ts/src/barrel/mid.ts': "export * from './impl2';\n" }, 'partial');
    assert.ok(has(g, 'ts/src/consumer.ts#useDeep -> ts/src/barrel/impl2.ts#deep calls'), g.edges.join('\n'));
    g = await edit({ 'ts/src/barrel/mid.ts': "export * from './impl';\n" }, 'partial');
    // a re-export in the middle of a chain: the importer two hops away names nothing of the deleted file
    const chain = 'ts/src/consumer.ts#useDeep -> ts/src/barrel/impl.ts#deep calls 0.8 import:./barrel → ./mid → ./impl';
    assert.ok(has(g, chain), g.edges.join('\n'));
    g = await gone(['ts/src/barrel/mid.ts'], 'partial');
    assert.ok(!has(g, chain), g.edges.join('\n'));
    await gone(['py/pkg/klass.py'], 'full');
  });

  it('in a new process (no kept tables) the same edits resolve what they reach, reading definitions on demand', async () => {
    ws = tempWorkspace(FILES);
    e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0, log: (_l, m) => messages.push(m) });
    await e.index();
    /** each edit in an engine of its own, as a command-line run or a new MCP server would make it */
    const fresh = async (run: () => Promise<{ edges: string[] }>) => {
      e!.close();
      e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0, log: (_l, m) => messages.push(m) });
      const g = await run();
      assert.ok(messages.some(m => /reading definitions on demand/.test(m)), messages.join('\n'));
      return g;
    };
    let g = await fresh(() => edit({ 'py/pkg/util.py': `${FILES['py/pkg/util.py']}\ndef later_defined():\n    return 3\n` }, 'partial'));
    assert.ok(g.edges.some(x => x.startsWith('py/pkg/late.py#call_later -> py/pkg/util.py#later_defined calls')), g.edges.join('\n'));
    g = await fresh(() => edit({ 'py/pkg/extra.py': 'def unique_name_here():\n    return 4\n' }, 'partial'));
    assert.ok(g.edges.some(x => x.startsWith('py/pkg/service.py#serve -> py/pkg/extra.py#unique_name_here calls')), g.edges.join('\n'));
    await fresh(() => gone(['py/pkg/extra.py'], 'partial'));
    await fresh(() => gone(['py/pkg/late.py'], 'partial'));
  });

  it('in a repository whose base classes form a cycle, a method added inside the cycle or outside it leaves the graph a rebuild gives', async () => {
    ws = tempWorkspace({
      'a.py': 'class A(C):\n    def fa(self):\n        return self.fa() + self.fx()\n',
      'b.py': 'class B(A):\n    def fb(self):\n        return self.fc() + self.fx()\n',
      'c.py': 'class C(B):\n    def fc(self):\n        return 1\n',
      'd.py': 'class D(B):\n    def fd(self):\n        return self.fa() + self.fx()\n',
      'free.py': 'class Free:\n    def f(self):\n        return self.g() + self.fy()\n    def g(self):\n        return 2\n',
      'sub.py': 'from free import Free\n\nclass Sub(Free):\n    def h(self):\n        return self.fy()\n',
    });
    e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0, log: (_l, m) => messages.push(m) });
    await e.index();
    // outside the cycle: the subclass in another file reaches the new method through its member map
    const g = await edit({ 'free.py': 'class Free:\n    def f(self):\n        return self.g() + self.fy()\n    def g(self):\n        return 2\n    def fy(self):\n        return 3\n' }, 'partial');
    assert.ok(g.edges.some(x => x.startsWith('sub.py#Sub.h -> free.py#Free.fy calls')), g.edges.join('\n'));
    // inside it: every member map is built again in symbol order
    await edit({ 'c.py': 'class C(B):\n    def fc(self):\n        return 1\n    def fx(self):\n        return 4\n' }, 'partial');
    await edit({ 'b.py': 'class B(A):\n    def fb(self):\n        return self.fc() + self.fx()\n    def fx(self):\n        return 5\n' }, 'partial');
  });

  it('a rewritten file keeps the row ids of the definitions that stay, unless that changes the order of one name\'s definitions', () => {
    const old = [{ rowid: 10, symbol_path: 'a', kind: 'function' }, { rowid: 11, symbol_path: 'C', kind: 'class' }, { rowid: 12, symbol_path: 'C.run', kind: 'method' }];
    const def = (symbol_path: string, kind: string) => ({ name: symbol_path.slice(symbol_path.lastIndexOf('.') + 1), symbol_path, kind });
    assert.deepEqual(keptSymbolIds(old, [def('a', 'function'), def('b', 'function'), def('C', 'class'), def('C.run', 'method')]), [10, null, 11, 12]);
    assert.deepEqual(keptSymbolIds(old, [def('C', 'class'), def('C.run', 'method')]), [11, 12], 'a definition removed');
    assert.deepEqual(keptSymbolIds(old, [def('a', 'class'), def('C', 'class'), def('C.run', 'method')]), [null, 11, 12], 'same path, another kind: a new row');
    // a new `run` before the kept one: a fresh index would number it first
    assert.deepEqual(keptSymbolIds(old, [def('a', 'function'), def('run', 'function'), def('C', 'class'), def('C.run', 'method')]), [null, null, null, null]);
    assert.deepEqual(keptSymbolIds(old, [def('a', 'function'), def('C', 'class'), def('C.run', 'method'), def('run', 'function')]), [10, 11, 12, null]);
  });
});
