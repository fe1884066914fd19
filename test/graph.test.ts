/** The heuristic graph per language (resolution tiers, aliases, receivers) and the graph tools. */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { freshGraph, graphOf } from './helpers/graph';
import { Engine } from '../src/core/engine';
import { TOOLS } from '../src/core/tools/registry';
import { invokeTool } from '../src/core/tools/contract';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';
import { sp } from './helpers/nodes';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function setup(files: Record<string, string>, opts: { allowReferenceProviders?: boolean } = {}): Promise<{ ws: TempWorkspace; e: Engine; call: (tool: keyof typeof TOOLS, args: Json) => Promise<Json> }> {
  const ws = tempWorkspace(files);
  const e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0, allowReferenceProviders: opts.allowReferenceProviders });
  await e.index();
  const call = async (tool: keyof typeof TOOLS, args: Json) => {
    const out = await invokeTool(TOOLS[tool] as never, args, { engine: e });
    if (!out.ok) throw new Error(`${tool}: ${JSON.stringify(out.error)}`);
    return { ...out.data, markdown: out.markdown } as Json;
  };
  return { ws, e, call };
}

/** Callers of a symbol as "path:symbol_path (evidence tier)". */
async function callers(call: (t: keyof typeof TOOLS, a: Json) => Promise<Json>, symbol: string, path?: string): Promise<string[]> {
  const r = await call('find_references', { symbol, ...(path ? { path } : {}), kinds: ['calls'] });
  return r.references.map((x: Json) => `${x.from.path}:${sp(x.from) ?? ''}`).sort();
}

describe('graph: heuristic provider', () => {
  const done: (() => void)[] = [];
  afterEach(() => { while (done.length) done.pop()!(); });
  const make = async (files: Record<string, string>, opts = {}) => { const s = await setup(files, opts); done.push(() => { s.e.close(); s.ws.remove(); }); return s; };

  it('Java: a static call on a type the repository does not define binds to nothing, even when the scope names a class with that method', async () => {
    const { call } = await make({
      'src/CharacterRef.java': 'package p;\n\nclass CharacterRef {\n    String toString(int v, int radix) { return \"\"; }\n}\n',
      'src/Build.java': 'package p;\n\nclass Build {\n    String d(CharacterRef ref, int v) {\n        String a = Integer.toString(v, 16);\n        return ref.toString(v, 10);\n    }\n}\n',
    });
    const r = await call('find_references', { symbol: 'CharacterRef.toString', kinds: ['calls'] });
    assert.deepEqual(r.references.map((x: Json) => x.line ?? x.range?.start_line), [6], JSON.stringify(r.references));
  });

  it('TypeScript: import aliases, re-export barrels, new X().m(), this.m()', async () => {
    const { call } = await make({
      'src/worker.ts': 'export class Worker {\n  run(): number { return this.step(); }\n  step(): number { return 1; }\n}\nexport function makeWorker() { return new Worker(); }\n',
      'src/index.ts': "export { Worker, makeWorker as create } from './worker';\n",
      'src/app.ts': "import { Worker as W, create } from './index';\nexport function main() {\n  new W().run();\n  return create();\n}\n",
    });
    assert.deepEqual(await callers(call, 'Worker.step'), ['src/worker.ts:Worker.run']);
    assert.deepEqual(await callers(call, 'Worker.run'), ['src/app.ts:main']);
    const r = await call('find_references', { symbol: 'Worker.run', kinds: ['calls'] });
    assert.equal(r.references[0].provider, 'heuristic');
    assert.equal(r.references[0].resolution, 'best_effort');
    assert.match(r.references[0].evidence, /main calls Worker\.run at src\/app\.ts:3/);
    assert.deepEqual(await callers(call, 'makeWorker'), ['src/app.ts:main'], 'through the barrel and the alias');
  });

  it('TypeScript private members: named as indexed (Ky.#retry) or without the sigil; a not_found suggestion resolves', async () => {
    const { call } = await make({
      'src/ky.ts': 'export class Ky {\n  #retry(n: number) { return n + 1; }\n  send() { return this.#retry(1); }\n}\n',
    });
    const exact = await call('impact', { symbol: 'Ky.#retry', path: 'src/ky.ts' });
    assert.equal(sp(exact.resolved[0]), 'Ky.#retry');
    const bare = await call('impact', { symbol: 'retry' });
    assert.equal(sp(bare.resolved[0]), 'Ky.#retry');
    assert.equal(bare.matched_by, 'private member #retry');
    // the suggestion an agent gets for a near miss is itself a valid argument
    const err = await call('impact', { symbol: 'Ky.#retyr' }).then(() => null, (x: Error) => JSON.parse(x.message.slice(x.message.indexOf('{'))) as { details: { suggestions: string[] } });
    assert.ok(err, 'a near miss is not found');
    const suggestion = err.details.suggestions[0]!;
    assert.equal(sp((await call('impact', { symbol: suggestion })).resolved[0]), 'Ky.#retry');
  });

  it('TypeScript barrels: export * from, export * as ns, renamed re-exports', async () => {
    const { call } = await make({
      'src/util.ts': 'export function normalize(x: string) { return x; }\n',
      'src/checks.ts': 'export function _lte(n: number) { return n; }\n',
      'src/all.ts': 'export function everything() { return 1; }\n',
      'src/date.ts': 'export function create() { return new Date(); }\n',
      'src/index.ts': "import { create as dateCreate } from './date';\nexport * as util from './util';\nexport { _lte as lte } from './checks';\nexport * from './all';\nexport { dateCreate as date };\n",
      'src/app.ts': "import { util, lte, everything, date } from './index';\nexport function run() {\n  util.normalize('a');\n  lte(1);\n  date();\n  return everything();\n}\n",
    });
    assert.deepEqual(await callers(call, 'normalize'), ['src/app.ts:run']);
    assert.deepEqual(await callers(call, '_lte'), ['src/app.ts:run']);
    assert.deepEqual(await callers(call, 'everything'), ['src/app.ts:run']);
    assert.deepEqual(await callers(call, 'create'), ['src/app.ts:run'], 'through a local export { dateCreate as date }');
  });

  it('TypeScript monorepos: a bare specifier naming a workspace package resolves to its source; built-ins and externals do not', async () => {
    const { call } = await make({
      'packages/kit/src/index.ts': "export * from './strings';\nimport * as k from './strings';\nexport { k };\n",
      'packages/kit/src/strings.ts': 'export function shout(s: string) { return s.toUpperCase(); }\nexport function join(a: string, b: string) { return a + b; }\n',
      'packages/kit/src/v2/index.ts': 'export function shout(s: string) { return s + "!"; }\n',
      'packages/app/src/main.ts': "import { shout } from 'kit';\nimport * as v2 from '@acme/kit/v2';\nimport { k } from 'kit';\nimport { join } from 'path';\nexport function main() {\n  shout('a');\n  v2.shout('b');\n  k.shout('c');\n  return join('x', 'y');\n}\n",
    });
    const r = await call('find_references', { symbol: 'shout', path: 'packages/kit/src/strings.ts', kinds: ['calls'] });
    assert.deepEqual(r.references.map((x: Json) => `${x.from.path}:${sp(x.from)}`), ['packages/app/src/main.ts:main']);
    assert.match(r.references[0].evidence, /imported kit/);
    assert.equal(r.references[0].confidence, 0.8);
    const v2 = await call('find_references', { symbol: 'shout', path: 'packages/kit/src/v2/index.ts', kinds: ['calls'] });
    assert.deepEqual(v2.references.map((x: Json) => sp(x.from)), ['main'], 'a scoped specifier with a subpath');
    // node's path.join is not the workspace's join (a built-in module name never names a workspace package)
    const j = await call('find_references', { symbol: 'join', path: 'packages/kit/src/strings.ts', kinds: ['calls'] });
    assert.ok(j.references.every((x: Json) => x.confidence < 0.5), JSON.stringify(j.references.map((x: Json) => x.evidence)));
  });

  it('fluent chains on the instance bind to the enclosing class or its bases, below the self tier', async () => {
    const { call } = await make({
      'src/schema.ts': 'export class Schema {\n  clone(): this { return this; }\n  test(n: number): this { return this; }\n  resolve(o: object): this { return this; }\n}\n',
      'src/string.ts': "import { Schema } from './schema';\nexport class StringSchema extends Schema {\n  trim() { return this.clone().test(1); }\n  describe(o?: object) { return (o ? this.resolve(o) : this).clone(); }\n  other() { return this.items.test(2); }\n  items = new Schema();\n}\n",
    });
    const r = await call('find_references', { symbol: 'Schema.test', kinds: ['calls'] });
    const trim = r.references.find((x: Json) => sp(x.from) === 'StringSchema.trim');
    assert.ok(trim, JSON.stringify(r.references));
    assert.equal(trim.confidence, 0.6);
    assert.match(trim.evidence, /call chain on the instance of StringSchema/);
    const other = r.references.find((x: Json) => sp(x.from) === 'StringSchema.other');
    assert.ok(!other || !/call chain on the instance/.test(other.evidence), 'a field is not the instance');
    assert.deepEqual(await callers(call, 'Schema.clone'), ['src/string.ts:StringSchema.describe', 'src/string.ts:StringSchema.trim']);
  });

  it('Python: from-import aliases, module aliases, self.m(), Class().m()', async () => {
    const { call } = await make({
      'pkg/__init__.py': '',
      'pkg/store.py': 'class Store:\n    def save(self, x):\n        return self.validate(x)\n\n    def validate(self, x):\n        return x\n\ndef open_store():\n    return Store()\n',
      'pkg/cli.py': 'from pkg.store import Store as S\nimport pkg.store as st\n\ndef main():\n    S().save(1)\n    return st.open_store()\n',
    });
    assert.deepEqual(await callers(call, 'Store.validate'), ['pkg/store.py:Store.save']);
    assert.deepEqual(await callers(call, 'Store.save'), ['pkg/cli.py:main']);
    assert.deepEqual(await callers(call, 'open_store'), ['pkg/cli.py:main']);
  });

  it('self calls follow base classes defined in files indexed later', async () => {
    const { call } = await make({
      'a/child.py': 'from z.base import Base\n\nclass Child(Base):\n    def run(self):\n        return self.helper()\n',
      'z/base.py': 'class Base:\n    def helper(self):\n        return 1\n',
    });
    assert.deepEqual(await callers(call, 'Base.helper'), ['a/child.py:Child.run']);
  });

  it('super calls bind to the base class; functions nested in another function are never global candidates', async () => {
    const { call } = await make({
      'shapes.py': 'class Base:\n    def area(self):\n        return 0\n\nclass Square(Base):\n    def area(self):\n        return super().area() + 1\n',
      'util.ts': 'export function outer() {\n  function helperOnly() { return 1; }\n  return helperOnly();\n}\n',
      'other.ts': 'export function user(o: any) { return o.helperOnly(); }\nexport function plain() { return helperOnly(); }\ndeclare function helperOnly(): number;\n',
    });
    assert.deepEqual(await callers(call, 'Base.area'), ['shapes.py:Square.area']);
    assert.deepEqual(await callers(call, 'outer.helperOnly'), ['util.ts:outer']);
  });

  it('Go: package-qualified calls and methods by receiver type', async () => {
    const { call } = await make({
      'go.mod': 'module example.com/app\n',
      'util/strings.go': 'package util\n\nfunc Clean(s string) string { return s }\n',
      'main.go': 'package main\n\nimport u "example.com/app/util"\n\ntype Worker struct{}\n\nfunc (w *Worker) Run() string { return w.name() }\n\nfunc (w *Worker) name() string { return u.Clean("x") }\n\nfunc main() { w := &Worker{}; w.Run() }\n',
    });
    assert.deepEqual(await callers(call, 'Clean'), ['main.go:Worker.name']);
    assert.deepEqual(await callers(call, 'Worker.Run'), ['main.go:main']);
  });

  it('Java and Rust: constructor receivers and impl methods', async () => {
    const { call } = await make({
      'src/Worker.java': 'class Worker {\n  int run() { return step(); }\n  int step() { return 1; }\n}\n',
      'src/Main.java': 'class Main {\n  public static void main(String[] a) { new Worker().run(); }\n}\n',
      'src/lib.rs': 'pub struct Engine;\nimpl Engine {\n    pub fn new() -> Engine { Engine }\n    pub fn start(&self) -> u8 { self.tick() }\n    fn tick(&self) -> u8 { 1 }\n}\npub fn boot() -> u8 { Engine::new().start() }\n',
    });
    assert.deepEqual(await callers(call, 'Worker.run'), ['src/Main.java:Main.main']);
    assert.deepEqual(await callers(call, 'Worker.step'), ['src/Worker.java:Worker.run']);
    assert.deepEqual(await callers(call, 'Engine.tick'), ['src/lib.rs:Engine.start']);
    assert.deepEqual(await callers(call, 'Engine.new'), ['src/lib.rs:boot']);
  });

  it('C#, Ruby, PHP, C and C++: same-class calls, constructed receivers, includes', async () => {
    const { call, e } = await make({
      'App/Repo.cs': 'namespace App {\n  class Repo {\n    public int Get() { return Load(); }\n    int Load() { return 1; }\n  }\n  class Main { void Run() { new Repo().Get(); } }\n}\n',
      'lib/store.rb': 'class Store\n  def save\n    self.flush\n  end\n  def flush; end\nend\ndef main\n  Store.new.save\nend\n',
      'src/Store.php': '<?php\nclass Store {\n  function save() { return $this->validate(); }\n  function validate() { return 1; }\n}\nfunction main() { return (new Store())->save(); }\n',
      'c/util.h': 'int helper(int x);\n',
      'c/util.c': '#include "util.h"\nint helper(int x) { return x; }\n',
      'c/run.c': '#include "util.h"\nint run(void) { return helper(2); }\n',
      'cpp/store.cpp': 'class Box {\n public:\n  int open() { return check(); }\n  int check() { return 1; }\n};\nint use() { Box b; return b.open(); }\n',
    });
    assert.deepEqual(await callers(call, 'App.Repo.Load'), ['App/Repo.cs:App.Repo.Get']);
    assert.deepEqual(await callers(call, 'App.Repo.Get'), ['App/Repo.cs:App.Main.Run']);
    assert.deepEqual(await callers(call, 'Store.flush', 'lib/store.rb'), ['lib/store.rb:Store.save']);
    assert.deepEqual(await callers(call, 'Store.save', 'lib/store.rb'), ['lib/store.rb:main']);
    assert.deepEqual(await callers(call, 'Store.validate', 'src/Store.php'), ['src/Store.php:Store.save']);
    assert.deepEqual(await callers(call, 'Store.save', 'src/Store.php'), ['src/Store.php:main']);
    assert.deepEqual(await callers(call, 'helper', 'c/util.c'), ['c/run.c:run']);
    assert.deepEqual(await callers(call, 'Box.check'), ['cpp/store.cpp:Box.open']);
    const open = await call('find_references', { symbol: 'Box.open', kinds: ['calls'] });
    assert.equal(sp(open.references[0].from), 'use');
    assert.match(open.references[0].evidence, /the one class the calling scope names/, 'b is declared as a Box in use(): scope_type');
    assert.ok(open.references[0].confidence < 0.9);
    // the core edge record carries the tier read from the stored evidence code (the tools' output does not)
    const g = await e.graph();
    const box = g.lookup('Box.open')[0]!;
    assert.deepEqual(g.edges(box, 'in', ['calls']).map(e => e.edge.tier), ['scope_type']);
    assert.ok(!('tier' in open.references[0]));
    const inc = await call('find_references', { symbol: 'file:' + (await call('index_status', {})).roots[0].repo_id + ':c/util.h', kinds: ['imports'] });
    assert.deepEqual(inc.references.map((x: Json) => x.from.path).sort(), ['c/run.c', 'c/util.c']);
  });

  it('Kotlin, Scala and shell: calls inside a class, members of an object, functions of a script', async () => {
    const { call } = await make({
      'app/Jobs.kt': 'class Jobs {\n  fun run(): Int = step() + 1\n  private fun step(): Int = 1\n}\nobject Registry {\n  fun start() = Jobs().run()\n}\n',
      'app/Ledger.scala': 'class Ledger {\n  def post(x: Int): Int = check(x)\n  def check(x: Int): Int = x\n}\nobject Books {\n  def open(): Int = new Ledger().post(1)\n}\n',
      'bin/deploy.sh': '#!/bin/sh\nbuild() { echo build; }\ndeploy() {\n  build\n}\ndeploy\n',
    });
    assert.deepEqual(await callers(call, 'Jobs.step'), ['app/Jobs.kt:Jobs.run']);
    assert.deepEqual(await callers(call, 'Jobs.run'), ['app/Jobs.kt:Registry.start']);
    assert.deepEqual(await callers(call, 'Ledger.check'), ['app/Ledger.scala:Ledger.post']);
    assert.deepEqual(await callers(call, 'Ledger.post'), ['app/Ledger.scala:Books.open']);
    assert.deepEqual(await callers(call, 'build'), ['bin/deploy.sh:deploy']);
    const status = await call('index_status', {});
    assert.deepEqual(status.languages.map((l: Json) => l.language).sort(), ['bash', 'kotlin', 'scala']);
  });

  it('Lua, Swift and Dart: methods of a table, a type or a class and their callers', async () => {
    const { call } = await make({
      'src/queue.lua': 'local Queue = {}\nfunction Queue:push(x)\n  return self:grow(x)\nend\nfunction Queue:grow(x)\n  return x\nend\nlocal function drain(q)\n  return q:push(1)\nend\n',
      'Sources/Cart.swift': 'class Cart {\n  func total() -> Int { return tax() }\n  func tax() -> Int { return 1 }\n}\nfunc checkout() -> Int { return Cart().total() }\n',
      'lib/meter.dart': 'class Meter {\n  int read() {\n    return scale(1);\n  }\n  int scale(int x) => x;\n}\nint probe() {\n  return Meter().read();\n}\n',
    });
    assert.deepEqual(await callers(call, 'Queue.grow'), ['src/queue.lua:Queue.push']);
    assert.deepEqual(await callers(call, 'Cart.tax'), ['Sources/Cart.swift:Cart.total']);
    assert.deepEqual(await callers(call, 'Cart.total'), ['Sources/Cart.swift:checkout']);
    assert.deepEqual(await callers(call, 'Meter.scale'), ['lib/meter.dart:Meter.read']);
    assert.deepEqual(await callers(call, 'Meter.read'), ['lib/meter.dart:probe']);
  });

  it('Elixir: a function of the same module, and one named with its module', async () => {
    const { call } = await make({
      'lib/cart.ex': 'defmodule Shop.Cart do\n  def total(x), do: tax(x)\n  defp tax(x), do: x\nend\n',
      'lib/checkout.ex': 'defmodule Shop.Checkout do\n  def full, do: Shop.Cart.total(2)\nend\n',
    });
    assert.deepEqual(await callers(call, 'Shop.Cart.tax'), ['lib/cart.ex:Shop.Cart.total']);
    assert.deepEqual(await callers(call, 'Shop.Cart.total'), ['lib/checkout.ex:Shop.Checkout.full']);
  });

  it('Zig: methods of a struct through self and through a value, and free functions', async () => {
    const { call } = await make({
      'src/pool.zig': 'pub const Pool = struct {\n    size: u32,\n    pub fn grow(self: *Pool) u32 {\n        return self.add(1);\n    }\n    fn add(self: *Pool, n: u32) u32 {\n        return self.size + n;\n    }\n};\n\npub fn main() void {\n    var p = Pool{ .size = 1 };\n    _ = p.grow();\n}\n',
    });
    assert.deepEqual(await callers(call, 'Pool.add'), ['src/pool.zig:Pool.grow']);
    assert.deepEqual(await callers(call, 'Pool.grow'), ['src/pool.zig:main']);
  });

  it('Vue and Svelte: their script blocks call into TypeScript modules, and a component imports another by its file name', async () => {
    const { call } = await make({
      'src/cart.ts': 'export function useCart() {\n  return { lines: [] };\n}\n',
      'src/Cart.vue': '<template>\n  <div>{{ cart.lines }}</div>\n</template>\n\n<script setup lang="ts">\nimport { useCart } from "./cart";\nconst cart = useCart();\nfunction refresh() {\n  return useCart();\n}\n</script>\n',
      'src/Orders.svelte': '<script>\n  import { useCart } from "./cart";\n  function load() {\n    return useCart();\n  }\n</script>\n\n<p>orders</p>\n',
    });
    assert.deepEqual((await callers(call, 'useCart')).sort(), ['src/Cart.vue:', 'src/Cart.vue:refresh', 'src/Orders.svelte:load']);
  });

  it('a name shared by many definitions never becomes a confident edge; two get low-confidence edges', async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 5; i++) many[`m${i}.py`] = `class C${i}:\n    def close(self):\n        return ${i}\n`;
    const { call } = await make({
      ...many,
      'pair_a.py': 'class A:\n    def flush(self):\n        return 1\n',
      'pair_b.py': 'class B:\n    def flush(self):\n        return 2\n',
      'use.py': 'def shutdown(x, y):\n    x.close()\n    y.flush()\n',
    });
    const close = await call('impact', { symbol: 'C0.close' });
    assert.equal(close.total_affected, 0);
    assert.equal(close.complete, false);
    assert.ok(close.boundaries.some((b: Json) => b.kind === 'dynamic_names' && /close\(\) could not be bound/.test(b.detail)), JSON.stringify(close.boundaries));
    assert.match(close.markdown, /not\*\* "no impact"/);
    const flush = await call('find_references', { symbol: 'A.flush', kinds: ['calls'] });
    assert.equal(flush.references.length, 1);
    assert.ok(flush.references[0].confidence < 0.5);
    assert.ok(flush.boundaries.some((b: Json) => b.kind === 'ambiguous_dispatch'));
  });

  it('an edit that changes only bodies re-resolves just that file, and the graph equals a rebuild from scratch', async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 5; i++) many[`pkg/m${i}.py`] = `class C${i}:\n    def close(self):\n        return ${i}\n`;
    const files: Record<string, string> = {
      ...many,
      'pkg/base.py': 'class Base:\n    def save(self):\n        return 1\n',
      'pkg/model.py': 'from pkg.base import Base\n\nclass Model(Base):\n    def load(self):\n        return self.save()\n',
      'pkg/service.py': 'from pkg.model import Model\n\ndef serve(x):\n    m = Model()\n    return m.load()\n',
      'tests/test_service.py': 'from pkg.service import serve\n\ndef test_serve():\n    assert serve(1)\n',
    };
    const { ws, e } = await make(files);
    const edit = async (path: string, text: string) => { ws.write(path, text); const r = await e.index(); return r.repos[0]!; };
    // bodies only: new calls (one across files, one to a name with too many definitions), lines shifted
    let r = await edit('pkg/service.py', 'from pkg.model import Model\n\n\ndef serve(x):\n    m = Model()\n    x.close()\n    m.save()\n    return m.load()\n');
    assert.equal(r.graph_update, 'partial');
    assert.ok(r.edges_written! > 0 && r.edges_written! < 20, `only that file's edges: ${r.edges_written}`);
    r = await edit('pkg/service.py', 'from pkg.model import Model\n\n\ndef serve(x):\n    m = Model()\n    x.close()\n    x.close()\n    m.save()\n    return m.load()\n');
    assert.equal(r.graph_update, 'partial');
    r = await edit('tests/test_service.py', 'from pkg.service import serve\n\ndef test_serve():\n    assert serve(1)\n    assert serve(2)\n');
    assert.equal(r.graph_update, 'partial');
    e.close();
    const partial = await graphOf(ws.db); const rebuilt = await freshGraph(ws.root);
    assert.ok(partial.edges.some(x => x.startsWith('pkg/service.py#serve -> pkg/base.py#Base.save calls')), partial.edges.join('\n'));
    assert.deepEqual(partial.edges, rebuilt.edges);
    assert.deepEqual(partial.unbound, rebuilt.unbound);
    assert.deepEqual(partial.unbound, [['close', 2]], 'the edited file\'s unbound calls replace its old count');
    // a new definition (or import, or base class) reshapes the file: the whole graph is rebuilt
    const e2 = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 }); done.push(() => e2.close());
    ws.write('pkg/base.py', 'class Base:\n    def save(self):\n        return 1\n    def drop(self):\n        return 0\n');
    assert.equal((await e2.index()).repos[0]!.graph_update, 'full');
    assert.equal((await e2.index()).repos[0]!.graph_update, 'none', 'nothing changed: the graph is kept');
  });

  it('a run stopped after the files of a root were written leaves its graph to the next run, which rebuilds it', async () => {
    const a = tempWorkspace({ 'lib.py': 'def helper():\n    return 1\n\ndef other():\n    return 2\n', 'use.py': 'from lib import helper\n\ndef run():\n    return helper()\n' });
    const b = tempWorkspace({ 'b.py': 'def beta():\n    pass\n' });
    done.push(a.remove, b.remove);
    const e = await Engine.open({ roots: [a.root, b.root], dbPath: a.db, threads: 0 }); done.push(() => e.close());
    await e.index();
    a.write('use.py', 'from lib import helper\n\ndef run():\n    other()\n    return helper()\n'); // bodies only
    const ac = new AbortController();
    const repoB = e.roots[1]!.repo_id;
    await assert.rejects(e.index({ signal: ac.signal, onProgress: p => { if (p.repo_id === repoB) ac.abort(); } }),
      (err: Error & { code?: string }) => err.code === 'cancelled');
    const stale = await invokeTool(TOOLS.find_references as never, { symbol: 'helper', kinds: ['calls'] }, { engine: e });
    assert.ok(stale.ok && (stale.data as Json).boundaries.some((b: Json) => b.kind === 'stale_graph'), JSON.stringify(stale));
    assert.equal((stale.data as Json).complete, false);
    const r = await e.index();
    assert.equal(r.repos[0]!.files_parsed, 0, 'the edit was kept by the cancelled run');
    assert.equal(r.repos[0]!.graph_update, 'full', 'and its graph is rebuilt now');
    const refs = await invokeTool(TOOLS.find_references as never, { symbol: 'other', kinds: ['calls'] }, { engine: e });
    assert.ok(refs.ok && (refs.data as Json).references.some((x: Json) => sp(x.from) === 'run'), JSON.stringify(refs));
    assert.ok(!(refs.data as Json).boundaries.some((b: Json) => b.kind === 'stale_graph'));
    assert.equal((await e.index()).repos[0]!.graph_update, 'none');
  });

  it('partial updates reuse the tables of the previous update, and a full build in between replaces them', async () => {
    const { ws, e } = await make({
      'pkg/base.py': 'class Base:\n    def save(self):\n        return 1\n',
      'pkg/model.py': 'from pkg.base import Base\n\nclass Model(Base):\n    def load(self):\n        return self.save()\n',
      'pkg/service.py': 'from pkg.model import Model\n\ndef serve():\n    m = Model()\n    return m.load()\n',
    });
    const edit = async (path: string, text: string) => { ws.write(path, text); return (await e.index()).repos[0]!.graph_update; };
    assert.equal(await edit('pkg/service.py', 'from pkg.model import Model\n\ndef serve():\n    m = Model()\n    m.save()\n    return m.load()\n'), 'partial');
    assert.equal(await edit('pkg/base.py', 'class Base:\n    def save(self):\n        return 1\n    def drop(self):\n        return 0\n'), 'full');
    assert.equal(await edit('pkg/service.py', 'from pkg.model import Model\n\ndef serve():\n    m = Model()\n    m.drop()\n    return m.load()\n'), 'partial');
    assert.equal(await edit('pkg/model.py', 'from pkg.base import Base\n\nclass Model(Base):\n    def load(self):\n        self.drop()\n        return self.save()\n'), 'partial');
    e.close();
    const g = await graphOf(ws.db);
    assert.ok(g.edges.some(x => x.startsWith('pkg/service.py#serve -> pkg/base.py#Base.drop calls')), g.edges.join('\n'));
    assert.ok(g.edges.some(x => x.startsWith('pkg/model.py#Model.load -> pkg/base.py#Base.drop calls')), g.edges.join('\n'));
    assert.deepEqual(g.edges, (await freshGraph(ws.root)).edges);
  });

  it('cyclic base classes: a partial update sees the member maps a full build sees', async () => {
    const { ws, e } = await make({
      'a.py': 'class A(C):\n    def fa(self):\n        return self.fa()\n',
      'b.py': 'class B(A):\n    def fb(self):\n        return self.fc()\n',
      'c.py': 'class C(B):\n    def fc(self):\n        return 1\n',
    });
    ws.write('b.py', 'class B(A):\n    def fb(self):\n        x = 1\n        return self.fc()\n');
    assert.equal((await e.index()).repos[0]!.graph_update, 'partial');
    e.close();
    assert.deepEqual((await graphOf(ws.db)).edges, (await freshGraph(ws.root)).edges);
  });

  it('the graph does not depend on the order files were written in (ties go to the first path)', async () => {
    const { ws, e } = await make({
      'src/thing.rs': 'pub struct Thing;\n',
      'src/a/one.rs': 'impl Thing {\n    pub fn make() -> u8 { 1 }\n}\n',
      'src/b/two.rs': 'impl Thing {\n    pub fn make() -> u8 { 2 }\n}\n',
      'src/main.rs': 'fn main() {\n    Thing::make();\n}\n',
    });
    // a/one.rs is written again (a new definition): its rows now come after b/two.rs's
    ws.write('src/a/one.rs', 'impl Thing {\n    pub fn make() -> u8 { 1 }\n    pub fn other() -> u8 { 3 }\n}\n');
    assert.equal((await e.index()).repos[0]!.graph_update, 'full');
    e.close();
    const again = await graphOf(ws.db);
    assert.ok(again.edges.some(x => x.startsWith('src/main.rs#main -> src/a/one.rs#Thing.make calls')), again.edges.join('\n'));
    assert.deepEqual(again.edges, (await freshGraph(ws.root)).edges);
  });

  it('impact: a method seeds its class and file (via_container), lists tests and entry points', async () => {
    const { call } = await make({
      'app/billing.py': 'class Invoice:\n    def total(self):\n        return 1\n\n    def render(self):\n        return str(self.total())\n\ndef export_all(inv: Invoice):\n    return inv.render()\n',
      'app/report.py': 'from app.billing import Invoice\n\ndef monthly():\n    return Invoice().total()\n\ndef build():\n    return Invoice()\n',
      'tests/test_billing.py': 'from app.billing import Invoice\n\ndef test_total():\n    assert Invoice().total() == 1\n',
    });
    const r = await call('impact', { symbol: 'Invoice.total', depth: 3 });
    const direct = r.affected.filter((a: Json) => !a.via_container).map((a: Json) => sp(a.node)).sort();
    assert.ok(direct.includes('monthly') && direct.includes('Invoice.render'), JSON.stringify(direct));
    const viaContainer = r.affected.filter((a: Json) => a.via_container).map((a: Json) => sp(a.node));
    assert.ok(viaContainer.includes('build'), `build depends only on the class: ${JSON.stringify(viaContainer)}`);
    assert.ok(r.related_tests.some((t: Json) => t.node.path === 'tests/test_billing.py'));
    assert.ok(r.affected_by_module.app >= 2);
    assert.equal(r.total_direct, r.affected.filter((a: Json) => !a.via_container && a.distance === 1).length);
    // export_all reaches the target itself (through render): never labelled via_container
    const exportAll = r.affected.find((a: Json) => sp(a.node) === 'export_all');
    assert.ok(exportAll && exportAll.via_container === false && exportAll.distance === 2, JSON.stringify(exportAll));
    assert.ok(r.affected_entry_points.some((n: Json) => sp(n) === 'monthly'));
    assert.equal(r.complete, false, 'heuristic-only answers are lower bounds');
    assert.ok(r.boundaries.some((b: Json) => b.kind === 'heuristic_only'));
    const limited = await call('impact', { symbol: 'Invoice.total', depth: 3, limit: 1 });
    assert.equal(limited.affected.length, 1);
    assert.equal(limited.truncated, true);
    assert.equal(limited.total_affected, r.total_affected);
  });

  it('impact: the function enclosing a nested target that calls it is a dependent, and so are its callers', async () => {
    const { call } = await make({
      'app/cast.py': [
        'def cast(value):', '    def check(v):', '        return list(v)', '', '    def keep(v):', '        return v', '',
        '    return check(value)', '', 'def process(value):', '    return cast(value)', '',
      ].join('\n'),
    });
    const r = await call('impact', { symbol: 'cast.check', depth: 2 });
    const direct = r.affected.filter((a: Json) => !a.via_container).map((a: Json) => [sp(a.node), a.distance]);
    assert.deepEqual(direct, [['cast', 1], ['process', 2]]);
    const other = await call('impact', { symbol: 'cast.keep', depth: 2 });
    assert.deepEqual(other.affected.filter((a: Json) => !a.via_container), [], 'an uncalled nested function: its encloser by containment only');
  });

  it('related_tests: a method-name-only call counts only when the test also reaches the class', async () => {
    const { call } = await make({
      'lib/chunkers.py': 'class TextChunker:\n    def chunk_file(self, p):\n        return p\n\nclass CodeChunker:\n    def chunk_file(self, p):\n        return p\n',
      'tests/test_text.py': 'from lib.chunkers import TextChunker\n\ndef test_text():\n    c = TextChunker()\n    assert c.chunk_file("a")\n',
      'tests/test_other.py': 'def test_other(chunker):\n    assert chunker.chunk_file("a")\n',
    });
    const r = await call('related_tests', { symbol: 'TextChunker.chunk_file' });
    const names = r.tests.map((t: Json) => sp(t.node));
    assert.ok(names.includes('test_text'), JSON.stringify(names));
    assert.ok(!names.includes('test_other'), 'an unknown receiver does not make test_other a test of TextChunker');
  });

  it('related_tests: a test reached through a long call chain (a recursive-descent parser) is found', async () => {
    const steps = 20;
    const body = Array.from({ length: steps }, (_, i) => `def parse_${i}(s):\n    return parse_${i + 1}(s)\n`).join('\n');
    const { call } = await make({
      'lib/parser.py': `${body}\ndef parse_${steps}(s):\n    return s\n`,
      'tests/test_parser.py': 'from lib.parser import parse_0\n\ndef test_parse():\n    assert parse_0("x")\n',
    });
    const r = await call('related_tests', { symbol: `parse_${steps}` });
    assert.deepEqual(r.tests.map((t: Json) => [sp(t.node), t.distance]), [['test_parse', steps + 1]]);
    assert.equal(r.complete, false, 'heuristic graph: a lower bound');
    assert.ok(!r.boundaries.some((b: Json) => b.kind === 'depth_limit'), JSON.stringify(r.boundaries));
  });

  it('impact on a symbol reached only dynamically is incomplete, never "no impact"; a compiler-grade provider completes it', async () => {
    const files = {
      'svc/handlers.py': 'def on_ping():\n    return "pong"\n',
      'svc/router.py': 'import importlib\n\ndef dispatch(name):\n    mod = importlib.import_module("svc.handlers")\n    return getattr(mod, "on_" + name)()\n',
    };
    const { ws, e, call } = await make(files, { allowReferenceProviders: true });
    const before = await call('impact', { symbol: 'on_ping' });
    assert.equal(before.total_affected, 0);
    assert.equal(before.complete, false);
    assert.ok(before.boundaries.length > 0);
    assert.match(before.markdown, /lower bound/);
    const provider = { name: 'testc', command: process.execPath, args: [join(__dirname, 'fixtures/providers/caller-edges.mjs'), 'dispatch=on_ping'], compiler_grade: true, strict: true, timeout_ms: 20000 };
    const idx = await call('index_repo', { reference_providers: [provider] });
    assert.equal(idx.providers[0].ok, true);
    assert.equal(idx.providers[0].edges, 1);
    assert.ok(idx.provider_diagnostics.some((d: Json) => d.provider === 'testc' && d.message === 'checked every symbol'));
    const after = await call('impact', { symbol: 'on_ping' });
    assert.deepEqual(after.affected.map((a: Json) => sp(a.node)), ['dispatch']);
    assert.equal(after.affected[0].resolution, 'exact');
    assert.match(after.affected[0].via, /test compiler/);
    assert.ok(!after.boundaries.some((b: Json) => b.kind === 'heuristic_only'), JSON.stringify(after.boundaries));
    // strict: an endpoint that does not resolve fails the index run
    const bad = { ...provider, name: 'testbad', args: [provider.args[0]!, 'dispatch=no_such_symbol'] };
    const out = await invokeTool(TOOLS.index_repo as never, { reference_providers: [bad] }, { engine: e });
    assert.equal(out.ok, false);
    if (!out.ok) assert.equal(out.error.code, 'provider_failed');
    const lax = await call('index_repo', { reference_providers: [{ ...bad, strict: false }] });
    assert.equal(lax.providers[0].skipped_edges, 1);
    void ws;
  });

  it('a compiler-checked function is complete only when nothing can call it without its name', async () => {
    const { call } = await make({
      'svc/app.py': [
        'def on_ping():', '    return 1', '', 'def plain():', '    return 2', '',
        'class Box:', '    def __len__(self):', '        return 0', '',
        'def register(hooks):', '    hooks.append(on_ping)', '    return plain() + len(Box())', '',
        'def sandbox_call():', '    return 3', '',
        'def chunks(size):', '    yield size', '',
        'def stream():', '    return chunks(3)', '',
      ].join('\n'),
      'web/gen.ts': 'export function* ids() { yield 1; }\nexport function first() { return ids().next(); }\n',
      'svc/codegen.py': 'def emit(out):\n    out.write("environment.sandbox_call(context)")\n',
    }, { allowReferenceProviders: true });
    const provider = { name: 'testc', command: process.execPath, args: [join(__dirname, 'fixtures/providers/caller-edges.mjs'), 'register=plain'], compiler_grade: true, strict: true, timeout_ms: 20000 };
    assert.equal((await call('index_repo', { reference_providers: [provider] })).providers[0].ok, true);
    const plain = await call('find_references', { symbol: 'plain' });
    assert.equal(plain.complete, true, JSON.stringify(plain.boundaries));
    // checked, no caller, but generated code names it: never a silent "complete, no use"
    const generated = await call('find_references', { symbol: 'sandbox_call' });
    assert.equal(generated.complete, false);
    assert.ok(generated.boundaries.some((b: Json) => b.kind === 'dynamic_names' && /named in 1 file\(s\) no edge connects to it \(svc\/codegen\.py\)/.test(b.detail)),
      JSON.stringify(generated.boundaries));
    // a generator runs where it is iterated: its callers only make it
    for (const symbol of ['chunks', 'ids']) {
      const gen = await call('find_references', { symbol });
      assert.equal(gen.complete, false, symbol);
      assert.ok(gen.boundaries.some((b: Json) => b.kind === 'implicit_calls' && /a generator, whose body runs where it is iterated/.test(b.detail)),
        JSON.stringify(gen.boundaries));
    }
    const callback = await call('find_references', { symbol: 'on_ping' });
    assert.equal(callback.complete, false);
    assert.ok(callback.boundaries.some((b: Json) => b.kind === 'implicit_calls' && /handed over as a value/.test(b.detail)), JSON.stringify(callback.boundaries));
    const len = await call('find_references', { symbol: 'Box.__len__' });
    assert.equal(len.complete, false);
    assert.ok(len.boundaries.some((b: Json) => b.kind === 'implicit_calls' && /__len__/.test(b.detail)), JSON.stringify(len.boundaries));
  });

  it('a walk is complete only when no function on the way is called without its name', async () => {
    const { call } = await make({
      'svc/app.py': [
        'import textwrap', '',
        'def plain():', '    return 2', '',
        'def mid():', '    return plain()', '',
        'def register(hooks):', '    hooks.append(mid)', '',
        'class Wrapper(textwrap.TextWrapper):', '    def _wrap_chunks(self, chunks):', '        return plain()', '',
        'class Failure(ValueError):', '    def describe(self):', '        return plain()', '',
        'class Shape:', '    @property', '    def area(self):', '        return 1', '',
        '    @staticmethod', '    def unit():', '        return 1', '',
        '@stack.callback', 'def hooked():', '    return 1', '',
      ].join('\n'),
      'tests/test_app.py': 'from svc.app import mid\n\ndef test_mid():\n    assert mid() == 2\n',
    }, { allowReferenceProviders: true });
    const edges = ['mid=plain', 'test_mid=mid', 'Wrapper._wrap_chunks=plain', 'Failure.describe=plain'];
    const provider = { name: 'testc', command: process.execPath, args: [join(__dirname, 'fixtures/providers/caller-edges.mjs'), ...edges], compiler_grade: true, strict: true, timeout_ms: 20000 };
    assert.equal((await call('index_repo', { reference_providers: [provider] })).providers[0].ok, true);
    // the target itself: nothing hides its callers
    const refs = await call('find_references', { symbol: 'plain' });
    assert.equal(refs.complete, true, JSON.stringify(refs.boundaries));
    // but the test reaches it through mid, which is also handed over as a value: more tests may reach it that way
    const tests = await call('related_tests', { symbol: 'plain' });
    assert.deepEqual(tests.tests.map((t: Json) => sp(t.node)), ['test_mid']);
    assert.equal(tests.complete, false);
    assert.ok(tests.boundaries.some((b: Json) => b.kind === 'implicit_calls' && /function\(s\) on the way are called where no edge shows it: mid handed over as a value/.test(b.detail)), JSON.stringify(tests.boundaries));
    const impact = await call('impact', { symbol: 'plain', depth: 3 });
    assert.ok(impact.boundaries.some((b: Json) => b.kind === 'implicit_calls' && /mid/.test(b.detail)), JSON.stringify(impact.boundaries));
    // a method overriding one of a base outside the workspace may be called by that base's code; an exception's is not
    const wrap = await call('find_references', { symbol: 'Wrapper._wrap_chunks' });
    assert.equal(wrap.complete, false);
    assert.ok(wrap.boundaries.some((b: Json) => b.kind === 'implicit_calls' && /base class outside the workspace \(TextWrapper\)/.test(b.detail)), JSON.stringify(wrap.boundaries));
    const describe = await call('find_references', { symbol: 'Failure.describe' });
    assert.equal(describe.complete, true, JSON.stringify(describe.boundaries));
    // a property runs on attribute reads, a decorated function may be called by its decorator; a static method is called by name
    const area = await call('find_references', { symbol: 'Shape.area' });
    assert.ok(area.boundaries.some((b: Json) => b.kind === 'implicit_calls' && /Shape.area run\(s\) on an attribute read/.test(b.detail)), JSON.stringify(area.boundaries));
    const hooked = await call('find_references', { symbol: 'hooked' });
    assert.ok(hooked.boundaries.some((b: Json) => b.kind === 'implicit_calls' && /decorator \(@callback\)/.test(b.detail)), JSON.stringify(hooked.boundaries));
    const unit = await call('find_references', { symbol: 'Shape.unit' });
    assert.equal(unit.complete, true, JSON.stringify(unit.boundaries));
  });

  it('reference providers are refused unless allowed', async () => {
    const { e } = await make({ 'a.py': 'def f():\n    return 1\n' });
    const out = await invokeTool(TOOLS.index_repo as never, { reference_providers: [{ name: 'x', command: process.execPath }] }, { engine: e });
    assert.equal(out.ok, false);
    if (!out.ok) assert.equal(out.error.code, 'providers_not_allowed');
  });

  it('expand_context and impact_analysis follow the graph from chunks and change sets', async () => {
    const { call } = await make({
      'src/db.ts': 'export class Db {\n  find(id: string) { return id; }\n}\n',
      'src/repo.ts': "import { Db } from './db';\nexport class Repo {\n  constructor(private db: Db) {}\n  get(id: string) { return this.db.find(id); }\n}\nexport function load(r: Repo) { return r.get('1'); }\n",
    });
    const seed = (await call('search_code', { query: 'Repo get', limit: 5, group: 'chunk' })).results.find((h: Json) => h.symbol_path === 'Repo.get');
    const ctx = await call('expand_context', { chunk_ids: [seed.chunk_id], depth: 1, token_budget: 4000 });
    const names = ctx.chunks.map((c: Json) => `${c.distance}:${c.symbol_path}`);
    assert.ok(names.includes('0:Repo.get'));
    assert.ok(names.some((n: string) => n === '1:Db.find'), JSON.stringify(names));
    assert.ok(names.some((n: string) => n === '1:load'), JSON.stringify(names));
    assert.ok(ctx.total_estimated_tokens <= 4000);
    const small = await call('expand_context', { chunk_ids: [seed.chunk_id], depth: 2, token_budget: 100 });
    assert.equal(small.budget_exhausted, true);
    const ia = await call('impact_analysis', { changed_files: ['src/db.ts'], changed_symbols: [], depth: 2 });
    assert.ok(ia.affected_symbols.some((a: Json) => sp(a.node) === 'Repo.get'));
    assert.notEqual(ia.risk_level, 'low', 'an incomplete answer with dependents is not low risk by default');
    assert.ok(ia.evidence.some((s: string) => s.startsWith('heuristic:')));
  });

  it('language-server edges: recorded by location, exact, re-validated when the target file changes', async () => {
    const { ws, e, call } = await make({
      'svc/core.py': 'def handle(x):\n    return x\n',
      'svc/api.py': 'from svc import core\n\nREG = {"h": core.handle}\n\ndef route(name, x):\n    return REG[name](x)\n',
    });
    const before = await call('find_references', { symbol: 'handle', kinds: ['calls', 'references'] });
    assert.ok(before.boundaries.some((b: Json) => b.kind === 'heuristic_only'));
    const r = await e.recordEditorReferences(`symbol:${e.roots[0]!.repo_id}:svc/core.py:handle`, 'lsp:python', [
      { path: join(ws.root, 'svc/core.py'), line: 1, col: 4, kind: 'references' }, // the declaration: ignored
      { path: join(ws.root, 'svc/api.py'), line: 3, col: 16, kind: 'references' },   // inside the constant REG
      { path: join(ws.root, 'svc/api.py'), line: 6, col: 11, kind: 'calls' },        // inside route
      { path: '/elsewhere/lib.py', line: 1, col: 0, kind: 'references' },            // outside the workspace: ignored
    ], true);
    assert.deepEqual(r, { stored: 2, ignored: 2 });
    const after = await call('find_references', { symbol: 'handle', kinds: ['calls', 'references'] });
    const lsp = after.references.filter((x: Json) => x.provider === 'lsp:python');
    assert.deepEqual(lsp.map((x: Json) => [sp(x.from) ?? x.from.path, x.kinds.join("+"), x.resolution]).sort(), [['REG', 'references', 'exact'], ['route', 'calls', 'exact']]);
    assert.ok(!after.boundaries.some((b: Json) => b.kind === 'heuristic_only'));
    assert.equal((await e.enrichmentTargets({ limit: 10 })).some(t => t.id.endsWith(':handle')), false, 'a fresh check is not asked again');
    e.close(); // flushes the pending save
    const e2 = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    done.push(() => e2.close());
    ws.write('svc/core.py', 'def handle(x):\n    return x * 2\n');
    await e2.index();
    const stale = await invokeTool(TOOLS.find_references as never, { symbol: 'handle', kinds: ['calls', 'references'] }, { engine: e2 });
    assert.ok(stale.ok && (stale.data as Json).boundaries.some((b: Json) => b.kind === 'heuristic_only'), 'the file changed: the check is stale');
    assert.ok((await e2.enrichmentTargets({ limit: 10 }))[0]?.id.endsWith(':handle'), 'stale checks are asked again first');
  });
});
