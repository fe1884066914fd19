/**
 * related_tests says which tests are likely to run a symbol: every step a call bound with confidence
 * >= 0.5, and a function only registered in a table (or a class body) counts as run only by the tests
 * that name it. Likely tests come first; the others stay listed as possible.
 */
import { strict as assert } from 'node:assert';
import { Engine } from '../src/core/engine';
import { TOOLS } from '../src/core/tools/registry';
import { invokeTool } from '../src/core/tools/contract';
import { tempWorkspace } from './helpers/workspace';
import { sp } from './helpers/nodes';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const FILES = {
  'app/filters.py': [
    'def do_random(seq):', '    return seq[0]', '',
    'def do_upper(s):', '    return s.upper()', '',
    'FILTERS = {"random": do_random, "upper": do_upper}', '',
  ].join('\n'),
  'app/env.py': [
    'from app.filters import FILTERS', '',
    'class Env:', '    def __init__(self):', '        self.filters = dict(FILTERS)', '',
    '    def render(self, text):', '        return text', '',
  ].join('\n'),
  'app/core.py': 'def helper(x):\n    return x + 1\n\ndef compute(x):\n    return helper(x)\n',
  'app/cart.py': 'class Cart:\n    def total(self):\n        return 1\n',
  'app/order.py': 'class Order:\n    def total(self):\n        return 2\n',
  'tests/test_env.py': [
    'from app.env import Env', 'from app.core import compute', '',
    'def test_random_filter():', '    env = Env()', '    assert env.render("{{ items|random }}")', '',
    'def test_upper_filter():', '    env = Env()', '    assert env.render("{{ name|upper }}")', '',
    'def test_compute():', '    assert compute(1) == 2', '',
  ].join('\n'),
  'app/ser.py': [
    'class Serializer:', '    def loads(self, s):', '        return self.load_payload(s)', '',
    '    def load_payload(self, s):', '        return s', '',
    'class UrlSafe(Serializer):', '    def load_payload(self, s):', '        return s.strip()', '',
  ].join('\n'),
  'tests/test_ser.py': [
    'from app.ser import Serializer, UrlSafe', '',
    'def test_urlsafe():', '    assert UrlSafe().loads(" x") == "x"', '',
    'def test_plain():', '    assert Serializer().loads("x") == "x"', '',
  ].join('\n'),
  'app/parse.py': [
    'class ParseError(Exception):', '    def __init__(self, msg):', '        super().__init__(describe(msg))', '',
    'def describe(msg):', '    return msg.strip()', '',
    'def report(e):', '    return str(e)', '',
    'def explain(text):', '    return repr(text)', '',
    'def parse(text):', '    try:', '        return int(text)', '    except ValueError as e:', '        report(e)',
    '    if not text:', '        explain(text)', '        raise ParseError("empty")', '    return 0', '',
  ].join('\n'),
  'tests/test_parse.py': [
    'import pytest', 'from app.parse import parse', '',
    'def test_parse_number():', '    assert parse("1") == 1', '',
    'def test_parse_empty():', '    with pytest.raises(Exception):', '        parse("")', '',
  ].join('\n'),
  // DSL.task reaches resolve in three plain calls; the Helper override of task in one (through dispatch)
  'app/dsl.py': [
    'class DSL:', '    def task(self, name):', '        return define(name)', '',
    'def define(name):', '    return lookup(name)', '',
    'def lookup(name):', '    return resolve(name)', '',
    'def resolve(name):', '    return name', '',
  ].join('\n'),
  'tests/test_dsl.py': [
    'from app.dsl import DSL, resolve', '',
    'class Helper(DSL):', '    def task(self, name):', '        return resolve(name)', '',
    'class TestDsl(DSL):', '    def test_task(self):', '        assert self.task("x")', '',
  ].join('\n'),
  // a visitor runs visit_<node class> only for nodes of that class
  'app/visitor.py': [
    'class Visitor:', '    def visit(self, node):', '        f = getattr(self, f"visit_{type(node).__name__}")', '        return f(node)', '',
    '    def visit_Assign(self, node):', '        return 1', '',
    '    def visit_Loop(self, node):', '        return 2', '',
  ].join('\n'),
  'tests/test_visitor.py': [
    'from app.visitor import Visitor', '',
    'def test_assign_statement():', '    assert Visitor().visit("x = 1")', '',
    'def test_loop_statement():', '    assert Visitor().visit("for x in y: pass")', '',
  ].join('\n'),
  // do_tally is registered in a table (a test must name it) and called plainly, one hop further from entry()
  'app/tally.py': [
    'def do_tally(x):', '    return x', '', 'TABLE = {"sum": do_tally}', '',
    'def run_table(k):', '    return TABLE[k](1)', '',
    'def helper2():', '    return do_tally(2)', '', 'def mid():', '    return helper2()', '', 'def direct():', '    return mid()', '',
    'def entry():', '    run_table("sum")', '    return direct()', '',
  ].join('\n'),
  'tests/test_tally.py': 'from app.tally import entry\n\ndef test_both_ways():\n    assert entry()\n',
  // Sandbox.call runs only from generated code: no call of it is seen
  'app/sandbox.py': 'class Sandbox:\n    def call(self, f):\n        return f()\n\n    def render(self, src):\n        return eval(src)\n',
  'tests/test_sandbox.py': 'from app.sandbox import Sandbox\n\ndef test_render():\n    assert Sandbox().render("1") == 1\n',
  // AuthMw is used only at the test module's top level (a module-level app): the test file imports it
  'app/mw.py': 'class AuthMw:\n    def __init__(self, app):\n        self.app = app\n',
  'tests/test_login_flow.py': 'from app.mw import AuthMw\n\napp = build([AuthMw])\n\ndef test_login():\n    assert app\n',
  // a test that calls the target in its own except block: that block is its scenario
  'app/summary.py': 'def summarize(e):\n    return str(e)\n',
  'tests/test_summary.py': [
    'from app.summary import summarize', '',
    'def test_summary_of_failure():', '    try:', '        int("x")', '    except ValueError as e:', '        assert summarize(e)', '',
  ].join('\n'),
  // a call made only while a value is unset: `@x ||= make` (memoised)
  'lib/cache.rb': [
    'class Store', '  def initialize', '    @rows = []', '  end', 'end', '',
    'class Cache', '  def store', '    @store ||= Store.new', '  end', '', '  def size', '    store && 1', '  end', 'end', '',
  ].join('\n'),
  'test/test_cache.rb': [
    'require "minitest/autorun"', '',
    'class TestCache < Minitest::Test',
    '  def test_store_kept', '    assert Cache.new.store', '  end', '',
    '  def test_size', '    assert_equal 1, Cache.new.size', '  end', 'end', '',
  ].join('\n'),
  // a fallback on a line of its own runs only when what comes before gives nothing; on one line, both sides are plain
  'app/registry.py': [
    'def lookup(name):', '    return None', '', 'def build_from_rule(name):', '    return name', '',
    'def find(name):', '    return (lookup(name)', '            or build_from_rule(name))', '',
    'def find_short(name):', '    return lookup(name) or name', '',
  ].join('\n'),
  'tests/test_registry.py': [
    'from app.registry import find, find_short', '',
    'def test_find_known():', '    assert find("a")', '',
    'def test_find_by_rule():', '    assert find("rule:a")', '',
    'def test_short():', '    assert find_short("a")', '',
  ].join('\n'),
  'lib/tasks.rb': [
    'class Tasks', '  def [](name)', '    lookup(name) or', '      enhance_with_matching_rule(name)', '  end', '',
    '  def lookup(name)', '    nil', '  end', '', '  def enhance_with_matching_rule(name)', '    name', '  end', 'end', '',
  ].join('\n'),
  'test/test_tasks.rb': [
    'require "minitest/autorun"', '', 'class TestTasks < Minitest::Test',
    '  def test_lookup', '    assert Tasks.new["a"]', '  end', '', '  def test_matching_rule', '    assert Tasks.new["a.o"]', '  end', 'end', '',
  ].join('\n'),
  'tests/conftest.py': 'import pytest\nfrom app.env import Env\n\n@pytest.fixture\ndef env():\n    return Env()\n',
  'tests/test_fixture.py': 'def test_with_fixture(env):\n    assert env.render("x")\n',
  'tests/test_cart.py': [
    'from app.cart import Cart', '',
    'def test_cart_guessed(make):', '    c = make()', '    assert c.total() == 1', '',
    'def test_cart_typed():', '    assert Cart().total() == 1', '',
  ].join('\n'),
};

describe('related_tests: likely and possible tests', () => {
  let call: (tool: keyof typeof TOOLS, args: Json) => Promise<Json>;
  let markdown = '';
  let close: () => void;
  before(async () => {
    const ws = tempWorkspace(FILES);
    const e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    close = () => { e.close(); ws.remove(); };
    await e.index();
    call = async (tool, args) => {
      const out = await invokeTool(TOOLS[tool] as never, args, { engine: e });
      if (!out.ok) throw new Error(`${tool}: ${JSON.stringify(out.error)}`);
      markdown = out.markdown;
      return out.data as Json;
    };
  });
  after(() => close());

  const odds = (r: Json): string[] => r.tests.map((t: Json) => `${sp(t.node)}:${t.likely ? 'likely' : 'possible'}`);

  it('a function registered in a table is likely run only by the tests that name it, and those come first', async () => {
    const r = await call('related_tests', { symbol: 'do_random' });
    assert.deepEqual(odds(r), ['test_random_filter:likely', 'test_upper_filter:possible', 'test_with_fixture:possible']);
    assert.equal(r.likely_total, 1);
    const upper = await call('related_tests', { symbol: 'do_upper' });
    assert.deepEqual(odds(upper), ['test_upper_filter:likely', 'test_random_filter:possible', 'test_with_fixture:possible']);
    await call('related_tests', { symbol: 'do_random' }); // the Markdown of the first answer
    assert.match(markdown, /3 test\(s\) \(1 likely, 2 possible\)/);
    assert.match(markdown, /test_upper_filter.* possible d/);
  });

  it('plain calls through typed imports are likely', async () => {
    const r = await call('related_tests', { symbol: 'helper' });
    assert.deepEqual(odds(r), ['test_compute:likely']);
    assert.equal(r.likely_total, 1);
  });

  it('a test reached only through a guessed binding (confidence below 0.5) is possible, after the likely one', async () => {
    const r = await call('related_tests', { symbol: 'Cart.total' });
    const got = odds(r);
    assert.equal(got[0], 'test_cart_typed:likely');
    assert.deepEqual(got.slice(1), ['test_cart_guessed:possible']);
    assert.ok(r.tests[1].confidence < 0.5, JSON.stringify(r.tests[1]));
  });

  it('an override run through a call of its base method is likely only for the tests that make its class', async () => {
    const r = await call('related_tests', { symbol: 'UrlSafe.load_payload' });
    assert.deepEqual(odds(r), ['test_urlsafe:likely', 'test_plain:possible']);
  });

  it('a test reached by a likely way is likely, though an unlikely way (an override it never makes) is shorter', async () => {
    const r = await call('related_tests', { symbol: 'resolve' });
    assert.deepEqual(odds(r), ['TestDsl.test_task:likely']);
    assert.equal(r.tests[0].distance, 4, JSON.stringify(r.tests[0]));
  });

  it('a method a visitor chooses by a name prefix is likely run only by the tests that name what it is chosen for', async () => {
    const r = await call('related_tests', { symbol: 'Visitor.visit_Assign' });
    assert.deepEqual(odds(r), ['test_assign_statement:likely', 'test_loop_statement:possible']);
    const loop = await call('related_tests', { symbol: 'Visitor.visit_Loop' });
    assert.deepEqual(odds(loop), ['test_loop_statement:likely', 'test_assign_statement:possible']);
  });

  it('code run only on an error (a raise, a handler, a block that ends by raising) is likely run only by the tests that expect an error', async () => {
    for (const symbol of ['ParseError.__init__', 'describe', 'report', 'explain']) {
      const r = await call('related_tests', { symbol });
      assert.deepEqual(odds(r), ['test_parse_empty:likely', 'test_parse_number:possible'], symbol);
    }
    const plain = await call('related_tests', { symbol: 'parse' });
    assert.deepEqual(odds(plain).sort(), ['test_parse_empty:likely', 'test_parse_number:likely']);
  });

  it('a test calling the target in its own except block is likely (the error path is its scenario)', async () => {
    const r = await call('related_tests', { symbol: 'summarize' });
    assert.deepEqual(odds(r), ['test_summary_of_failure:likely']);
  });

  it('a plain way found later makes a test likely that a shorter way through a registration it does not name did not', async () => {
    const r = await call('related_tests', { symbol: 'do_tally' });
    assert.deepEqual(odds(r), ['test_both_ways:likely']);
    assert.equal(r.tests[0].distance, 5, JSON.stringify(r.tests[0]));
  });

  it('a method no test reaches by calls: the tests that make its class, possible, with the reason', async () => {
    const r = await call('related_tests', { symbol: 'Sandbox.call' });
    assert.deepEqual(odds(r), ['test_render:possible']);
    assert.match(r.tests[0].reason, /uses its class Sandbox \(no call of it seen\)/);
    const direct = await call('related_tests', { symbol: 'Sandbox.render' });
    assert.deepEqual(odds(direct), ['test_render:likely']);
  });

  it('a method whose class only a test module\'s top level uses: the test cases of the file that imports it, possible', async () => {
    const r = await call('related_tests', { symbol: 'AuthMw.__init__' });
    assert.deepEqual(odds(r), ['test_login:possible']);
    assert.match(r.tests[0].reason, /in a test file that imports AuthMw \(no call seen\)/);
  });

  it('a call made only while a value is unset (@x ||= make) is likely run only by the tests that name what it makes', async () => {
    const memo = await call('related_tests', { symbol: 'Store.initialize' });
    assert.deepEqual(odds(memo), ['TestCache.test_store_kept:likely', 'TestCache.test_size:possible']);
    const plain = await call('related_tests', { symbol: 'Cache.store' });
    assert.deepEqual(odds(plain).sort(), ['TestCache.test_size:likely', 'TestCache.test_store_kept:likely']);
  });

  it('a fallback on a line of its own (`a or\\n b`) is likely run only by the tests that name it; `a` stays plain', async () => {
    const fallback = await call('related_tests', { symbol: 'build_from_rule' });
    assert.deepEqual(odds(fallback), ['test_find_by_rule:likely', 'test_find_known:possible']);
    const rule = await call('related_tests', { symbol: 'Tasks.enhance_with_matching_rule' });
    assert.deepEqual(odds(rule), ['TestTasks.test_matching_rule:likely', 'TestTasks.test_lookup:possible']);
    const first = await call('related_tests', { symbol: 'app/registry.py:lookup' });
    assert.deepEqual(odds(first).sort(), ['test_find_by_rule:likely', 'test_find_known:likely', 'test_short:likely']);
  });

  it('a test that names a fixture runs it: what the fixture calls is likely run by the test', async () => {
    const r = await call('related_tests', { symbol: 'Env.__init__' });
    assert.ok(odds(r).includes('test_with_fixture:likely'), JSON.stringify(odds(r)));
  });
});
