/**
 * Resolution rules that follow what programs do (constructors, explicit re-exports, submodule imports,
 * overloads, test fixtures): each test fails without its rule.
 */
import { strict as assert } from 'node:assert';
import { Engine } from '../src/core/engine';
import { TOOLS } from '../src/core/tools/registry';
import { invokeTool } from '../src/core/tools/contract';
import { tempWorkspace } from './helpers/workspace';
import { sp } from './helpers/nodes';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Call = (tool: keyof typeof TOOLS, args: Json) => Promise<Json>;

/** A visitor that looks its method up by the node's class name (`visit_Template`). */
const GETATTR_VISITOR = [
  'class NodeVisitor:', '    def visit(self, node):', '        f = getattr(self, f"visit_{type(node).__name__}", None)',
  '        return f(node) if f else None', '',
].join('\n');

describe('graph: resolution that follows what programs do', () => {
  const done: (() => void)[] = [];
  afterEach(() => { while (done.length) done.pop()!(); });

  /** An engine over the files, indexed (closed after the test). */
  async function indexed(files: Record<string, string>): Promise<Engine> {
    const ws = tempWorkspace(files);
    const e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    done.push(() => { e.close(); ws.remove(); });
    await e.index();
    return e;
  }

  async function make(files: Record<string, string>): Promise<Call> {
    const e = await indexed(files);
    return async (tool, args) => {
      const out = await invokeTool(TOOLS[tool] as never, args, { engine: e });
      if (!out.ok) throw new Error(`${tool}: ${JSON.stringify(out.error)}`);
      return out.data as Json;
    };
  }

  /** The definitions using a symbol through bindings of at least `min` confidence (typed, not guessed), sorted. */
  async function typedUsers(call: Call, symbol: string, min = 0.7, path?: string): Promise<string[]> {
    const r = await call('find_references', { symbol, min_confidence: min, ...(path ? { path } : {}) });
    return r.references.map((x: Json) => sp(x.from)).sort();
  }

  /** Uses of a symbol as "path:symbol_path", sorted. */
  async function users(call: Call, symbol: string, path?: string, kinds?: string[]): Promise<string[]> {
    const r = await call('find_references', { symbol, ...(path ? { path } : {}), ...(kinds ? { kinds } : {}), limit: 100 });
    return r.references.map((x: Json) => `${x.from.path}:${sp(x.from) ?? ''}`).sort();
  }

  it('constructing a class calls its constructor: Python __init__ (inherited too), JS constructor, Ruby Foo.new', async () => {
    const call = await make({
      'app/models.py': 'class Base:\n    def __init__(self, x):\n        self.x = x\n\nclass Order(Base):\n    pass\n',
      'app/service.py': 'from app.models import Order, Base\n\ndef place():\n    return Order(1)\n\ndef plain():\n    return Base(2)\n',
      'web/queue.ts': 'export class Queue {\n  constructor(public n: number) {}\n}\n',
      'web/main.ts': "import { Queue } from './queue';\nexport function start() { return new Queue(3); }\n",
      'lib/store.rb': 'class Store\n  def initialize(path)\n    @path = path\n  end\nend\n\ndef open_store\n  Store.new("x")\nend\n',
    });
    assert.deepEqual(await users(call, 'Base.__init__'), ['app/service.py:place', 'app/service.py:plain']);
    assert.deepEqual(await users(call, 'Queue.constructor'), ['web/main.ts:start']);
    assert.deepEqual(await users(call, 'Store.initialize'), ['lib/store.rb:open_store']);
    assert.deepEqual(await users(call, 'Store', 'lib/store.rb'), ['lib/store.rb:open_store']);
  });

  it('Python: "from .core import X as X" re-exports X; "from . import mod" binds the module', async () => {
    const call = await make({
      'src/shop/__init__.py': 'from .core import checkout as checkout\n',
      'src/shop/core.py': 'from . import pricing\n\ndef checkout(cart):\n    return pricing.total(cart)\n',
      'src/shop/pricing.py': 'def total(cart):\n    return sum(cart)\n',
      'tests/test_shop.py': 'import shop\n\ndef test_checkout():\n    assert shop.checkout([1]) == 1\n',
    });
    assert.deepEqual(await users(call, 'checkout', undefined, ['calls']), ['tests/test_shop.py:test_checkout']);
    assert.deepEqual(await users(call, 'total'), ['src/shop/core.py:checkout']);
    const tests = await call('related_tests', { symbol: 'total' });
    assert.deepEqual(tests.tests.map((t: Json) => sp(t.node)), ['test_checkout']);
  });

  it('Python: a package whose source root is not the repository root (api/shop imported as shop)', async () => {
    const call = await make({
      'api/shop/__init__.py': 'def checkout():\n    return 2\n',
      'api/web.py': 'import shop\n\ndef pay():\n    return shop.checkout()\n',
      'legacy/shop.py': 'def checkout():\n    return 0\n',
      'api/shop/logging.py': 'def info():\n    return 0\n',
      'api/shop/audit.py': 'import logging\n\ndef record():\n    return logging.info()\n',
      'api/shop/orders.py': 'from shop.cart import total\n\ndef order():\n    return total()\n',
      'api/shop/cart.py': 'from shop import orders\n\ndef total():\n    return 1\n\ndef again():\n    return orders.order()\n',
      'tests/test_orders.py': 'from shop.orders import order\n\ndef test_order():\n    assert order() == 1\n',
      'legacy/orders.py': 'def order():\n    return 0\n\ndef total():\n    return 0\n', // the names alone bind nothing
    });
    const cycles = await call('analytics', { kind: 'cycles' });
    assert.deepEqual(cycles.results.map((c: Json) => c.members.map((m: Json) => m.path).sort()), [['api/shop/cart.py', 'api/shop/orders.py']]);
    assert.deepEqual(await typedUsers(call, 'checkout', 0.8, 'api/shop/__init__.py'), ['pay'], 'import shop from api/web.py');
    assert.deepEqual(await users(call, 'info'), [], 'import logging is the standard library, not the module beside it');
    const tests = await call('related_tests', { symbol: 'total', path: 'api/shop/cart.py' });
    assert.deepEqual(tests.tests.map((t: Json) => [sp(t.node), t.confidence >= 0.8]), [['test_order', true]],
      'tests/ imports shop.orders from beside api/ (an import, not a shared name)');
  });

  it('overloads: calls bind to the implementation, the last definition of the name', async () => {
    const call = await make({
      'pkg/ctx.py': [
        'import typing as t', '', 'class Context:', '    @t.overload', '    def lookup(self, name: str) -> str: ...', '',
        '    @t.overload', '    def lookup(self, name: int) -> int: ...', '',
        '    def lookup(self, name):', '        return name', '',
        '@t.overload', 'def make(x: int) -> int: ...', '', 'def make(x):', '    return x', '',
        'def use(ctx: Context):', '    return ctx.lookup("a"), make(1)', '',
      ].join('\n'),
    });
    // the tools group a name's definitions; the edge itself names the one it binds to
    const lookup = await call('find_references', { symbol: 'Context.lookup~3', kinds: ['calls'] });
    assert.deepEqual(lookup.references.map((x: Json) => sp(x.from)), ['use']);
    assert.match(lookup.references[0].evidence, /calls Context\.lookup~3 /);
    const make2 = await call('find_references', { symbol: 'make~2', kinds: ['calls'] });
    assert.deepEqual(make2.references.map((x: Json) => sp(x.from)), ['use']);
    assert.match(make2.references[0].evidence, /calls make~2 /);
  });

  it('pytest fixtures: a test parameter named like a fixture has its type; naming the fixture uses it', async () => {
    const call = await make({
      'pkg/testing.py': 'class CliRunner:\n    def invoke(self, cli):\n        return cli\n',
      'pkg/app.py': 'class App:\n    def __init__(self, name):\n        self.name = name\n\n    def invoke(self, x):\n        return x\n',
      'tests/conftest.py': [
        'import pytest', 'from pkg.testing import CliRunner', 'from pkg.app import App', '',
        '@pytest.fixture(scope="function")', 'def runner():', '    return CliRunner()', '',
        '@pytest.fixture', 'def app():', '    return App("demo")', '',
        // the second `@pytest.fixture` of a file is a fixture as well (its decorator is not deduplicated)
        '@pytest.fixture', 'def other_app():', '    return App("other")', '',
      ].join('\n'),
      'tests/unit/test_cli.py': 'def test_invoke(runner):\n    assert runner.invoke(1) == 1\n\n\ndef test_app(app):\n    assert app.name\n\n\ndef test_other(other_app):\n    assert other_app.name\n',
      'tests/unit/test_local.py': 'import pytest\n\n@pytest.fixture\ndef runner():\n    return 1\n\ndef test_other(runner):\n    runner.invoke(2)\n',
    });
    const invoke = await call('find_references', { symbol: 'CliRunner.invoke' });
    const by = (name: string) => invoke.references.find((x: Json) => sp(x.from) === name);
    assert.match(by('test_invoke').evidence, /through the test fixture runner \(tests\/conftest\.py\)/);
    assert.ok(by('test_invoke').confidence >= 0.7);
    // the nearest fixture wins: test_local.py's own `runner` returns no class of the repository
    assert.ok(!by('test_other') || !/test fixture/.test(by('test_other').evidence), 'not bound through the conftest fixture');
    // test_app names the fixture `app`, whose body constructs App: changing App.__init__ reaches test_app
    assert.ok((await users(call, 'app', 'tests/conftest.py')).includes('tests/unit/test_cli.py:test_app'));
    const tests = await call('related_tests', { symbol: 'App.__init__' });
    assert.deepEqual(tests.tests.map((t: Json) => sp(t.node)).sort(), ['test_app', 'test_other']);
    // tests naming a fixture are bound uses, not a value handed over; a constructor runs through calls of its class
    const implicit = tests.boundaries.filter((b: Json) => b.kind === 'implicit_calls');
    assert.deepEqual(implicit, [], JSON.stringify(implicit));
  });

  it('pytest fixtures: a fixture returning a factory types what the test makes with it; fixtures may name each other', async () => {
    const call = await make({
      'web/client.py': [
        'class TestClient:', '    def __init__(self, app):', '        self.app = app', '', '    def fetch(self, path):', '        return path', '',
        '    def __enter__(self):', '        return self', '', '    def __exit__(self, *args):', '        return None', '',
      ].join('\n'),
      'tests/conftest.py': [
        'import functools', 'import pytest', 'from web.client import TestClient', '',
        '@pytest.fixture', 'def client_factory(backend) -> ClientFactory:', '    return functools.partial(TestClient, backend=backend)', '',
        'class ClientFactory:', '    def __call__(self, app) -> TestClient: ...', '',
        '@pytest.fixture', 'def backend(client_factory):', '    return "asyncio"', '',
      ].join('\n'),
      'tests/test_web.py': [
        'def test_fetch(client_factory):', '    client = client_factory(object())', '    assert client.fetch("/") == "/"', '',
        'def test_enter(client_factory):', '    with client_factory(object()):', '        pass', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, 'TestClient.__enter__', undefined, ['calls']), ['tests/test_web.py:test_enter']);
    assert.deepEqual(await users(call, 'TestClient.fetch', undefined, ['calls']), ['tests/test_web.py:test_fetch']);
    const builds = ['tests/test_web.py:test_enter', 'tests/test_web.py:test_fetch'];
    assert.deepEqual(await users(call, 'TestClient.__init__', undefined, ['calls']), builds);
  });

  it('pytest fixtures: a fixture method of the test class (or its bases) types the parameter named after it', async () => {
    const call = await make({
      'lib/signer.py': 'class Signer:\n    def sign(self, v):\n        return v\n\nclass Other:\n    def sign(self, v):\n        return v\n',
      'tests/test_signer.py': [
        'import pytest', 'from functools import partial', 'from lib.signer import Signer', '', 'class TestBase:', '    @pytest.fixture()',
        '    def signer_factory(self):', '        return partial(Signer, key="k")', '', '    @pytest.fixture()', '    def signer(self):',
        '        return Signer()', '', 'class TestSigner(TestBase):', '    def test_made(self, signer_factory):',
        '        s = signer_factory()', '        assert s.sign(1)', '', '    def test_given(self, signer):', '        assert signer.sign(2)', '',
      ].join('\n'),
    });
    assert.deepEqual(await typedUsers(call, 'Signer.sign'), ['TestSigner.test_given', 'TestSigner.test_made']);
  });

  it('Python: calling an instance runs its __call__ (a local, a fixture\'s value)', async () => {
    const call = await make({
      'web/app.py': 'class App:\n    def __call__(self, scope):\n        return scope\n\ndef serve():\n    app = App()\n    return app(1)\n\ndef other(app):\n    return app(2)\n',
      'tests/conftest.py': 'import pytest\nfrom web.app import App\n\n@pytest.fixture\ndef app():\n    return App()\n',
      'tests/test_app.py': 'def test_call(app):\n    assert app(3) == 3\n',
    });
    assert.deepEqual(await users(call, 'App.__call__', undefined, ['calls']), ['tests/test_app.py:test_call', 'web/app.py:serve']);
  });

  it('types that flow: assignments, declared types, return annotations and self attributes type a receiver', async () => {
    const call = await make({
      'app/result.py': 'class Result:\n    def output(self):\n        return 1\n\n    @property\n    def exit_code(self):\n        return 0\n',
      'app/runner.py': [
        'from app.result import Result', '', 'class Runner:', '    def invoke(self, cli) -> Result:', '        return Result()', '',
        'def make_runner() -> Runner:', '    return Runner()', '',
      ].join('\n'),
      'app/use.py': [
        'from app.runner import make_runner, Runner', '', 'def run_all(cli):', '    runner = make_runner()',
        '    result = runner.invoke(cli)', '    result.output()', '    return result.exit_code', '',
        'def typed(r: Runner):', '    return r.invoke(1)', '',
        'class Service:', '    def __init__(self):', '        self.runner = make_runner()', '',
        '    def go(self):', '        return self.runner.invoke(2)', '',
        'def callback_user(r: Runner):', '    return register(r.invoke)', '',
        'def register(f):', '    return f', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, 'Result.output', undefined, ['calls']), ['app/use.py:run_all']);
    assert.deepEqual(await users(call, 'Runner.invoke', undefined, ['calls']), ['app/use.py:Service.go', 'app/use.py:run_all', 'app/use.py:typed']);
    const invoke = await call('find_references', { symbol: 'Runner.invoke', kinds: ['calls'] });
    assert.ok(invoke.references.every((x: Json) => x.confidence >= 0.7), JSON.stringify(invoke.references.map((x: Json) => x.evidence)));
    // a property read runs it (a call); a method handed over as a value is a reference
    assert.deepEqual(await users(call, 'Result.exit_code', undefined, ['calls']), ['app/use.py:run_all']);
    assert.deepEqual(await users(call, 'Runner.invoke', undefined, ['references']), ['app/use.py:callback_user']);
  });

  it('Python: a class body\'s annotations type self.x (a dataclass field, "T", Optional[T], type[T])', async () => {
    const call = await make({
      'app/store.py': 'class Store:\n    def save(self):\n        return 1\n\nclass Cache:\n    def save(self):\n        return 2\n',
      'app/service.py': [
        'from typing import Optional', 'from dataclasses import dataclass', 'from app.store import Store', '',
        '@dataclass', 'class Service:', '    store: "Store"', '    backup: Optional[Store] = None', '    kind: type[Store] = Store', '',
        '    def run(self):', '        return self.store.save()', '',
        '    def again(self):', '        return self.backup.save()', '',
        '    def fresh(self):', '        return self.kind.save(None)', '',
      ].join('\n'),
    });
    // typed, not guessed from the scope
    assert.deepEqual(await typedUsers(call, 'Store.save'), ['Service.again', 'Service.fresh', 'Service.run']);
    assert.deepEqual(await users(call, 'Cache.save', undefined, ['calls']), []);
  });

  it('Python: a name copied from another holds its type (self.store = store, x = a or b, x = a if c else b)', async () => {
    const call = await make({
      'app/store.py': 'class Store:\n    def save(self):\n        return 1\n\nclass Cache:\n    def save(self):\n        return 2\n',
      'app/service.py': [
        'from app.store import Store', '', 'class Service:', '    def __init__(self, store: Store):', '        self.store = store', '',
        '    def run(self):', '        return self.store.save()', '', 'class Box(Store):', '    def copy(self):',
        '        box = self', '        return box.save()', '', 'def pick(given: Store, flag):', '    fallback = Store()',
        '    chosen = given or fallback', '    other = given if flag else fallback', '    chosen.save()', '    return other', '',
        'def later(given: Store, flag):', '    other = given if flag else fallback', '    return other.save()', '',
      ].join('\n'),
    });
    assert.deepEqual(await typedUsers(call, 'Store.save'), ['Box.copy', 'Service.run', 'later', 'pick']);
    assert.deepEqual(await users(call, 'Cache.save', undefined, ['calls']), []);
  });

  it('Python: an attribute of a typed value has the type its property returns or its class declares', async () => {
    const call = await make({
      'web/url.py': 'class URL:\n    def render(self):\n        return "u"\n\nclass Path:\n    def render(self):\n        return "p"\n',
      'web/request.py': [
        'from web.url import URL', '', 'class Request:', '    url: URL', '', '    @property', '    def link(self) -> URL:',
        '        return URL()', '',
      ].join('\n'),
      'web/views.py': [
        'from web.request import Request', '', 'def show(request: Request):', '    return request.link.render()', '',
        'def home(request: Request):', '    return request.url.render()', '',
      ].join('\n'),
      'web/remote.py': [
        'import httpx', '', 'def fetch() -> httpx.URL:', '    return httpx.URL("x")', '',
        'def remote():', '    u = fetch()', '    return u.render()', '',
      ].join('\n'),
    });
    assert.deepEqual(await typedUsers(call, 'URL.render'), ['home', 'show'], 'httpx.URL is not web.url.URL');
  });

  it('Python: a visitor\'s getattr(self, f"visit_{…}") references each visit_ method of its class and derived classes', async () => {
    const call = await make({
      'tpl/visitor.py': [
        'class NodeVisitor:', '    def get_visitor(self, node):', '        return getattr(self, f"visit_{type(node).__name__}", None)', '',
        '    def visit(self, node):', '        f = self.get_visitor(node)', '        return f(node) if f else None', '',
      ].join('\n'),
      'tpl/compiler.py': [
        'from tpl.visitor import NodeVisitor', '', 'class CodeGenerator(NodeVisitor):', '    def visit_Assign(self, node):',
        '        return 1', '', '    def helper(self):', '        return 2', '', 'class Other:', '    def visit_Assign(self, node):',
        '        return 3', '',
      ].join('\n'),
      'tests/test_compile.py': 'from tpl.compiler import CodeGenerator\n\ndef test_assign():\n    CodeGenerator().visit(object())\n',
    });
    assert.deepEqual(await users(call, 'CodeGenerator.visit_Assign'), ['tpl/visitor.py:NodeVisitor.get_visitor', 'tpl/visitor.py:NodeVisitor.visit']);
    assert.deepEqual(await users(call, 'CodeGenerator.visit_Assign', undefined, ['calls']), ['tpl/visitor.py:NodeVisitor.visit'],
      'f = self.get_visitor(node); f(node) calls what get_visitor looks up');
    assert.deepEqual(await users(call, 'CodeGenerator.helper'), []);
    assert.deepEqual(await users(call, 'Other.visit_Assign'), [], 'not derived from the visitor');
    const tests = await call('related_tests', { symbol: 'CodeGenerator.visit_Assign' });
    assert.deepEqual(tests.tests.map((t: Json) => sp(t.node)), ['test_assign']);
  });

  it('Python: a visitor handed a value of known type runs the method named for it (visit(node: Template) → visit_Template)', async () => {
    const call = await make({
      'tpl/nodes.py': 'class Node:\n    pass\n\nclass Template(Node):\n    pass\n\nclass For(Node):\n    pass\n',
      // another class of that name: `nodes.Template` means the module's
      'tpl/environment.py': 'class Template:\n    pass\n',
      'tpl/visitor.py': GETATTR_VISITOR,
      'tpl/compiler.py': [
        'from tpl import nodes', 'from tpl.visitor import NodeVisitor', '',
        'class CodeGenerator(NodeVisitor):', '    def visit_Template(self, node):', '        return 1', '',
        '    def visit_For(self, node):', '        return 2', '',
        'def generate(node: nodes.Template):', '    generator = CodeGenerator()', '    generator.visit(node)', '',
        'def untyped(node):', '    CodeGenerator().visit(node)', '',
      ].join('\n'),
    });
    const direct = await call('find_references', { symbol: 'CodeGenerator.visit_Template' });
    const generate = direct.references.find((r: Json) => sp(r.from) === 'generate');
    assert.ok(generate && generate.confidence >= 0.7, JSON.stringify(direct.references.map((r: Json) => [sp(r.from), r.confidence])));
    assert.match(generate.evidence, /generator\.visit\(node: Template\) runs CodeGenerator\.visit_Template/);
    const forRefs = await call('find_references', { symbol: 'CodeGenerator.visit_For' });
    assert.ok(!forRefs.references.some((r: Json) => sp(r.from) === 'generate' && r.confidence >= 0.7), 'only the method named for the type');
  });

  it('Python: a class attribute assigned a factory\'s closure is a method of that name (by prefix and on self)', async () => {
    const call = await make({
      'tpl/visitor.py': GETATTR_VISITOR,
      'tpl/compiler.py': [
        'from tpl.visitor import NodeVisitor', '', 'def _make_unop(op):', '    def visitor(self, node):', '        return op', '',
        '    return visitor', '', 'class CodeGenerator(NodeVisitor):', '    visit_Neg = _make_unop("-")', '    other = len("x")', '',
        '    def negate(self, node):', '        return self.visit_Neg(node)', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, '_make_unop.visitor', undefined, ['calls']), ['tpl/compiler.py:CodeGenerator.negate']);
    assert.deepEqual(await users(call, '_make_unop.visitor', undefined, ['references']), ['tpl/compiler.py:_make_unop', 'tpl/visitor.py:NodeVisitor.visit'],
      'the site that looks it up by prefix');
    const impact = await call('impact', { symbol: '_make_unop.visitor', depth: 1 });
    assert.ok(impact.affected.some((a: Json) => sp(a.node) === 'NodeVisitor.visit' && !a.via_container));
  });

  it('Python: calling a value of a Callable type gives its result (awaited too); an attribute holding a bound method runs it', async () => {
    const call = await make({
      'web/resp.py': 'class Response:\n    async def __call__(self, scope):\n        return None\n',
      'web/routing.py': [
        'from typing import Awaitable, Callable', 'from web.resp import Response', '',
        'def request_response(func: Callable[[int], Awaitable[Response] | Response]):',
        '    f: Callable[[int], Awaitable[Response]] = func', '',
        '    async def app(scope):', '        response = await f(1)', '        await response(scope)', '',
        '    return app', '',
        'def direct(func: Callable[[int], Response]):', '    r = func(1)', '    return r(2)', '',
        'class Router:', '    def __init__(self, middleware):', '        self.stack = self.app',
        '        for cls in middleware:', '            self.stack = cls(self.stack)', '',
        '    async def app(self, scope):', '        return scope', '',
        '    async def __call__(self, scope):', '        await self.stack(scope)', '',
      ].join('\n'),
    });
    assert.deepEqual(await typedUsers(call, 'Response.__call__'), ['direct', 'request_response.app']);
    assert.deepEqual(await users(call, 'Router.app', undefined, ['calls']), ['web/routing.py:Router.__call__']);
  });

  it('Python: calling a parameter typed type[X] (a class without a call member) constructs X', async () => {
    const call = await make({
      'tpl/errors.py': 'class SyntaxErr(Exception):\n    def __init__(self, msg, line):\n        super().__init__(msg)\n',
      'tpl/parser.py': [
        'from tpl.errors import SyntaxErr', '',
        'def fail(msg, exc: type[SyntaxErr] = SyntaxErr):', '    raise exc(msg, 1)', '',
      ].join('\n'),
    });
    assert.deepEqual(await typedUsers(call, 'SyntaxErr.__init__'), ['fail']);
  });

  it('Python: parameters typed "T", Optional[T] or T | None, and calling an attribute that holds a class', async () => {
    const call = await make({
      'gen/code.py': 'class CodeGenerator:\n    def __init__(self):\n        self.n = 0\n\n    def emit(self):\n        return 1\n\nclass Noise:\n    def emit(self):\n        return 2\n',
      'gen/env.py': [
        'from gen.code import CodeGenerator', '', 'class Environment:', '    code_generator_class: type["CodeGenerator"] = CodeGenerator', '',
        'def generate(environment: "Environment"):', '    generator = environment.code_generator_class()', '    return generator.emit()', '',
        'def quoted(g: "CodeGenerator"):', '    return g.emit()', '', 'def optional(g: Optional[CodeGenerator] = None):', '    return g.emit()', '',
        'def union(g: CodeGenerator | None = None):', '    return g.emit()', '',
      ].join('\n'),
    });
    assert.deepEqual(await typedUsers(call, 'CodeGenerator.emit'), ['generate', 'optional', 'quoted', 'union']);
    // the call of the attribute constructs the class it holds: its constructor runs there
    assert.deepEqual(await typedUsers(call, 'CodeGenerator.__init__'), ['generate']);
  });

  it('Ruby: a module reopened in many files is one module; bare method names and a bare new are calls', async () => {
    const module = (i: number) => `module Shop\n  def self.helper${i}\n    ${i}\n  end\nend\n`;
    const call = await make({
      'lib/shop.rb': 'module Shop\n  class << self\n    def application\n      @application ||= 1\n    end\n  end\nend\n',
      'lib/shop/a.rb': module(1), 'lib/shop/b.rb': module(2), 'lib/shop/c.rb': module(3), 'lib/shop/d.rb': module(4),
      'lib/shop/list.rb': [
        'module Shop', '  class List', '    def self.make(*args)', '      return empty if args.empty?', '      cons(args.first, empty)', '    end', '',
        '    def self.cons(head, tail)', '      new(head, tail)', '    end', '', '    def self.empty', '      nil', '    end', '',
        '    def initialize(head, tail)', '      @head = head', '    end', '  end', 'end', '',
      ].join('\n'),
      'test/test_shop.rb': 'class TestShop\n  def test_application\n    Shop.application\n  end\nend\n',
    });
    assert.deepEqual(await users(call, 'Shop.application', undefined, ['calls']), ['test/test_shop.rb:TestShop.test_application']);
    assert.deepEqual(await users(call, 'Shop.List.empty', undefined, ['calls']), ['lib/shop/list.rb:Shop.List.make']);
    assert.deepEqual(await users(call, 'Shop.List.initialize', undefined, ['calls']), ['lib/shop/list.rb:Shop.List.cons']);
  });

  it('Ruby: a call without a receiver runs a method of self\'s class, its bases or the modules they include', async () => {
    const call = await make({
      'lib/dsl.rb': 'module Build\n  module DSL\n    def task(name)\n      name\n    end\n  end\nend\n',
      'lib/other.rb': 'def task(name)\n  name\nend\n', // a top-level function of the same name elsewhere
      'test/helper.rb': 'class BuildCase\n  include Build::DSL\nend\n',
      'test/test_tasks.rb': 'class TestTasks < BuildCase\n  def test_define\n    task :compile\n  end\nend\n',
    });
    assert.deepEqual(await typedUsers(call, 'Build.DSL.task', 0.8), ['TestTasks.test_define']);
  });

  it('Ruby: an operator binds to the one class with it that the receiver\'s name or the scope names; Python subscripts do not', async () => {
    const call = await make({
      'lib/task.rb': 'module Build\n  class Task\n    def |(deps)\n      deps\n    end\n\n    def self.format(d)\n      d\n    end\n  end\nend\n',
      'lib/manager.rb': [
        'module Build', '  module Manager', '    def define(task_class, name, deps)', '      task = make(task_class, name)',
        '      task | deps', '      task', '    end', '',
        '    def order(t, deps)', '      Task.format(deps)', '      t | deps', '    end', '',
        '    def make(c, n)', '      c.new(n)', '    end', '  end', 'end', '',
      ].join('\n'),
      'web/headers.py': 'class Headers:\n    def __getitem__(self, key):\n        return key\n\ndef read(headers):\n    return headers["a"]\n',
    });
    assert.deepEqual(await users(call, 'Build.Task.|', undefined, ['calls']), ['lib/manager.rb:Build.Manager.define', 'lib/manager.rb:Build.Manager.order']);
    assert.deepEqual(await users(call, 'Headers.__getitem__'), [], 'a Python container named like a class is not one');
  });

  it('Ruby: a block handed on as &block and stored runs where the stored block is called', async () => {
    const call = await make({
      'lib/pool.rb': [
        'class Promise', '  def initialize(args, &block)', '    @args = args', '    @block = block', '  end', '',
        '  def chore', '    @block.call(*@args)', '  end', 'end', '',
        'class Pool', '  def future(*args, &block)', '    Promise.new(args, &block)', '  end', 'end', '',
        'class Task', '  def run(x)', '    x', '  end', '',
        '  def invoke_all(pool, tasks)', '    tasks.each do |t|', '      pool.future(t) do |r|', '        run(r)', '      end', '    end',
        '  end', 'end', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, 'Task.run', undefined, ['calls']), ['lib/pool.rb:Promise.chore', 'lib/pool.rb:Task.invoke_all']);
  });

  it('Ruby: a base named through its namespace is that definition, never the class itself or a nearer namesake', async () => {
    const call = await make({
      'lib/manager.rb': 'module Build\n  module Manager\n    def define(name)\n      name\n    end\n  end\nend\n',
      'lib/app.rb': 'module Build\n  class App\n    include Manager\n  end\nend\n',
      // `class Manager; include Build::Manager` names the module, not the class being defined
      'test/helper.rb': 'class BuildCase\n  class Manager\n    include Build::Manager\n  end\nend\n',
      'test/test_manager.rb': [
        'class TestManager < BuildCase', '  def setup', '    @m = BuildCase::Manager.new', '  end', '',
        '  def test_app', '    @m = Build::App.new', '  end', '',
        // @m holds a BuildCase::Manager or a Build::App: both run the one Build::Manager#define
        '  def test_define', '    @m.define(:x)', '  end', 'end', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, 'Build.Manager', undefined, ['implements']),
      ['lib/app.rb:Build.App', 'test/helper.rb:BuildCase.Manager']);
    assert.deepEqual(await typedUsers(call, 'Build.Manager.define'), ['TestManager.test_define']);
  });

  it('a method a mixin or base lacks, called on self, runs the definition of the classes built on it', async () => {
    const call = await make({
      // Ruby: a module's bare call of a method the class including it defines (sinatra's Helpers#redirect → Base#halt)
      'lib/helpers.rb': 'module Web\n  module Helpers\n    def redirect(uri)\n      halt(302)\n    end\n  end\nend\n',
      'lib/base.rb': 'module Web\n  class Base\n    include Helpers\n\n    def halt(code)\n      code\n    end\n  end\nend\n',
      'lib/other.rb': 'module Web\n  class Other\n    def redirect(uri)\n      uri\n    end\n  end\nend\n',
      'lib/task.rb': 'module Web\n  class Task\n    attr_accessor :base\n\n    def run\n      base.redirect("/")\n    end\n  end\nend\n',
      // Python: a base's template method calls a hook only its subclasses define; two define it
      'app/views.py': [
        'class View:', '    def dispatch(self):', '        return self.render()', '', 'class Page(View):', '    def render(self):',
        '        return "page"', '', 'class Feed(View):', '    def render(self):', '        return "feed"', '',
        'class Mixin:', '    def describe(self):', '        return self.label()', '', 'class Card(Mixin, Page):', '    def label(self):',
        '        return "card"', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, 'Web.Base.halt'), ['lib/helpers.rb:Web.Helpers.redirect']);
    // a receiver named like the class that has the method through its mixin (`base` → Web.Base includes Helpers)
    assert.deepEqual(await typedUsers(call, 'Web.Helpers.redirect', 0.5), ['Web.Task.run']);
    assert.deepEqual(await typedUsers(call, 'Web.Other.redirect', 0.5), []);
    // one class built on the mixin defines label: a confident binding; two subclasses define render: each possible
    assert.deepEqual(await typedUsers(call, 'Card.label'), ['Mixin.describe']);
    const ref = (await call('find_references', { symbol: 'Web.Base.halt' })).references[0];
    assert.match(ref.evidence, /class built on the enclosing one: Web.Base, built on Web.Helpers/);
    assert.deepEqual(await users(call, 'Page.render'), ['app/views.py:View.dispatch']);
    assert.deepEqual(await users(call, 'Feed.render'), ['app/views.py:View.dispatch']);
    assert.deepEqual(await typedUsers(call, 'Feed.render'), [], 'two hosts: neither is confident');
  });

  it('a method an outside mixin gives a class runs the class\'s own members: Enumerable#map its each, Mapping.get its __getitem__', async () => {
    const call = await make({
      'lib/args.rb': [
        'class Args', '  include Enumerable', '  include Comparable', '', '  def each', '    yield 1', '  end', '',
        '  def <=>(other)', '    0', '  end', '', '  def to_s', '    map(&:to_s).join', '  end', '',
        '  def first_two', '    self.first(2)', '  end', 'end', '', 'class Scope < Args', '  def path', '    map(&:to_s).reverse', '  end', 'end', '',
        'class Plain', '  def each', '    nil', '  end', 'end', '',
        'def names', '  a = Args.new', '  a.map { |x| x }', 'end', '', 'def older', '  a = Args.new', '  a < Args.new', 'end', '',
        'def plain', '  p = Plain.new', '  p.map { |x| x }', 'end', '',
      ].join('\n'),
      'web/headers.py': [
        'from collections.abc import Mapping', '', 'class Headers(Mapping):', '    def __getitem__(self, key):', '        return key', '',
        '    def __iter__(self):', '        return iter([])', '', '    def __len__(self):', '        return 0', '',
        'class Mutable(Headers):', '    pass', '', 'def read():', '    h = Mutable()', '    return h.get("a")', '',
      ].join('\n'),
    });
    // Plain includes nothing: its map is not its each
    // on self too: a bare map in the class, self.first, and a subclass's map
    assert.deepEqual(await users(call, 'Args.each'), ['lib/args.rb:Args.first_two', 'lib/args.rb:Args.to_s', 'lib/args.rb:Scope.path', 'lib/args.rb:names']);
    assert.deepEqual(await users(call, 'Args.<=>'), ['lib/args.rb:older']);
    assert.deepEqual(await users(call, 'Plain.each'), []);
    // a subclass of a Mapping: get is Mapping's, and runs the inherited __getitem__
    assert.deepEqual(await typedUsers(call, 'Headers.__getitem__'), ['read']);
  });

  it('Ruby: a method returns what its last expression\'s call returns (an implicit return)', async () => {
    const call = await make({
      'lib/task.rb': [
        'module Rake', '  class Task', '    def clear_actions', '      1', '    end', '',
        '    def self.define_task(name)', '      Task.new', '    end', '  end', '',
        '  module DSL', '    def task(*args, &block)', '      Rake::Task.define_task(*args, &block)', '    end', '  end', 'end', '',
        'class Other', '  def clear_actions', '    2', '  end', 'end', '',
      ].join('\n'),
      'test/test_task.rb': [
        'class TestTask < Minitest::Test', '  include Rake::DSL', '', '  def test_clear_actions', '    t = task("t") {}',
        '    t.clear_actions', '  end', 'end', '',
      ].join('\n'),
    });
    assert.deepEqual(await typedUsers(call, 'Rake.Task.clear_actions'), ['TestTask.test_clear_actions']);
  });

  it('Ruby: a symbol handed as a block (list.map(&:name)) calls that method on each element', async () => {
    const call = await make({
      'lib/promise.rb': 'class Promise\n  def value\n    1\n  end\nend\n',
      'lib/pool.rb': [
        'class Pool', '  def wait(futures)', '    futures.reverse_each(&:value)', '  end', '', '  def names(list)', '    list.map(&:missing_here)', '  end', 'end', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, 'Promise.value'), ['lib/pool.rb:Pool.wait']);
    const r = await call('find_references', { symbol: 'Promise.value' });
    assert.equal(r.references[0].line, 3);
  });

  it('Ruby: a constant naming a class stands for it; self lacking a method runs what the class defines at run time', async () => {
    const call = await make({
      'lib/file_list.rb': [
        'module Rake', '  class FileList', '    %w[each_with_index push].each do |sym|', '      class_eval %{', '        def #{sym}(*a, &b)',
        '          @items.send(:#{sym}, *a, &b)', '        end', '      }', '    end', '', '    def sub!(pat, rep)',
        '      each_with_index { |fn, i| fn }', '      raise ArgumentError if pat.nil?', '      self', '    end', '  end', 'end', '',
      ].join('\n'),
      'lib/plain.rb': 'class Plain\n  def run\n    each_with_index { |x| x }\n  end\nend\n',
      'test/test_file_list.rb': [
        'class TestFileList < Minitest::Test', '  FileList = Rake::FileList', '  Other = 3', '', '  def test_subclass',
        '    custom = Class.new(FileList)', '    custom.new', '  end', '', '  def test_other', '    Other + 1', '  end', 'end', '',
      ].join('\n'),
    });
    // Class.new(FileList) names Rake::FileList through the test's alias constant
    assert.deepEqual(await users(call, 'Rake.FileList'), ['lib/file_list.rb:Rake.FileList.sub!', 'test/test_file_list.rb:TestFileList.test_subclass']);
    const refs = await call('find_references', { symbol: 'Rake.FileList' });
    const alias = refs.references.find((r: Json) => sp(r.from) === 'TestFileList.test_subclass');
    assert.match(alias.evidence, /TestFileList\.FileList = Rake\.FileList/);
    // a class with no run-time definitions gets no edge for a method it lacks; Kernel's raise is no member
    assert.deepEqual(await users(call, 'Plain'), []);
    const sub = refs.references.filter((r: Json) => sp(r.from) === 'Rake.FileList.sub!');
    assert.deepEqual(sub.map((r: Json) => r.line), [12], 'each_with_index, not the parameter pat');
    assert.match(sub[0].evidence, /defines at run time: self → Rake\.FileList \(each_with_index\)/);
  });

  it('getattr names methods: by a string, and by a loop variable over literal names', async () => {
    const call = await make({
      'app/client.py': 'class Client:\n    def patch(self, url):\n        return url\n\n    def post(self, url):\n        return url\n\n    def put(self, url):\n        return url\n',
      'tests/test_client.py': [
        'from app.client import Client', '', '', 'def test_literal():', '    client = Client()', '    getattr(client, "patch")("/")', '', '',
        'def test_loop():', '    client = Client()', '    for method in ("patch", "post"):', '        getattr(client, method)("/")', '', '',
        'def test_computed(names):', '    client = Client()', '    for method in names:', '        getattr(client, method)("/")', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, 'Client.patch'), ['tests/test_client.py:test_literal', 'tests/test_client.py:test_loop']);
    assert.deepEqual(await users(call, 'Client.post'), ['tests/test_client.py:test_loop']);
    // a loop over names the code does not spell names nothing
    assert.deepEqual(await users(call, 'Client.put'), []);
  });

  it('a receiver named like a class with the method outranks the classes the calling scope names', async () => {
    const call = await make({
      'lib/tm.rb': [
        'module Rake', '  module TaskManager', '    def [](name, scopes = nil)', '      name', '    end', '  end', '',
        '  class Application', '    include TaskManager', '  end', '', '  class Task', '    attr_accessor :application', '',
        '    class << self', '      def [](task_name)', '        task_name', '      end', '    end', '  end', '',
        '  class FileTask < Task', '    def out_of_date?(stamp)', '      prereq_task = application[stamp, @scope]',
        '      prereq_task.instance_of?(Rake::FileTask)', '    end', '', '    def kind(x)', '      x.instance_of?(Rake::FileTask) && x[1]', '    end',
        '  end', 'end', '',
      ].join('\n'),
    });
    // application[…] is the Application's (TaskManager#[]), not the Task class's [] the scope's FileTask inherits
    assert.deepEqual(await users(call, 'Rake.TaskManager.[]'), ['lib/tm.rb:Rake.FileTask.out_of_date?']);
    // x[1] names no class: the scope's FileTask still types it
    assert.deepEqual(await users(call, 'Rake.Task.[]'), ['lib/tm.rb:Rake.FileTask.kind']);
  });

  it('a call of a member a class has from an outside base may run the methods that base runs (Thread.start → run)', async () => {
    const call = await make({
      'app/work.py': [
        'import socketserver', 'import threading', 'import textwrap', '', 'class Worker(threading.Thread):', '    def run(self):', '        return 1', '',
        '    def helper(self):', '        return 2', '',
        'class Wrapper(textwrap.TextWrapper):', '    def _wrap_chunks(self, chunks):', '        return chunks', '',
        'class Plain:', '    def run(self):', '        return 3', '',
        'class Server(socketserver.TCPServer):', '    def serve_forever(self):', '        return super().serve_forever()', '',
        '    def handle_error(self, request, address):', '        return None', '',
      ].join('\n'),
      'app/main.py': [
        'from app.work import Worker, Wrapper, Plain', '', 'def start():', '    w = Worker()', '    w.start()', '    w.helper()', '',
        'def wrap(text):', '    wrapper = Wrapper(width=10)', '    return wrapper.fill(text)', '', 'def plain():', '    p = Plain()', '    p.start()', '',
      ].join('\n'),
      'tests/test_main.py': 'from app.main import start, wrap\n\ndef test_start():\n    start()\n\ndef test_wrap():\n    assert wrap("a b")\n',
    });
    // w.start() uses Worker through its outside base: run may be run by it (possible, low confidence)
    const run = await call('find_references', { symbol: 'Worker.run' });
    assert.deepEqual(run.references.map((r: Json) => sp(r.from)), ['start']);
    const [ref] = run.references;
    assert.ok(ref.confidence <= 0.1 && /inherits from outside the workspace may run run/.test(ref.evidence), ref.evidence);
    assert.deepEqual(await users(call, 'Wrapper._wrap_chunks'), ['app/main.py:wrap']);
    // helper is called by name: nothing is relayed to it; Plain has no outside base
    assert.deepEqual(await users(call, 'Worker.helper'), ['app/main.py:start']);
    assert.deepEqual(await users(call, 'Plain.run'), []);
    // super().serve_forever() runs the outside base's loop, which may call the class's handle_error
    assert.deepEqual(await users(call, 'Server.handle_error'), ['app/work.py:Server.serve_forever']);
    assert.deepEqual(await users(call, 'Server.serve_forever'), [], 'never its own possible caller');
    const tests = await call('related_tests', { symbol: 'Wrapper._wrap_chunks' });
    assert.deepEqual(tests.tests.map((t: Json) => sp(t.node)), ['test_wrap']);
    // whether the outside base runs it is unknown: a test reaching it that way is possible, never likely
    assert.equal(tests.tests[0].likely, false);
  });

  it('the dependents of many members of one overload set at once stay each member\'s own plus the others\' (no compounding)', async () => {
    // twelve redefinitions of `step` (an overload set step, step~2 … step~12), each called by its own caller
    const defs = Array.from({ length: 12 }, (_, i) => `def step():\n    return target()\n\ndef caller_${i}():\n    return step()\n`);
    const e = await indexed({ 'app/flow.py': `def target():\n    return 1\n\n${defs.join('\n')}` });
    const g = await e.graph();
    const target = await invokeTool(TOOLS.find_references as never, { symbol: 'target' }, { engine: e });
    const repo = (((target as { data: Json }).data).resolved[0].id as string).split(':')[1]!;
    const set = (g.symbolsAt(repo, 'app/flow.py') ?? []).filter(n => n.name === 'step');
    assert.equal(set.length, 12);
    const lists = g.dependentsOfMany(set, ['calls']);
    // asked together, each member's list is its own; merged lists appended into one another grew 2^12-fold
    for (const n of set) assert.ok(lists.get(n.node)!.length <= 12, `${n.symbol_path}: ${lists.get(n.node)!.length} dependents`);
    const one = g.dependentsOfMany([set[3]!], ['calls']);
    assert.ok(one.get(set[3]!.node)!.length >= 1, 'one member asked alone still gets its siblings\' dependents');
  });

  it('a subscript runs the element members of a receiver of known type (__getitem__/__setitem__, Ruby [] and []=)', async () => {
    const call = await make({
      'web/headers.py': [
        'class Headers:', '    def __getitem__(self, key):', '        return key', '', '    def __setitem__(self, key, value):',
        '        return None', '', 'def read(raw):', '    h = Headers()', '    return h["a"]', '',
        'def write(raw):', '    h = Headers()', '    h["a"] = 1', '', 'def plain(data):', '    return data["a"]', '',
      ].join('\n'),
      'lib/registry.rb': [
        'module Build', '  class Registry', '    def [](name)', '      name', '    end', '',
        '    def fetch(name)', '      self[name]', '    end', '  end', 'end', '',
        'def lookup(name)', '  Build::Registry[name]', 'end', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, 'Headers.__getitem__'), ['web/headers.py:read'], 'data["a"] on a parameter binds nothing');
    assert.deepEqual(await users(call, 'Headers.__setitem__'), ['web/headers.py:write']);
    assert.deepEqual(await users(call, 'Build.Registry.[]'), ['lib/registry.rb:Build.Registry.fetch', 'lib/registry.rb:lookup']);
  });

  it('Python: str(x), len(x), next(x), list(x), dict(x), for … in x, k in x and x == y run the operand\'s members when its type is known', async () => {
    const call = await make({
      'app/bag.py': [
        'class Bag:', '    def __str__(self):', '        return "bag"', '', '    def __len__(self):', '        return 0', '',
        '    def __iter__(self):', '        return iter([])', '', '    def __next__(self):', '        return 1', '',
        '    def __contains__(self, k):', '        return False', '', '    def __eq__(self, o):', '        return False', '',
        'def show():', '    b = Bag()', '    return str(b)', '', 'def size():', '    b = Bag()', '    return len(b)', '',
        'def walk():', '    b = Bag()', '    for x in b:', '        print(x)', '', 'def step():', '    b = Bag()', '    return next(b)', '',
        'def names():', '    b = Bag()', '    return [x for x in b]', '', 'def other(data):', '    return str(data), len(data)', '',
        'def has():', '    b = Bag()', '    return "k" in b or "j" not in b', '', 'def same():', '    b = Bag()', '    return b == 1', '',
        'def listed():', '    b = Bag()', '    return list(b)', '', 'def ordered():', '    b = Bag()', '    return sorted(b)', '',
        'class Table:', '    def keys(self):', '        return []', '', '    def __getitem__(self, k):', '        return k', '',
        'def copied():', '    t = Table()', '    return dict(t)', '',
      ].join('\n'),
      'app/more.py': 'class Bag2:\n    def __contains__(self, k):\n        return False\n\n    def __eq__(self, o):\n        return False\n',
    });
    assert.deepEqual(await users(call, 'Bag2.__contains__'), []);
    assert.deepEqual(await users(call, 'Bag2.__eq__'), []);
    assert.deepEqual(await users(call, 'Bag.__str__'), ['app/bag.py:show'], 'str(data) on a parameter binds nothing');
    // list(b) iterates b and asks its length first; sorted(b) iterates it; dict(t) reads a mapping's keys and items
    assert.deepEqual(await users(call, 'Bag.__len__'), ['app/bag.py:listed', 'app/bag.py:size']);
    assert.deepEqual(await users(call, 'Bag.__iter__'), ['app/bag.py:listed', 'app/bag.py:names', 'app/bag.py:ordered', 'app/bag.py:walk']);
    assert.deepEqual(await users(call, 'Table.keys'), ['app/bag.py:copied']);
    assert.deepEqual(await users(call, 'Table.__getitem__'), ['app/bag.py:copied']);
    assert.deepEqual(await users(call, 'Bag.__next__'), ['app/bag.py:step']);
    assert.deepEqual(await users(call, 'Bag.__contains__'), ['app/bag.py:has']);
    assert.deepEqual(await users(call, 'Bag.__eq__'), ['app/bag.py:same']);
  });

  it('Python: testing a value\'s truth runs its __bool__, or its __len__ without one, when its type is known', async () => {
    const call = await make({
      'web/data.py': [
        'class Headers:', '    def __len__(self):', '        return 0', '',
        'class Secret:', '    def __bool__(self):', '        return True', '',
        '    def __len__(self):', '        return 1', '',
        'def merge(headers: Headers = None):', '    h = headers or Headers()', '    return h', '',
        'def check(s: Secret):', '    assert s', '', 'def unknown(x):', '    if x:', '        return 1', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, 'Headers.__len__', undefined, ['calls']), ['web/data.py:merge']);
    assert.deepEqual(await users(call, 'Secret.__bool__', undefined, ['calls']), ['web/data.py:check']);
    assert.deepEqual(await users(call, 'Secret.__len__', undefined, ['calls']), [], '__bool__ first');
  });

  it('Python: await x and async for … in x run the operand\'s __await__ and __aiter__ when its type is known', async () => {
    const call = await make({
      'app/wrap.py': [
        'class Wrapper:', '    def __await__(self):', '        return iter([])', '', '    def __aiter__(self):', '        return self', '',
        'class Request:', '    def form(self):', '        return Wrapper()', '',
        'async def read(request: Request):', '    return await request.form()', '',
        'async def each():', '    w = Wrapper()', '    async for x in w:', '        print(x)', '',
        'async def other(thing):', '    return await thing', '',
        'async def plain():', '    w = Wrapper()', '    return await w', '',
        'def explicit(thing):', '    return thing.__aiter__()', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, 'Wrapper.__await__'), ['app/wrap.py:plain', 'app/wrap.py:read'], 'await on an untyped parameter binds nothing');
    assert.deepEqual(await users(call, 'Wrapper.__aiter__'), ['app/wrap.py:each', 'app/wrap.py:explicit'], 'named by the code: bound by its name too');
    assert.deepEqual(await typedUsers(call, 'Wrapper.__aiter__'), ['each']);
  });

  it('Ruby: types that flow: x = Foo.new, @x = Foo.new in another method, and copies', async () => {
    const call = await make({
      'lib/store.rb': 'module Shop\n  class Store\n    def save\n      1\n    end\n  end\n\n  class Cache\n    def save\n      2\n    end\n  end\nend\n',
      'lib/app.rb': [
        'class App', '  def initialize', '    @store = Shop::Store.new(1)', '  end', '', '  def run', '    @store.save', '  end', '',
        '  def local', '    s = Shop::Store.new do |x|', '      x', '    end', '    t = s', '    t.save', '  end', 'end', '',
      ].join('\n'),
    });
    assert.deepEqual(await typedUsers(call, 'Shop.Store.save'), ['App.local', 'App.run']);
  });

  it('Ruby: "#{x}" runs x.to_s and a | b runs a\'s | when their types are known', async () => {
    const call = await make({
      'lib/chain.rb': [
        'class Chain', '  def to_s', '    "chain"', '  end', '', '  def |(other)', '    self', '  end', 'end', '',
        'class Use', '  def show', '    c = Chain.new', '    "at #{c}"', '  end', '', '  def join', '    c = Chain.new', '    c | 1', '  end', '',
        '  def other(x)', '    "at #{x}"', '  end', 'end', '',
      ].join('\n'),
    });
    assert.deepEqual(await typedUsers(call, 'Chain.to_s'), ['Use.show']);
    assert.deepEqual(await typedUsers(call, 'Chain.|'), ['Use.join']);
  });

  it('Ruby: a bare call in x.instance_eval do … end is a method of x', async () => {
    const call = await make({
      'lib/app.rb': 'class Application\n  def handle_options(argv)\n    argv\n  end\nend\n',
      'test/test_app.rb': [
        'class TestApp', '  def setup', '    @app = Application.new', '  end', '',
        '  def test_options', '    @app.instance_eval do', '      handle_options []', '    end', '  end', '',
        '  def test_outside', '    handle_options []', '  end', 'end', '',
      ].join('\n'),
    });
    assert.deepEqual(await typedUsers(call, 'Application.handle_options'), ['TestApp.test_options']);
  });

  it('Ruby: a bare call in a class body runs a class method, never the class\'s own instance method', async () => {
    const call = await make({
      'lib/files.rb': [
        'class Files', '  include Enumerable', '', '  def include(*names)', '    names', '  end', '',
        '  def add(name)', '    include(name)', '  end', 'end', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, 'Files.include', undefined, ['calls']), ['lib/files.rb:Files.add']);
  });

  it('Python: entering a context manager runs its __enter__ and __exit__', async () => {
    const call = await make({
      'db/session.py': [
        'class Session:', '    def __enter__(self):', '        return self', '', '    def __exit__(self, *exc):', '        return False', '',
        'def open_session() -> Session:', '    return Session()', '',
      ].join('\n'),
      'db/use.py': [
        'from db.session import open_session, Session', '', 'def with_call():', '    with open_session() as s:', '        return s', '',
        'def with_name():', '    s = Session()', '    with s:', '        return 1', '', 'def unrelated():', '    return 2', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, 'Session.__enter__', undefined, ['calls']), ['db/use.py:with_call', 'db/use.py:with_name']);
    assert.deepEqual(await users(call, 'Session.__exit__', undefined, ['calls']), ['db/use.py:with_call', 'db/use.py:with_name']);
  });

  it('Python: a decorator factory applied, or make(…)(x), runs the closure it returns', async () => {
    const call = await make({
      'app/cli.py': [
        'import typing as t', '', '@t.overload', 'def command(name: str) -> int: ...', '',
        'def command(name=None):', '    def decorator(f):', '        return f', '', '    def helper():', '        return 1', '',
        '    return decorator', '',
        'def option(*names):', '    def decorator(f):', '        return f', '    return decorator', '',
      ].join('\n'),
      'tests/test_cli.py': [
        'from app.cli import command, option', '', 'def test_cmd():', '    @command()', '    def hello():', '        pass', '',
        'def test_chain():', '    option("x")(print)', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, 'command.decorator', undefined, ['calls']), ['tests/test_cli.py:test_cmd']);
    assert.deepEqual(await users(call, 'option.decorator', undefined, ['calls']), ['tests/test_cli.py:test_chain']);
    assert.deepEqual(await users(call, 'command.helper', undefined, ['calls']), []);
    const tests = await call('related_tests', { symbol: 'command.decorator' });
    assert.deepEqual(tests.tests.map((t: Json) => sp(t.node)), ['test_cmd']);
  });

  it('Python: a module-level name assigned a factory\'s call, imported and called elsewhere, runs the closure', async () => {
    const call = await make({
      'app/streams.py': [
        'def get_text_stderr():', '    return 2', '',
        'def make_cached(wrapper):', '    def func():', '        return wrapper()', '', '    return func', '',
        'default_stderr = make_cached(get_text_stderr)', '',
        'def local_use():', '    return default_stderr()', '',
      ].join('\n'),
      'app/echo.py': 'from app.streams import default_stderr\n\ndef echo():\n    return default_stderr()\n\ndef other():\n    return 1\n',
    });
    assert.deepEqual(await users(call, 'make_cached.func', undefined, ['calls']), ['app/echo.py:echo', 'app/streams.py:local_use']);
    const impact = await call('impact', { symbol: 'get_text_stderr', depth: 2 });
    assert.ok(impact.affected.some((a: Json) => sp(a.node) === 'echo'), 'the public function that reaches it through the closure');
  });

  it('Python: a function returning a factory\'s call hands out its closure; a function-local import binds in nested closures', async () => {
    const call = await make({
      'app/deco.py': [
        'def command(name=None, cls=None):', '    def decorator(f):', '        return f', '    return decorator', '',
        'def group(name=None):', '    return command(name, cls=dict)', '',
        'def group_twice(name=None):', '    return group(name)', '',
      ].join('\n'),
      'app/core.py': [
        'class Group:', '    def command(self, *args):', '        from .deco import command', '',
        '        def decorator(f):', '            return command(*args)(f)', '', '        return decorator', '',
        '    def run(self, command):', '        return command', '',
      ].join('\n'),
      'app/ui.py': 'def pager():\n    from .impl import pager\n\n    return pager()\n',
      'app/impl.py': 'def pager():\n    return 1\n',
      'tests/test_deco.py': [
        'from app.deco import group, group_twice', '', 'def test_group():', '    @group()', '    def cli():', '        pass', '',
        'def test_twice():', '    @group_twice()', '    def cli():', '        pass', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, 'command.decorator', 'app/deco.py', ['calls']),
      ['app/core.py:Group.command.decorator', 'tests/test_deco.py:test_group', 'tests/test_deco.py:test_twice']);
    const uses = await users(call, 'command', 'app/deco.py');
    assert.ok(uses.includes('app/core.py:Group.command.decorator'), uses.join(', '));
    assert.ok(!uses.includes('app/core.py:Group.run'), `the import inside Group.command binds nothing in Group.run: ${uses.join(', ')}`);
    assert.deepEqual(await users(call, 'pager', 'app/impl.py', ['calls']), ['app/ui.py:pager'], 'the local import shadows the function\'s own name');
  });

  it('Python: import a.b binds a to the package (a.f() is the package\'s f) and a.b to the module (a.b.g())', async () => {
    const call = await make({
      'src/kit/__init__.py': 'from .deco import command as command\n',
      'src/kit/deco.py': 'def command():\n    return 1\n',
      'src/kit/types.py': 'def convert(x):\n    return x\n',
      'tests/test_kit.py': [
        'import kit.types', '', 'def test_command():', '    kit.command()', '',
        'def test_convert():', '    kit.types.convert(1)', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, 'command', 'src/kit/deco.py', ['calls']), ['tests/test_kit.py:test_command']);
    assert.deepEqual(await users(call, 'convert', 'src/kit/types.py', ['calls']), ['tests/test_kit.py:test_convert']);
  });

  it('Python: a function assigned over a module\'s function (a test runner\'s patch) may run where that function is called', async () => {
    const call = await make({
      'kit/_compat.py': 'def strip_ansi(text):\n    return text\n',
      'kit/utils.py': 'from ._compat import strip_ansi\n\ndef echo(text):\n    return strip_ansi(text)\n',
      'kit/testing.py': [
        'from . import _compat', '', 'class Runner:', '    def isolation(self):', '        def strip_ansi(text):', '            return ""', '',
        '        _compat.strip_ansi = strip_ansi', '        return 1', '',
      ].join('\n'),
    });
    const r = await call('find_references', { symbol: 'Runner.isolation.strip_ansi', kinds: ['calls'] });
    assert.deepEqual(r.references.map((x: Json) => sp(x.from)), ['echo']);
    assert.match(r.references[0].evidence, /assigned in place of strip_ansi/);
    assert.ok(r.references[0].confidence <= 0.5);
    const impact = await call('impact', { symbol: 'Runner.isolation.strip_ansi' });
    assert.ok(impact.affected.some((a: Json) => sp(a.node) === 'echo'), JSON.stringify(impact.affected.map((a: Json) => sp(a.node))));
  });

  it('Go: a type whose methods include an interface\'s implements it: callers of the interface method may run its methods', async () => {
    const call = await make({
      'store/store.go': [
        'package store', '', 'type Store interface {', '\tGet(k string) string', '\tPut(k string)', '}', '',
        'func Read(s Store) string {', '\treturn s.Get("x")', '}', '',
      ].join('\n'),
      'store/mem.go': [
        'package store', '', 'type Mem struct{}', '', 'func (m Mem) Get(k string) string { return k }', '',
        'func (m Mem) Put(k string) {}', '',
        'type Half struct{}', '', 'func (h *Half) Get(k string) string { return k }', '',
      ].join('\n'),
    });
    const mem = await call('find_references', { symbol: 'Mem.Get', kinds: ['calls'] });
    assert.deepEqual(mem.references.map((x: Json) => sp(x.from)), ['Read']);
    assert.match(mem.references[0].evidence, /Mem.Get implements Store.Get/);
    const half = await call('find_references', { symbol: 'Half.Get', kinds: ['calls'] });
    assert.deepEqual(half.references, [], 'Half has no Put: it does not implement Store');
  });

  it('base-class dispatch: callers of a base method are possible callers of each override (tier dispatch)', async () => {
    const call = await make({
      'shapes/base.py': 'class Shape:\n    def area(self):\n        return 0\n\n    def describe(self):\n        return self.area()\n',
      'shapes/square.py': [
        'from shapes.base import Shape', '', 'class Square(Shape):', '    def area(self):', '        return 4', '',
        'def exact():', '    return Shape().area()', '',
        'class Circle(Shape):', '    def area(self):', '        return super().area() + 3', '',
      ].join('\n'),
      'tests/test_shapes.py': 'from shapes.square import Square\n\ndef test_describe():\n    assert Square().describe() == 4\n',
      'web/store.ts': "export interface Store { get(k: string): string }\nexport function read(s: Store) { return s.get('x'); }\n",
      'web/mem.ts': "import { Store } from './store';\nexport class MemStore implements Store {\n  get(k: string) { return k; }\n}\n",
    });
    // Circle's super().area() runs Shape's, never its sibling Square's
    assert.deepEqual(await users(call, 'Square.area', undefined, ['calls']), ['shapes/base.py:Shape.describe']);
    const refs = await call('find_references', { symbol: 'Square.area' });
    assert.match(refs.references[0].evidence, /overrides Shape\.area/);
    assert.ok(refs.references[0].confidence <= 0.5);
    const tests = await call('related_tests', { symbol: 'Square.area' });
    assert.deepEqual(tests.tests.map((t: Json) => sp(t.node)), ['test_describe']);
    assert.deepEqual(await users(call, 'MemStore.get', undefined, ['calls']), ['web/store.ts:read']);
  });

  it('test clients: a test requesting a route reaches its handler (the app\'s, or its own file\'s)', async () => {
    const call = await make({
      'web/views.py': 'def render_home():\n    return "home"\n\ndef list_users(request):\n    return []\n',
      'web/app.py': 'from starlette.routing import Route\nfrom web.views import list_users\n\nroutes = [Route("/users", list_users)]\n',
      'tests/test_home.py': [
        'from starlette.routing import Route', 'from web.views import render_home', '',
        'async def homepage(request):', '    return render_home()', '',
        'routes = [Route("/", homepage)]', '', 'def test_home(client):', '    assert client.get("/").status_code == 200', '',
      ].join('\n'),
      'tests/test_other.py': 'from starlette.routing import Route\n\nasync def other(request):\n    return 1\n\nroutes = [Route("/", other)]\n\ndef test_other(client):\n    client.get("/x")\n',
      'tests/test_users.py': 'def test_users(client):\n    assert client.get("/users").json() == []\n',
    });
    const home = await call('related_tests', { symbol: 'render_home' });
    assert.deepEqual(home.tests.map((t: Json) => `${t.node.path}:${sp(t.node)}`), ['tests/test_home.py:test_home']);
    assert.match(home.tests[0].reason, /homepage/);
    const users = await call('related_tests', { symbol: 'list_users' });
    assert.deepEqual(users.tests.map((t: Json) => sp(t.node)), ['test_users']);
    assert.match(users.tests[0].reason, /test client/);
  });

  it('a receiver named like a class binds to that class\'s method (ctx → Context, formatter → HelpFormatter)', async () => {
    const call = await make({
      'cli/core.py': [
        'class Context:', '    def invoke(self, f):', '        return f()', '',
        'class Command:', '    def invoke(self, ctx):', '        return ctx.invoke(print)', '',
        'class Runner:', '    def invoke(self):', '        return 1', '',
        'class Group(Command):', '    def invoke(self, ctx):', '        return 2', '',
        'class HelpFormatter:', '    def write(self, s):', '        return s', '',
        'class Stream:', '    def write(self, s):', '        return s', '',
      ].join('\n'),
      'cli/use.py': 'def handle(ctx, formatter, data):\n    formatter.write("x")\n    data.invoke()\n    return ctx.invoke(print)\n',
    });
    assert.deepEqual(await users(call, 'Context.invoke', undefined, ['calls']), ['cli/core.py:Command.invoke', 'cli/use.py:handle']);
    assert.deepEqual(await users(call, 'HelpFormatter.write', undefined, ['calls']), ['cli/use.py:handle']);
    assert.deepEqual(await users(call, 'Stream.write', undefined, ['calls']), []);
    const runner = await call('find_references', { symbol: 'Runner.invoke' });
    assert.ok(runner.references.every((r: Json) => r.confidence < 0.5), 'data.invoke() binds to no class by a name it does not have');
  });

  it('a parameter annotated with a container type (Mapping[str, str], typing.Mapping[…] | None) is not the class named like it', async () => {
    const call = await make({
      'web/headers.py': 'class Headers:\n    def items(self):\n        return []\n',
      'web/use.py': [
        'import typing', 'from typing import Mapping', '',
        'def typed(headers: typing.Mapping[str, str] | None = None):', '    return headers.items()', '',
        'def generic(headers: Mapping[str, str]):', '    return headers.items()', '',
        'def untyped(headers):', '    return headers.items()', '',
        'def union(headers: Mapping[str, str] | None = None):', '    return headers.items()', '',
        'import anyio', '', 'class UploadFile:', '    def read(self):', '        return b""', '',
        'async def stream(path):', '    async with await anyio.open_file(path) as file:', '        return await file.read()', '',
      ].join('\n'),
    });
    assert.deepEqual(await typedUsers(call, 'Headers.items', 0.5), ['untyped']);
    assert.deepEqual(await typedUsers(call, 'UploadFile.read', 0.5), [], 'async with await anyio.open_file(…) as file: a value from outside');
  });

  it('a tier\'s confidence follows its measured precision in the language family (Python scope_type and method_name)', async () => {
    const call = await make({
      'app/store.py': [
        'class Store:', '    def save(self):', '        return 1', '', '    def only_here(self):', '        return 3', '',
        'class Cache:', '    def save(self):', '        return 2', '',
      ].join('\n'),
      'app/use.py': 'from app.store import Store\n\ndef run(x):\n    y = Store()\n    return x.save()\n\ndef other(z):\n    return z.only_here()\n',
      'tests/test_use.py': 'from app.use import run\n\ndef test_run():\n    assert run(None)\n',
      'web/store.ts': 'export class Store {\n  save() { return 1; }\n}\nexport class Cache {\n  save() { return 2; }\n}\n',
      'web/use.ts': "import { Store } from './store';\nexport function run(x: any) {\n  const y = new Store();\n  return x.save();\n}\n",
    });
    const conf = async (symbol: string, path: string) => (await call('find_references', { symbol, path })).references
      .map((r: Json) => `${r.from.path}:${r.confidence}`);
    assert.deepEqual(await conf('Store.save', 'app/store.py'), ['app/use.py:0.45']);
    assert.deepEqual(await conf('Store.only_here', 'app/store.py'), ['app/use.py:0.25']);
    assert.deepEqual(await conf('Store.save', 'web/store.ts'), ['web/use.ts:0.65']);
    // a weaker tier is still not a name-only binding: the tests of the target are found through it
    const tests = await call('related_tests', { symbol: 'Store.save', path: 'app/store.py' });
    assert.deepEqual(tests.tests.map((t: Json) => sp(t.node)), ['test_run']);
  });

  it('a receiver holding a value from outside the repository is not bound by its name (open(…) as file)', async () => {
    const call = await make({
      'web/upload.py': 'class UploadFile:\n    def write(self, data):\n        return data\n',
      'web/save.py': [
        'def save(upload_file):', '    upload_file.write(b"x")', '', 'def copy(path):', '    with open(path, "wb") as file:',
        '        file.write(b"y")', '',
      ].join('\n'),
    });
    const uses = await call('find_references', { symbol: 'UploadFile.write' });
    assert.deepEqual(uses.references.filter((r: Json) => r.confidence >= 0.5).map((r: Json) => sp(r.from)), ['save']);
  });

  it('a method every definition of its name overrides binds a call on an unknown receiver (tier hierarchy)', async () => {
    const overrides = ['Const', 'Add', 'Mul', 'Neg'].map((c, i) => `class ${c}(Expr):\n    def as_const(self, ctx=None):\n        return ${i}\n`).join('\n');
    const unrelated = ['Queue', 'Cache', 'Db', 'Store'].map(c => `class ${c}:\n    def put(self, x):\n        return x\n`).join('\n');
    const call = await make({
      'tpl/nodes.py': `class Node:\n    pass\n\nclass Expr(Node):\n    def as_const(self, ctx=None):\n        raise ValueError()\n\n${overrides}`,
      'tpl/store.py': unrelated,
      'tpl/fold.py': 'def fold(node):\n    return node.as_const()\n\ndef keep(box, x):\n    return box.put(x)\n',
    });
    assert.deepEqual(await users(call, 'Expr.as_const', undefined, ['calls']), ['tpl/fold.py:fold']);
    assert.deepEqual(await users(call, 'Const.as_const', undefined, ['calls']), ['tpl/fold.py:fold']);
    assert.deepEqual(await users(call, 'Queue.put', undefined, ['calls']), []);
    // two hierarchies sharing the name: one of their roots, bound by name only
    const twoRoots = await make({
      'tpl/nodes.py': `class Node:\n    pass\n\nclass Expr(Node):\n    def as_const(self, ctx=None):\n        raise ValueError()\n\n${overrides}\nclass Pair(Node):\n    def as_const(self, ctx=None):\n        return 9\n`,
      'tpl/fold.py': 'def fold(node):\n    return node.as_const()\n',
    });
    const refs = await twoRoots('find_references', { symbol: 'Pair.as_const' });
    assert.deepEqual(refs.references.map((r: Json) => sp(r.from)), ['fold']);
    assert.ok(refs.references[0].confidence < 0.5);
  });

  it('a call on a package outside the repository binds to nothing here (json.load is not Config.load)', async () => {
    const call = await make({
      'app/config.py': [
        'import json', 'import yaml as y', '', 'class Config:', '    def load(self):', '        return 1', '',
        '    def read(self, f):', '        return json.load(f) or y.load(f)', '',
        'def start(config):', '    return config.load()', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, 'Config.load', undefined, ['calls']), ['app/config.py:start']);
  });

  it('a test file named after the target\'s file lists its test functions, never the file in their place', async () => {
    const call = await make({
      'shop/cart.py': 'def total(items):\n    return sum(items)\n',
      'tests/test_cart.py': 'def helper():\n    return 1\n\ndef test_empty():\n    assert helper()\n\ndef test_other():\n    assert True\n',
      'web/cart.test.ts': "describe('cart', () => { it('adds', () => { expect(1).toBe(1); }); });\n",
      'web/cart.ts': 'export function add(a: number) { return a; }\n',
    });
    const py = await call('related_tests', { symbol: 'total' });
    assert.deepEqual(py.tests.map((t: Json) => `${t.node.kind}:${sp(t.node)}`).sort(), ['function:test_empty', 'function:test_other']);
    assert.match(py.tests[0].reason, /named after shop\/cart\.py/);
    const ts = await call('related_tests', { symbol: 'add' });
    assert.deepEqual(ts.tests.map((t: Json) => `${t.node.kind}:${t.node.path}`), ['file:web/cart.test.ts']);
  });

  it('a test file named after the target\'s file: its tests named for the target, when some are', async () => {
    const call = await make({
      'shop/filters.py': 'def sync_do_first(seq):\n    return seq[0]\n\ndef do_rest(seq):\n    return seq[1:]\n',
      'tests/test_filters.py': 'def test_first():\n    assert True\n\ndef test_first_empty():\n    assert True\n\ndef test_last():\n    assert True\n',
    });
    const first = await call('related_tests', { symbol: 'sync_do_first' });
    assert.deepEqual(first.tests.map((t: Json) => sp(t.node)).sort(), ['test_first', 'test_first_empty']);
    const rest = await call('related_tests', { symbol: 'do_rest' });
    assert.equal(rest.tests.length, 3, 'no test named for it: every test of the file');
  });

  it('a test file named after the target\'s file is a fallback: not listed beside tests found by calls', async () => {
    const call = await make({
      'shop/cart.py': 'def total(items):\n    return sum(items)\n',
      'tests/test_cart.py': 'def test_empty():\n    assert True\n',
      'tests/test_checkout.py': 'from shop.cart import total\n\ndef test_total():\n    assert total([1]) == 1\n',
    });
    const py = await call('related_tests', { symbol: 'total' });
    assert.deepEqual(py.tests.map((t: Json) => sp(t.node)), ['test_total']);
  });
  it('a call of a value of a callable type may run each function taking its parameter types (tier protocol)', async () => {
    const call = await make({
      'web/types.py': [
        'import typing', 'from typing import Awaitable, Callable', '',
        'Scope = typing.MutableMapping[str, typing.Any]',
        'ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]', '',
      ].join('\n'),
      'web/router.py': [
        'from web.types import Receive, Scope, Send', '', 'class Router:',
        '    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:', '        return None', '',
        '    async def handle(self, scope: Scope, receive) -> None:', '        return None', '',
      ].join('\n'),
      'web/middleware.py': [
        'from web.types import ASGIApp, Receive, Scope, Send', '', 'class Middleware:',
        '    def __init__(self, app: ASGIApp) -> None:', '        self.app = app', '',
        '    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:', '        await self.app(scope, receive, send)', '',
        'def wrap(app: ASGIApp) -> ASGIApp:',
        '    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:', '        await app(scope, receive, send)',
        '    return wrapped', '',
      ].join('\n'),
    });
    // both calls of a value typed ASGIApp are calls of the type
    assert.deepEqual(await users(call, 'ASGIApp', undefined, ['calls']), ['web/middleware.py:Middleware.__call__', 'web/middleware.py:wrap.wrapped']);
    // and possible calls of each function taking (Scope, Receive, Send), marked protocol
    const refs = await call('find_references', { symbol: 'Router.__call__' });
    assert.deepEqual(refs.references.map((r: Json) => sp(r.from)).sort(), ['Middleware.__call__', 'wrap.wrapped']);
    assert.ok(refs.references.every((r: Json) => r.confidence <= 0.3 && /protocol: .*takes the parameters of ASGIApp/.test(r.evidence)), JSON.stringify(refs.references));
    // a method whose parameters are not all of those types implements nothing
    assert.deepEqual((await call('find_references', { symbol: 'Router.handle' })).references, []);
    const impact = await call('impact', { symbol: 'Router.__call__', depth: 2 });
    assert.ok(impact.affected.some((a: Json) => sp(a.node) === 'Middleware.__call__' && a.name_only), JSON.stringify(impact.affected));
  });
  it('a callable type without parameters is implemented by the functions without parameters that return its result', async () => {
    const call = await make({
      'web/types.py': [
        'from typing import Awaitable, Callable', '', 'class Message:', '    pass', '',
        'Receive = Callable[[], Awaitable[Message]]', 'Tick = Callable[[], None]', '',
      ].join('\n'),
      'web/requests.py': [
        'from web.types import Receive, Tick', '', 'class Request:',
        '    def __init__(self, receive: Receive, tick: Tick) -> None:', '        self._receive = receive', '        self._tick = tick', '',
        '    async def body(self):', '        return await self._receive()', '',
        '    def beat(self):', '        self._tick()', '',
      ].join('\n'),
      'web/client.py': [
        'from web.types import Message', '', 'class Client:',
        '    def request(self, app):', '        async def receive() -> Message:', '            return Message()', '',
        '        async def other(n) -> Message:', '            return Message()', '',
        '        def done() -> None:', '            return None', '',
        '        app(receive, other, done)', '',
        '    async def next_message(self) -> Message:', '        return Message()', '',
      ].join('\n'),
    });
    const refs = async (symbol: string) => (await call('find_references', { symbol })).references.map((r: Json) => sp(r.from));
    // `self._receive()` calls a value of Receive: a possible call of each function that takes nothing and gives a Message
    assert.deepEqual(await refs('Client.request.receive'), ['Client.request', 'Request.body']);
    assert.deepEqual(await refs('Client.next_message'), ['Request.body'], 'a method takes nothing but self');
    assert.deepEqual(await refs('Client.request.other'), ['Client.request'], 'it takes a parameter');
    // a type whose calls give nothing names no result: every function without parameters would match
    assert.deepEqual(await refs('Client.request.done'), ['Client.request']);
    const body = (await call('find_references', { symbol: 'Client.request.receive' })).references.find((r: Json) => sp(r.from) === 'Request.body');
    assert.match(body.evidence, /protocol: .*takes nothing and returns Message, like Receive/);
  });
  it('a member of a class or module named outright has the type its method returns (Rake.application.lookup)', async () => {
    const call = await make({
      'lib/rake/rake_module.rb': 'module Rake\n  class << self\n    def application\n      @application ||= Rake::Application.new\n    end\n  end\nend\n',
      'lib/rake/task_manager.rb': 'module Rake\n  module TaskManager\n    def lookup(name)\n      name\n    end\n  end\nend\n',
      'lib/rake/application.rb': 'module Rake\n  class Application\n    include TaskManager\n  end\nend\n',
      'lib/rake/other.rb': 'class Other\n  def lookup(name)\n    name\n  end\nend\n',
      'lib/rake/task.rb': 'module Rake\n  class Task\n    def self.find(name)\n      Rake.application.lookup(name)\n    end\n  end\nend\n',
    });
    // the method's last expression constructs Application: the call is bound by type, not by a shared name
    assert.deepEqual(await typedUsers(call, 'Rake.TaskManager.lookup'), ['Rake.Task.find']);
    assert.deepEqual(await typedUsers(call, 'Other.lookup', 0.3), []);
  });
  it('a return annotation names its class through a generic, Optional, a union with None or a string', async () => {
    const call = await make({
      'pkg/bar.py': [
        'import typing as t', '', 'V = t.TypeVar("V")', '', 'class ProgressBar(t.Generic[V]):',
        '    def __iter__(self) -> t.Iterator[V]:', '        return iter([])', '',
        '    def render(self) -> None:', '        pass', '',
        'def generic(items) -> ProgressBar[V]:', '    return make(items)', '',
        'def optional() -> t.Optional[ProgressBar]:', '    return None', '',
        'def union() -> ProgressBar | None:', '    return None', '',
        'def quoted() -> "ProgressBar":', '    return None', '',
        'def outside() -> t.Iterator[ProgressBar]:', '    return None', '',
        ...['generic', 'optional', 'union', 'quoted', 'outside'].flatMap(f => [`def use_${f}():`, `    ${f}([]).render()`, '']),
        'def loop():', '    for x in generic([]):', '        pass', '',
      ].join('\n'),
    });
    const typed = async (symbol: string) => (await call('find_references', { symbol })).references
      .filter((r: Json) => r.confidence >= 0.5).map((r: Json) => sp(r.from)).sort();
    // an Iterator of the class is no instance of it: that call stays a guess by name
    assert.deepEqual(await typed('ProgressBar.render'), ['use_generic', 'use_optional', 'use_quoted', 'use_union']);
    assert.deepEqual(await typed('ProgressBar.__iter__'), ['loop'], 'iterating what the generic annotation names');
  });
  it('a function defined after its @overload stubs: its local imports and nested definitions bind inside it', async () => {
    const call = await make({
      'pkg/__init__.py': '',
      'pkg/decorators.py': [
        'import typing as t', '', '@t.overload', 'def command(name: t.Callable) -> int: ...', '',
        '@t.overload', 'def command(name: str | None = None) -> t.Callable: ...', '',
        'def command(name=None):', '    def decorator(f):', '        return f', '',
        '    if callable(name):', '        return decorator(name)', '    return decorator', '',
      ].join('\n'),
      'pkg/core.py': [
        'import typing as t', '', 'class Group:', '    @t.overload', '    def command(self, f: t.Callable) -> int: ...', '',
        '    @t.overload', '    def command(self, *args: str) -> t.Callable: ...', '',
        '    def command(self, *args):', '        from .decorators import command', '',
        '        def decorator(f):', '            return command(*args)(f)', '',
        '        return decorator', '',
        ...['Other', 'Third', 'Fourth'].flatMap(c => [`class ${c}:`, '    def command(self):', '        return 1', '']),
      ].join('\n'),
    });
    const refs = async (symbol: string) => (await call('find_references', { symbol, kinds: ['calls'] })).references
      .map((r: Json) => `${sp(r.from)} ${r.confidence}`);
    // the import inside Group.command~3 binds `command` in the closure nested in it (not a name shared by 4 methods)
    assert.deepEqual(await refs('pkg.decorators.command'), ['Group.command.decorator 0.8']);
    // `decorator(name)` inside command~3 is the closure nested in it; Group's closure calls what command(…) returns
    assert.deepEqual((await refs('pkg.decorators.command.decorator')).sort(), ['Group.command.decorator 0.7', 'command~3 0.85']);
  });
  it('an unannotated factory returns the class its return statement constructs (s = session(); s.send())', async () => {
    const call = await make({
      'pkg/sessions.py': 'class Session:\n    def send(self):\n        return 1\n\n\ndef session():\n    return Session()\n',
      'pkg/other.py': 'class Transport:\n    def send(self):\n        return 2\n',
      'pkg/api.py': 'from pkg.sessions import session\n\n\ndef get():\n    s = session()\n    return s.send()\n',
    });
    assert.deepEqual(await typedUsers(call, 'Session.send'), ['get']);
    assert.deepEqual(await typedUsers(call, 'Transport.send', 0.2), []);
  });

  it('a property read on a value of unknown type is its call when every definition overrides one property', async () => {
    const call = await make({
      'auth/users.py': [
        'class BaseUser:', '    @property', '    def display_name(self) -> str:', '        raise NotImplementedError()', '',
        'class SimpleUser(BaseUser):', '    @property', '    def display_name(self) -> str:', '        return "x"', '',
        '    def greeting(self) -> str:', '        return "hi"', '',
      ].join('\n'),
      'auth/views.py': 'def homepage(request):\n    name = request.scope_owner.display_name\n    hello = request.scope_owner.greeting\n    return name, hello\n',
    });
    // bound to the property all definitions override, as a call: dispatch reaches the override
    const refs = await call('find_references', { symbol: 'SimpleUser.display_name' });
    assert.deepEqual(refs.references.map((r: Json) => sp(r.from)), ['homepage']);
    assert.ok(refs.references[0].confidence <= 0.5 && /dispatch/.test(refs.references[0].evidence), JSON.stringify(refs.references[0]));
    // a method read by name is no call: nothing binds it
    assert.deepEqual((await call('find_references', { symbol: 'SimpleUser.greeting' })).references, []);
  });

  it('Python: type(self)(…) and self.__class__(…) construct the own class; `with self` enters it; a copied bound method runs', async () => {
    const call = await make({
      'pkg/ctx.py': [
        'class Context:', '    def __init__(self, parent=None):', '        self.parent = parent', '',
        '    def sub(self):', '        return type(self)(parent=self)', '',
        '    def copy(self):', '        return self.__class__(self.parent)', '',
        '    def plain(self):', '        return type(self)', '',
        '    def __exit__(self, *exc):', '        return None', '',
        '    def scope(self):', '        with self as ctx:', '            yield ctx', '',
        '    def _finish(self, value):', '        return value', '',
        '    def make_finalize(self):', '        finish = self._finish', '',
        '        def finalize(value):', '            return finish(value)', '',
        '        return finalize', '',
      ].join('\n'),
    });
    assert.deepEqual(await typedUsers(call, 'Context.__init__'), ['Context.copy', 'Context.sub']);
    assert.deepEqual(await typedUsers(call, 'Context.__exit__'), ['Context.scope']);
    assert.deepEqual(await typedUsers(call, 'Context._finish'), ['Context.make_finalize', 'Context.make_finalize.finalize']);
  });

  it('Python: `del x[k]` runs __delitem__; `self.h = h or Headers()` holds a Headers', async () => {
    const call = await make({
      'pkg/headers.py': [
        'class Headers:', '    def __getitem__(self, key):', '        return key', '',
        '    def __delitem__(self, key):', '        return None', '',
        '    def __len__(self):', '        return 0', '',
      ].join('\n'),
      'pkg/upload.py': [
        'from pkg.headers import Headers', '', 'class Upload:', '    def __init__(self, headers=None):',
        '        self.headers = headers or Headers()', '', '    def size(self):', '        return len(self.headers)', '',
        'def strip(h: Headers):', '    del h["content-length"]', '',
        'def read(h: Headers):', '    return h["content-length"]', '',
      ].join('\n'),
    });
    assert.deepEqual(await typedUsers(call, 'Headers.__delitem__'), ['strip']);
    assert.deepEqual(await typedUsers(call, 'Headers.__getitem__'), ['read']);
    assert.deepEqual(await typedUsers(call, 'Headers.__len__'), ['Upload.size']);
  });

  it('Ruby: `x.chain = v` calls the setter chain=; `t |= u` calls the operator method |', async () => {
    const call = await make({
      'lib/chain.rb': 'module Mixin\n  def chain=(value)\n    @chain = value\n  end\n\n  def chain\n    @chain\n  end\nend\n',
      'lib/task.rb': [
        'class Task', '  def |(other)', '    self', '  end', '',
        '  def add_chain_to(error)', '    error.chain = 1', '  end', '',
        '  def enhance', '    task = Task.new', '    task |= [1]', '  end', 'end', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, 'Mixin.chain='), ['lib/task.rb:Task.add_chain_to']);
    assert.deepEqual(await users(call, 'Mixin.chain'), [], 'an assignment reads nothing');
    assert.deepEqual(await typedUsers(call, 'Task.|'), ['Task.enhance']);
  });

  it('related_tests goes on from a function first met through a name-only binding once a typed call reaches it', async () => {
    const call = await make({
      'pkg/cache.py': [
        'class Cache:', '    def __init__(self, n):', '        self.n = n', '',
        '    def copy(self):', '        return self.__class__(self.n)', '',
        'class Other:', '    def copy(self):', '        return self', '',
        'def create_cache(n):', '    return Cache(n)', '',
      ].join('\n'),
      'pkg/env.py': [
        'from pkg.cache import create_cache', '', 'class Env:', '    def __init__(self, options):',
        '        self.options = options.copy()', '        self.cache = create_cache(1)', '',
      ].join('\n'),
      'tests/test_env.py': 'from pkg.env import Env\n\n\ndef test_env():\n    assert Env({}).cache\n',
    });
    // Env.__init__ is met first by `options.copy()` (a shared name, not followed), then by its typed call of create_cache
    const tests = await call('related_tests', { symbol: 'Cache.__init__' });
    assert.deepEqual(tests.tests.map((t: Json) => sp(t.node)), ['test_env']);
    assert.match(tests.tests[0].reason, /create_cache/);
  });

  it('a function handed over as a value is called by the code that calls the parameter it lands in (tier callback)', async () => {
    const call = await make({
      'cl/core.py': [
        'import typing as t', '', 'class Context:', '    @t.overload', '    def invoke(self, callback): ...', '',
        '    def invoke(self, callback, *args, **kwargs):', '        return callback(*args, **kwargs)', '',
        'class Command:', '    def __init__(self, name, callback=None):', '        self.callback = callback', '',
        '    def invoke(self, ctx: Context):', '        return ctx.invoke(self.callback)', '',
      ].join('\n'),
      'cl/decorators.py': [
        'import typing as t', 'from cl.core import Command', '',
        'def command(name=None, cls=None):', '    if cls is None:', '        cls = t.cast("type[Command]", Command)', '',
        '    def decorator(f):', '        return cls(name, callback=f)', '', '    return decorator', '',
        'def pass_context(f):', '    def new_func(*args):', '        return f(1, *args)', '', '    return new_func', '',
        'def logged(f):', '    return f', '',
      ].join('\n'),
      'cl/app.py': [
        'from cl.core import Command', 'from cl.decorators import command, logged, pass_context', '',
        'def helper():', '    return 1', '',
        '@command()', '@pass_context', 'def cli(ctx):', '    return helper()', '',
        '@logged', 'def quiet():', '    return helper()', '',
        'def plain():', '    return helper()', '', 'PLAIN = Command("plain", callback=plain)', '',
      ].join('\n'),
      'tests/test_commands.py': 'from cl.core import Command, Context\n\n\ndef test_run():\n    Command("x").invoke(Context())\n',
    });
    const refs = await call('find_references', { symbol: 'cli' });
    const callback = refs.references.filter((r: Json) => /^callback: /.test(r.evidence));
    // Context.invoke (the overload's implementation) through Command.__init__ → self.callback → ctx.invoke, and new_func
    assert.deepEqual(callback.map((r: Json) => sp(r.from)).sort(), ['Context.invoke~2', 'pass_context.new_func']);
    assert.ok(callback.every((r: Json) => r.confidence === 0.6), JSON.stringify(callback));
    assert.match(callback.find((r: Json) => sp(r.from) === 'Context.invoke~2').evidence, /handed to command\.decorator at cl\/app\.py:7; .* calls it as callback/);
    // handed over by its own module's top level (no edge records that use): the same invoker
    const plain = (await call('find_references', { symbol: 'plain' })).references.filter((r: Json) => /^callback: /.test(r.evidence));
    assert.deepEqual(plain.map((r: Json) => sp(r.from)), ['Context.invoke~2']);
    // a decorator that never calls its function hands it to nobody
    assert.deepEqual((await call('find_references', { symbol: 'quiet' })).references, []);
    // what is at stake reaches the invokers' callers
    const impact = await call('impact', { symbol: 'helper', depth: 3 });
    assert.ok(['Context.invoke~2', 'Command.invoke'].every(n => impact.affected.some((a: Json) => sp(a.node) === n)), JSON.stringify(impact.affected.map((a: Json) => sp(a.node))));
    // a test that runs some command does not run every callback: the walk for tests does not follow callback edges
    assert.deepEqual((await call('related_tests', { symbol: 'helper' })).tests, []);
  });

  it('Ruby: a call made in a block runs where the callee yields or calls the block it keeps (tier callback)', async () => {
    const call = await make({
      'lib/app.rb': [
        'class App', '  def guarded', '    yield', '  rescue StandardError', '    nil', '  end', '',
        '  def later(&block)', '    @block = block', '  end', '',
        '  def run_later', '    @block.call', '  end', '',
        '  def plain(x)', '    x', '  end', '',
        '  def handle_options', '    1', '  end', '',
        '  def run', '    guarded do', '      handle_options', '    end', '    later { handle_options }', '    plain(1) { handle_options }', '  end', 'end', '',
      ].join('\n'),
    });
    const refs = await call('find_references', { symbol: 'App.handle_options' });
    const callback = refs.references.filter((r: Json) => /^callback: /.test(r.evidence));
    // the block's calls run inside guarded (yield) and run_later (the kept block); plain never runs its block
    assert.deepEqual(callback.map((r: Json) => sp(r.from)).sort(), ['App.guarded', 'App.run_later']);
    assert.match(callback.find((r: Json) => sp(r.from) === 'App.guarded').evidence, /called in a block handed to App\.guarded .* runs it by yield/);
    assert.deepEqual(refs.references.filter((r: Json) => !/^callback: /.test(r.evidence)).map((r: Json) => sp(r.from)), ['App.run']);
  });

  it('impact reaches the callers of a typing overload set through its implementation (calls bind to the first stub)', async () => {
    const call = await make({
      'pkg/ctx.py': [
        'import typing as t', '', 'class Context:', '    @t.overload', '    def invoke(self, cb): ...', '',
        '    def invoke(self, cb, *args):', '        return cb(*args)', '',
      ].join('\n'),
      'pkg/run.py': [
        'from pkg.ctx import Context', '', 'def helper():', '    return 1', '', 'def cli():', '    return helper()', '',
        'def register(ctx: Context):', '    return ctx.invoke(cli)', '',
        'def other():', '    return 2', '', 'def main(ctx):', '    return ctx.invoke(other)', '',
      ].join('\n'),
    });
    const impact = await call('impact', { symbol: 'helper', depth: 3 });
    const at = Object.fromEntries(impact.affected.map((a: Json) => [sp(a.node), a.distance]));
    // helper ← cli ← Context.invoke~2 (runs the callback) ← main, whose call (`ctx` named like Context) binds to the stub
    assert.equal(at['Context.invoke~2'], 2, JSON.stringify(at));
    assert.equal(at.main, 3, JSON.stringify(at));
  });

  it('a callback is not run by a call that passes it more arguments than it takes (the branch that stores another value)', async () => {
    const call = await make({
      'web/routing.py': [
        'def wrap(func):', '    def app(scope, receive, send):', '        return func(scope)', '', '    return app', '',
        'class Route:', '    def __init__(self, endpoint):', '        if isinstance(endpoint, type):', '            self.app = endpoint',
        '        else:', '            self.app = wrap(endpoint)', '',
        '    def handle(self, scope, receive, send):', '        return self.app(scope, receive, send)', '',
      ].join('\n'),
      'web/app.py': 'from web.routing import Route\n\n\ndef homepage(request):\n    return request\n\n\nROUTE = Route(homepage)\n',
    });
    const refs = (await call('find_references', { symbol: 'homepage' })).references.filter((r: Json) => /^callback: /.test(r.evidence));
    assert.deepEqual(refs.map((r: Json) => sp(r.from)), ['wrap.app']);
  });

  it('a member a class defines at run time: Ruby define_method / class_eval in its body, Python __getattr__', async () => {
    const call = await make({
      'lib/file_list.rb': [
        'class FileList', '  %w[sort map].each do |sym|', '    define_method(sym) { |*args| @items.send(sym, *args) }', '  end', '',
        '  def self.[](*args)', '    new(*args)', '  end', '',
        '  def include(x)', '    x', '  end', 'end', '',
        'class Holder', '  def initialize', '    @list = FileList["a", "b"]', '  end', '',
        '  def sorted', '    @list.sort', '  end', '', '  def kind', '    @list.class', '  end', 'end', '',
      ].join('\n'),
      'pkg/proxy.py': [
        'class Proxy:', '    def __getattr__(self, name):', '        return name', '',
        'class Plain:', '    def known(self):', '        return 1', '',
        'def use(p: Proxy, q: Plain):', '    p.anything()', '    q.unknown()', '',
      ].join('\n'),
    });
    // @list.sort runs a method FileList's body defines (bound to the class); @list.class is Object's own
    const refs = (await call('find_references', { symbol: 'FileList' })).references;
    assert.deepEqual(refs.filter((r: Json) => / defines at run time/.test(r.evidence)).map((r: Json) => sp(r.from)), ['Holder.sorted'], JSON.stringify(refs));
    assert.ok(!refs.some((r: Json) => sp(r.from) === 'Holder.kind'), JSON.stringify(refs));
    assert.deepEqual(await typedUsers(call, 'Proxy.__getattr__'), ['use']);
    assert.deepEqual((await call('find_references', { symbol: 'Plain.known' })).references, []);
  });

  it('a function returns the class its body constructs: a private class, through a factory, under a library annotation; async comprehensions iterate', async () => {
    const call = await make({
      'app/iters.py': [
        'import typing as t', '',
        'class _Wrapper:', '    def __init__(self, it):', '        self._it = it', '',
        '    def __aiter__(self):', '        return self', '',
        'def wrap(x) -> "t.AsyncIterator[int]":', '    return _Wrapper(iter(x))', '',
        'def plain(x):', '    return _Wrapper(x)', '',
        'def make_plain(x):', '    return plain(x)', '',
      ].join('\n'),
      'app/use.py': [
        'from app.iters import wrap, make_plain', '',
        'async def total(v):', '    async for x in wrap(v):', '        pass', '',
        'def first(v):', '    return make_plain(v).__aiter__()', '',
        'async def listed(v):', '    return [x async for x in wrap(v)]', '',
      ].join('\n'),
    });
    assert.deepEqual(await typedUsers(call, '_Wrapper.__aiter__'), ['first', 'listed', 'total']);
  });

  it('pytest: a function in a parametrize decorator is handed to the test it decorates (a use by that test, a likely test of it)', async () => {
    const call = await make({
      'app/utils.py': 'def auto_aiter(x):\n    return x\n\ndef plain(x):\n    return x\n',
      'tests/test_iter.py': [
        'import pytest', 'from app.utils import auto_aiter, plain', '',
        '@pytest.mark.parametrize(', '    "transform", [plain, auto_aiter]', ')',
        'def test_transform(transform):', '    assert transform([1])', '',
        'class TestInClass:', '    @pytest.mark.parametrize("transform", [auto_aiter])',
        '    def test_method(self, transform):', '        assert transform([1])', '',
      ].join('\n'),
    });
    const uses = await users(call, 'auto_aiter', undefined, ['references', 'calls']);
    assert.deepEqual(uses, ['tests/test_iter.py:TestInClass.test_method', 'tests/test_iter.py:test_transform']);
    const tests = await call('related_tests', { symbol: 'auto_aiter' });
    assert.deepEqual(tests.tests.map((t: Json) => `${sp(t.node)}:${t.likely}`).sort(), ['TestInClass.test_method:true', 'test_transform:true']);
  });

  it('pytest: a test parameter holds each class its parametrize cases construct; a method called on it runs each', async () => {
    const call = await make({
      'app/types.py': [
        'class ParamType:', '    def to_info_dict(self):', '        return {}', '',
        'class Path(ParamType):', '    def to_info_dict(self):', '        return {"p": 1}', '',
        'class DateTime(ParamType):', '    def to_info_dict(self):', '        return {"d": 1}', '',
        'class Choice(ParamType):', '    def to_info_dict(self):', '        return {"c": 1}', '',
      ].join('\n'),
      'tests/test_info.py': [
        'import pytest', 'from app import types', '',
        '@pytest.mark.parametrize(', '    ("obj", "expect"),', '    [', '        pytest.param(types.Path(), {"p": 1}, id="path"),',
        '        (types.DateTime(), {"d": 1}),', ...Array(50).fill('        ("x", {}),'), '    ],', ')',
        'def test_parameter(obj, expect):', '    assert obj.to_info_dict() == expect', '',
        'def test_other(obj):', '    obj = types.Choice()', '    return obj.to_info_dict()', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, 'Path.to_info_dict', undefined, ['calls']), ['tests/test_info.py:test_parameter']);
    assert.deepEqual(await users(call, 'DateTime.to_info_dict', undefined, ['calls']), ['tests/test_info.py:test_parameter']);
    assert.deepEqual(await users(call, 'Choice.to_info_dict', undefined, ['calls']), ['tests/test_info.py:test_other'],
      'a parameter assigned in the test holds what it is assigned');
    const tests = await call('related_tests', { symbol: 'DateTime.to_info_dict' });
    assert.deepEqual(tests.tests.map((t: Json) => `${sp(t.node)}:${t.likely}`), ['test_parameter:true']);
  });

  it('a call on a platform constant (ENV[…]) or on a local holding an outside value is none of the classes the scope names (tier scope_type)', async () => {
    const call = await make({
      'lib/manager.rb': 'class Manager\n  def [](name)\n    name\n  end\nend\n',
      'lib/columns.rb': [
        'class Columns', '  def width(m = Manager.new)', '    ENV["COLUMNS"]', '  end', '',
        '  def lookup(m = Manager.new)', '    m["x"]', '  end', 'end', '',
      ].join('\n'),
      'srv/server.py': 'class Server:\n    def shutdown(self):\n        return 1\n',
      'srv/run.py': [
        'import socket', 'from srv.server import Server', '',
        'def close(server: Server):', '    sock = socket.socket()', '    sock.shutdown()', '',
        'def stop(server: Server, other):', '    other.shutdown()', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, 'Manager.[]'), ['lib/columns.rb:Columns.lookup']);
    assert.deepEqual(await typedUsers(call, 'Server.shutdown', 0.4), ['stop']);
  });

  it('syntax running a member every object has (interpolation\'s to_s, ==) is not bound to a class the scope names', async () => {
    const call = await make({
      'lib/task.rb': 'class Task\n  def to_s\n    "t"\n  end\n\n  def ==(other)\n    true\n  end\nend\n',
      'lib/show.rb': [
        'def show(n)', '  t = Task.new', '  numbers = "12" * 8', '  "#{numbers[0, 5]} #{n}"', 'end', '',
        'def typed', '  t = Task.new', '  "#{t}"', 'end', '', 'def compare(a, b)', '  Task.new', '  a == b', 'end', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, 'Task.to_s', undefined, ['calls']), ['lib/show.rb:typed'], 'a value of known type still binds');
    assert.deepEqual(await users(call, 'Task.==', undefined, ['calls']), []);
  });

  it('a module-level constant holds what its assignment makes, where it is named (Rake::EARLY = EarlyTime.instance, an imported DEFAULTS)', async () => {
    const call = await make({
      'lib/early.rb': [
        'require "singleton"', 'module Rake', '  class EarlyTime', '    include Comparable', '    include Singleton', '',
        '    def <=>(other)', '      -1', '    end', '  end', '', '  EARLY = EarlyTime.instance', 'end', '',
      ].join('\n'),
      'test/test_early.rb': [
        'class TestEarly < Minitest::Test', '  def test_create', '    early = Rake::EarlyTime.instance', '    assert early < Time.now', '  end', '',
        '  def test_constant', '    assert Rake::EARLY > Time.now', '  end', 'end', '',
      ].join('\n'),
      'app/settings.py': 'class Settings:\n    def get(self, key):\n        return key\n\nDEFAULTS = Settings()\n\ndef local_read():\n    return DEFAULTS.get("y")\n',
      'app/use.py': 'from app.settings import DEFAULTS\n\ndef read():\n    return DEFAULTS.get("x")\n',
    });
    // Singleton gives EarlyTime an `instance` of itself; Comparable runs its <=> for < and >
    assert.deepEqual(await typedUsers(call, 'Rake.EarlyTime.<=>'), ['TestEarly.test_constant', 'TestEarly.test_create']);
    assert.deepEqual(await users(call, 'Rake.EarlyTime', undefined, ['references']), ['lib/early.rb:Rake.EARLY', 'test/test_early.rb:TestEarly.test_create']);
    assert.deepEqual(await typedUsers(call, 'Settings.get'), ['local_read', 'read']);
  });

  it('a function a parameter holds by default is called where the parameter (or the attribute keeping it) is called (tier callback)', async () => {
    const call = await make({
      'app/req.py': [
        'async def empty_receive():', '    raise RuntimeError("no")', '',
        'class Request:', '    def __init__(self, scope, receive=empty_receive):', '        self._receive = receive', '',
        '    async def stream(self):', '        return await self._receive()', '',
        'def run(job, done=print_done):', '    job()', '    return done(job)', '',
        'def print_done(job):', '    return job', '',
      ].join('\n'),
    });
    assert.deepEqual(await users(call, 'empty_receive', undefined, ['calls']), ['app/req.py:Request.stream']);
    assert.deepEqual(await users(call, 'print_done', undefined, ['calls']), ['app/req.py:run']);
  });

  it('an attribute of a value of known type holds what its class\'s methods assign it (parser.stream.expect, in another file)', async () => {
    const call = await make({
      'app/lexer.py': 'class TokenStream:\n    def expect(self, kind):\n        return kind\n\nclass Other:\n    def expect(self, kind):\n        return kind\n',
      'app/env.py': 'from app.lexer import TokenStream\n\nclass Environment:\n    def _tokenize(self, src) -> TokenStream:\n        return TokenStream()\n',
      'app/parser.py': [
        'from app.env import Environment', '', 'class Parser:', '    def __init__(self, environment: Environment, src):',
        '        self.stream = environment._tokenize(src)', '',
      ].join('\n'),
      'app/ext.py': 'from app.parser import Parser\n\nclass Ext:\n    def parse(self, parser: Parser):\n        return parser.stream.expect("name")\n',
    });
    assert.deepEqual(await typedUsers(call, 'TokenStream.expect'), ['Ext.parse']);
    assert.deepEqual(await typedUsers(call, 'Other.expect'), []);
  });

  it('a nested function a factory hands to a call is registered, not handed out: calling what the factory returns does not run it', async () => {
    const call = await make({
      'app/deco.py': [
        'def option(**kwargs):', '    def decorator(f):', '        return f', '    return decorator', '',
        'def help_option(**kwargs):', '    def show_help(ctx, value):', '        return value',
        '    kwargs.setdefault("callback", show_help)', '    return option(**kwargs)', '',
        'def use(cmd):', '    return help_option()(cmd)', '',
      ].join('\n'),
    });
    assert.deepEqual(await typedUsers(call, 'help_option.show_help'), ['help_option'], 'the factory registers it; use() does not run it');
    assert.deepEqual(await typedUsers(call, 'option.decorator'), ['option', 'use']);
  });
});
