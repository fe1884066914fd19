/**
 * A new process's partial graph update reads the definitions it needs on demand (graph/tables.ts with a
 * `SymbolLookup`) instead of indexing the whole repository first; its edges must be the edges a rebuild
 * from scratch gives, in every language's ways of reaching a definition (imports and re-exports, base
 * classes in other files, methods defined apart from their type, nested functions, test files).
 */
import { strict as assert } from 'node:assert';
import { Engine } from '../src/core/engine';
import { freshGraph, graphOf } from './helpers/graph';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

const FILES: Record<string, string> = {
  'py/pkg/__init__.py': 'from pkg.base import Base as Base\nfrom pkg.util import helper\n',
  'py/pkg/base.py': 'class Root:\n    def ping(self):\n        return 0\n\nclass Base(Root):\n    def save(self):\n        return self.ping() + self.hook()\n',
  'py/pkg/model.py': 'from pkg import Base\n\nclass Model(Base):\n    def load(self):\n        def inner():\n            return 1\n        return self.save() + inner()\n',
  'py/pkg/util.py': 'def helper(x):\n    return x\n\ndef unique_name_here():\n    return helper(2)\n',
  'py/pkg/service.py': 'from pkg.model import Model\nfrom pkg import helper\n\ndef serve():\n    m = Model()\n    helper(m)\n    unique_name_here()\n    return m.load()\n',
  'py/tests/test_service.py': 'from pkg.service import serve\n\ndef test_serve():\n    assert serve()\n',
  'py/pkg/visitor.py': 'class NodeVisitor:\n    def get_visitor(self, node):\n        return getattr(self, "visit_" + type(node).__name__)\n',
  'py/pkg/gen.py': 'from pkg.visitor import NodeVisitor\n\nclass Gen(NodeVisitor):\n    def visit_Name(self, node):\n        return node\n',
  'ts/src/shape.ts': 'export class Shape {\n  area(): number { return 0; }\n}\nexport function make(): Shape { return new Shape(); }\n',
  'ts/src/circle.ts': 'import { Shape } from "./shape";\nexport class Circle extends Shape {\n  radius(): number { return this.area(); }\n}\n',
  'ts/src/index.ts': 'export * from "./shape";\nexport { Circle as Round } from "./circle";\n',
  'ts/src/app.ts': 'import { make, Round } from "./index";\nexport function run(): number {\n  const c = new Round();\n  return c.radius() + make().area();\n}\n',
  'rs/src/thing.rs': 'pub struct Thing;\n',
  'rs/src/make.rs': 'impl Thing {\n    pub fn make() -> Thing { Thing }\n    pub fn size(&self) -> u8 { 1 }\n}\n',
  'rs/src/more.rs': 'impl Thing {\n    pub fn twice(&self) -> u8 { self.size() + self.size() }\n}\n',
  'rs/src/main.rs': 'fn main() {\n    let t = Thing::make();\n    t.size();\n}\n',
  'go/store/store.go': 'package store\n\ntype Store struct{}\n',
  'go/store/ops.go': 'package store\n\nfunc (s *Store) Get() int { return s.Put() }\n\nfunc (s *Store) Put() int { return 1 }\n',
  'go/store/use.go': 'package store\n\nfunc Use() int {\n\ts := &Store{}\n\treturn s.Get()\n}\n',
  'py/pkg/hooks.py': 'from pkg.base import Base\n\nclass Hooked(Base):\n    def hook(self):\n        return 1\n',
  'rb/lib/helpers.rb': 'module Web\n  module Helpers\n    def redirect(uri)\n      halt(302)\n    end\n  end\nend\n',
  'rb/lib/base.rb': 'module Web\n  class App\n    include Helpers\n\n    def halt(code)\n      code\n    end\n  end\nend\n',
  'java/src/Animal.java': 'package zoo;\n\nclass Animal {\n    String name() { return ""; }\n}\n',
  'java/src/Dog.java': 'package zoo;\n\nclass Dog extends Animal {\n    String bark() { return name(); }\n}\n',
};

const comment = (path: string) => (path.endsWith('.py') || path.endsWith('.rb') ? '#' : '//');

describe('graph: a new process resolves an edit reading definitions on demand', () => {
  let ws: TempWorkspace;
  afterEach(() => ws?.remove());

  /** One index run in an engine of its own (a new process: no resolver tables from an earlier run). */
  const runAlone = async () => {
    const e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    try { return (await e.index()).repos[0]!; } finally { e.close(); }
  };

  it('every file edited in a new process (bodies only) leaves the graph a rebuild from scratch gives', async () => {
    ws = tempWorkspace(FILES);
    assert.equal((await runAlone()).graph_update, 'full');
    // a call added inside a body, then a trailing comment on every file: each re-resolved alone
    ws.write('py/pkg/service.py', FILES['py/pkg/service.py']!.replace('    return m.load()\n', '    m.save()\n    return m.load()\n'));
    assert.equal((await runAlone()).graph_update, 'partial');
    const now: Record<string, string> = { ...FILES, 'py/pkg/service.py': FILES['py/pkg/service.py']!.replace('    return m.load()\n', '    m.save()\n    return m.load()\n') };
    for (const path of Object.keys(FILES)) {
      ws.write(path, `${now[path]}${comment(path)} edited\n`);
      const r = await runAlone();
      assert.equal(r.graph_update, 'partial', path);
      assert.equal(r.files_parsed, 1, path);
    }
    const partial = await graphOf(ws.db); const rebuilt = await freshGraph(ws.root);
    for (const want of ['py/pkg/service.py#serve -> py/pkg/base.py#Base.save calls', 'py/pkg/model.py#Model.load -> py/pkg/base.py#Base.save calls',
      'ts/src/app.ts#run -> ts/src/circle.ts#Circle.radius calls', 'rs/src/main.rs#main -> rs/src/make.rs#Thing.make calls',
      'go/store/use.go#Use -> go/store/ops.go#Store.Get calls',
      'py/pkg/visitor.py#NodeVisitor.get_visitor -> py/pkg/gen.py#Gen.visit_Name references', 'java/src/Dog.java#Dog -> java/src/Animal.java#Animal extends',
      'py/pkg/base.py#Base.save -> py/pkg/hooks.py#Hooked.hook calls', 'rb/lib/helpers.rb#Web.Helpers.redirect -> rb/lib/base.rb#Web.App.halt calls']) {
      assert.ok(partial.edges.some(x => x.startsWith(want)), `${want}\n${partial.edges.join('\n')}`);
    }
    assert.deepEqual(partial.edges, rebuilt.edges);
    assert.deepEqual(partial.unbound, rebuilt.unbound);
  });

  it('an edit that needs the member map of a class whose bases lead into a cycle is resolved with the whole tables', async () => {
    ws = tempWorkspace({
      'a.py': 'class A(C):\n    def fa(self):\n        return self.fa()\n',
      'b.py': 'class B(A):\n    def fb(self):\n        return self.fc()\n',
      'c.py': 'class C(B):\n    def fc(self):\n        return 1\n',
      'd.py': 'class D(B):\n    def fd(self):\n        return self.fa()\n',
      'free.py': 'class Free:\n    def f(self):\n        return self.g()\n    def g(self):\n        return 2\n',
    });
    await runAlone();
    ws.write('free.py', 'class Free:\n    def f(self):\n        x = 0\n        return self.g()\n    def g(self):\n        return 2\n');
    assert.equal((await runAlone()).graph_update, 'partial');
    ws.write('d.py', 'class D(B):\n    def fd(self):\n        y = 1\n        return self.fa()\n');
    assert.equal((await runAlone()).graph_update, 'partial');
    ws.write('b.py', 'class B(A):\n    def fb(self):\n        x = 1\n        return self.fc()\n');
    assert.equal((await runAlone()).graph_update, 'partial');
    assert.deepEqual((await graphOf(ws.db)).edges, (await freshGraph(ws.root)).edges);
  });
});
