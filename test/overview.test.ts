/** overview: the repo map — ranks, focus, entry points per kind, tests apart, budget, repo filter, cache, empty index. */
import { strict as assert } from 'node:assert';
import { Engine } from '../src/core/engine';
import { TOOLS } from '../src/core/tools/registry';
import { invokeTool } from '../src/core/tools/contract';
import { buildRankGraph, pageRank, edgeWeight } from '../src/core/overview/rank';
import { groupModules } from '../src/core/overview/modules';
import { parseManifest } from '../src/core/overview/manifests';
import { scanSource } from '../src/core/overview/scan';
import { sourceCandidates } from '../src/core/overview/entries';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';
import { sp } from './helpers/nodes';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A small shop: a TypeScript package (CLI, Express-style server, store, logger) and a Python package (CLI, FastAPI-style api, db). */
const SHOP: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'shop', bin: { shop: 'dist/cli.js' }, main: 'dist/index.js' }),
  'src/util/log.ts': 'export function log(msg: string): void {\n  console.log(msg);\n}\n',
  'src/core/store.ts': "import { log } from '../util/log';\nexport class Store {\n  get(id: string) { log('get'); return id; }\n  put(id: string) { log('put'); return id; }\n}\nexport function openStore(): Store { log('open'); return new Store(); }\n",
  'src/core/prices.ts': "import { log } from '../util/log';\nimport { openStore } from './store';\nexport function price(id: string): number { log('price'); openStore().get(id); return 1; }\nexport function discount(id: string): number { log('discount'); return price(id) / 2; }\n",
  'src/server.ts': "import { log } from './util/log';\nimport { price } from './core/prices';\nconst app = { get(path: string, h: unknown) { return h; } };\nexport function listItems(req: unknown, res: unknown) { log('list'); return price('a'); }\napp.get('/items', listItems);\n",
  'src/cli.ts': "import { log } from './util/log';\nimport { discount } from './core/prices';\nexport function main(): void { log('cli'); discount('x'); }\nmain();\n",
  'src/index.ts': "export { Store, openStore } from './core/store';\nexport { price } from './core/prices';\n",
  'src/core/store.test.ts': "import { openStore } from './store';\nimport { log } from '../util/log';\ndescribe('store', () => { it('gets', () => { log('t'); openStore().get('a'); }); });\n",
  'pyproject.toml': '[project]\nname = "shoppy"\nversion = "1.0"\n\n[project.scripts]\nshoppy = "shoppy.cli:main"\n',
  'shoppy/__init__.py': 'from .db import connect\n',
  'shoppy/util.py': 'def helper(x):\n    return x\n',
  'shoppy/db.py': 'from .util import helper\n\n\ndef connect():\n    return helper(1)\n\n\ndef query(sql):\n    helper(2)\n    return connect()\n',
  'shoppy/api.py': 'from .db import query\nfrom .util import helper\n\napp = object()\n\n\n@app.get("/users")\ndef list_users():\n    helper(3)\n    return query("select")\n',
  'shoppy/cli.py': 'from .db import connect\nfrom .util import helper\n\n\ndef main():\n    helper(4)\n    connect()\n\n\nif __name__ == "__main__":\n    main()\n',
  'tests/test_db.py': 'from shoppy.db import connect, query\n\n\ndef test_connect():\n    assert connect()\n\n\ndef test_query():\n    assert query("x")\n',
};

describe('overview', () => {
  const done: (() => void)[] = [];
  afterEach(() => { while (done.length) done.pop()!(); });

  async function setup(files: Record<string, string>, more: TempWorkspace[] = []): Promise<{ ws: TempWorkspace; e: Engine; call: (args: Json, maxChars?: number) => Promise<Json> }> {
    const ws = tempWorkspace(files, 'shop');
    const e = await Engine.open({ roots: [ws.root, ...more.map(m => m.root)], dbPath: ws.db, threads: 0 });
    done.push(() => { e.close(); ws.remove(); for (const m of more) m.remove(); });
    await e.index();
    const call = async (args: Json, maxChars?: number) => {
      const out = await invokeTool(TOOLS.overview as never, args, { engine: e }, maxChars ? { max_chars: maxChars } : {});
      if (!out.ok) throw new Error(JSON.stringify(out.error));
      return { ...out.data, markdown: out.markdown } as Json;
    };
    return { ws, e, call };
  }

  it('ranks first what many things call, lists modules with their top symbols, tests apart', async () => {
    const { call } = await setup(SHOP);
    const r = await call({});
    const central = r.central_symbols.map((s: Json) => sp(s));
    assert.equal(central[0], 'log', `central: ${central.join(', ')}`);
    assert.ok(central.indexOf('helper') >= 0 && central.indexOf('helper') < 4, `helper is among the first: ${central.join(', ')}`);
    assert.ok(central.indexOf('log') < central.indexOf('discount'), 'the logger outranks a leaf');
    assert.ok(!r.central_symbols.some((s: Json) => /test/.test(s.path)), 'no test code among central symbols');
    assert.ok(r.central_symbols[0].rank > 1 && r.central_symbols[0].dependents >= 5, JSON.stringify(r.central_symbols[0]));
    const mods = r.modules.map((m: Json) => m.path);
    assert.ok(mods.includes('src/util') || mods.includes('src'), `modules: ${mods.join(', ')}`);
    assert.ok(mods.includes('shoppy'), `modules: ${mods.join(', ')}`);
    assert.ok(!mods.includes('tests'), 'test folders are not modules');
    const shoppy = r.modules.find((m: Json) => m.path === 'shoppy');
    assert.equal(shoppy.files, 5); assert.deepEqual(shoppy.languages, ['python']);
    assert.equal(shoppy.top_symbols[0], 'helper');
    assert.ok(Math.abs(r.modules.reduce((s: number, m: Json) => s + m.rank, 0) - 1) < 0.05, 'module ranks are shares of the whole');
    const suites = r.test_suites.map((t: Json) => `${t.path}:${t.test_cases}`);
    assert.ok(suites.includes('tests:2'), `test suites: ${suites.join(', ')}`);
    assert.equal(r.totals.test_files, 2);
    assert.match(r.markdown, /### Central symbols/);
    assert.match(r.markdown, /### Test suites/);
  });

  it('finds entry points per kind: manifest commands, main, routes, package roots; never in tests', async () => {
    const { call } = await setup(SHOP);
    const r = await call({ budget: 8000 }, 64_000);
    const eps = r.entry_points.map((e: Json) => `${e.kind_of_entry} ${e.entry_name} ${e.path}${sp(e) ? `#${sp(e)}` : ''}`);
    const has = (s: string) => assert.ok(eps.includes(s), `missing ${s} in:\n${eps.join('\n')}`);
    has('cli shop src/cli.ts#main');                         // package.json bin, dist/cli.js mapped to the source (its main)
    has('cli shoppy shoppy/cli.py#main');                    // [project.scripts] module:function
    has('main shoppy/cli.py shoppy/cli.py');                 // if __name__ == "__main__"
    has('http_route GET /items src/server.ts#listItems');    // app.get('/items', listItems)
    has('http_route GET /users shoppy/api.py#list_users');   // @app.get("/users")
    has('package_root shop src/index.ts');                   // package.json main dist/index.js → src/index.ts
    has('package_root shoppy shoppy/__init__.py');           // pyproject package / top-level package
    const main = r.entry_points.find((e: Json) => e.kind_of_entry === 'main');
    assert.equal(main.line, 10);
    const route = r.entry_points.find((e: Json) => e.entry_name === 'GET /users');
    assert.equal(route.line, 8); assert.match(route.id, /^symbol:.*shoppy\/api\.py:list_users$/);
    assert.ok(!r.entry_points.some((e: Json) => /test/.test(e.path)), 'no entry point in test files');
    assert.match(r.markdown, /http_route `GET \/items` → `listItems` src\/server\.ts:4/);
    assert.deepEqual(r.notes, []);
  });

  it('focus moves the ranking toward a path, a symbol or a search', async () => {
    const { call } = await setup(SHOP);
    const global = (await call({})).central_symbols.map((s: Json) => sp(s));
    const byPath = await call({ focus: 'shoppy/db.py' });
    assert.equal(byPath.focus.matched_as, 'path');
    const focused = byPath.central_symbols.map((s: Json) => sp(s));
    assert.ok(focused.indexOf('query') < global.indexOf('query'), `query rises: ${focused.join(', ')} vs ${global.join(', ')}`);
    assert.ok(focused.slice(0, 3).some((s: string) => s === 'connect' || s === 'query'), focused.join(', '));
    // what the focus leads to and what leads to it rise; the unrelated TypeScript side falls
    assert.ok(focused.indexOf('log') > global.indexOf('log'), `log falls: ${focused.join(', ')}`);
    assert.equal(byPath.modules[0].path, 'shoppy');
    // entry points that reach the focus come first within their kind
    const mains = byPath.entry_points.filter((e: Json) => e.kind_of_entry === 'cli').map((e: Json) => e.entry_name);
    assert.equal(mains[0], 'shoppy', mains.join(', '));

    // a bare top-level folder name, with or without the slash, is a path, not a search
    for (const f of ['shoppy', 'shoppy/']) {
      const byFolder = await call({ focus: f });
      assert.equal(byFolder.focus.matched_as, 'path', f);
      assert.ok(byFolder.focus.seeds.length > 0 && byFolder.focus.seeds.every((id: string) => id.includes(':shoppy/')), byFolder.focus.seeds.join(', '));
    }
    const bySymbol = await call({ focus: 'listItems' });
    assert.equal(bySymbol.focus.matched_as, 'symbol');
    assert.equal(sp(bySymbol.central_symbols[0]), 'listItems');
    assert.ok(bySymbol.central_symbols.slice(0, 4).map((s: Json) => sp(s)).includes('price'));

    const bySearch = await call({ focus: 'discount prices' });
    assert.equal(bySearch.focus.matched_as, 'search');
    assert.ok(bySearch.focus.total_seeds > 0);
    assert.equal(bySearch.central_symbols[0].path, 'src/core/prices.ts');

    const none = await call({ focus: 'zzqqxx' });
    assert.equal(none.focus.matched_as, 'none');
    assert.deepEqual(none.central_symbols.map((s: Json) => sp(s)), global);
    assert.match(none.notes.join('\n'), /matched no indexed path, symbol or search result/);
  });

  it('fits the budget: a smaller budget keeps fewer whole entries, never a cut line', async () => {
    const files: Record<string, string> = { ...SHOP };
    // enough definitions that 2000 tokens cannot hold them all
    for (let i = 0; i < 150; i++) files[`src/gen/mod${i}.ts`] = `import { log } from '../util/log';\nexport function generatedFunctionNumber${i}(): void { log('${i}'); }\n`;
    const { call } = await setup(files);
    const big = await call({ budget: 2000 });
    const small = await call({ budget: 300 });
    for (const r of [big, small]) {
      assert.ok(r.estimated_tokens <= r.budget, `${r.estimated_tokens} > ${r.budget}`);
      assert.equal(r.estimated_tokens, Math.ceil(r.markdown.length / 4));
      assert.ok(r.truncated);
      assert.equal(r.left_out.central_symbols + r.central_symbols.length, big.left_out.central_symbols + big.central_symbols.length);
    }
    assert.equal(big.budget, 2000); assert.equal(small.budget, 300);
    const count = (r: Json) => r.modules.length + r.entry_points.length + r.central_symbols.length + r.test_suites.length;
    assert.ok(count(small) < count(big), `${count(small)} < ${count(big)}`);
    // whole entries only: every entry line of the small map is a line of the big one
    const bigLines = new Set(big.markdown.split('\n'));
    for (const line of small.markdown.split('\n')) if (/^(- |\d+\. )/.test(line)) assert.ok(bigLines.has(line), `cut or changed line: ${line}`);
    assert.match(small.markdown, /_Left out to fit 300 tokens: /);
    // the structured answer holds exactly what the Markdown shows
    assert.equal(small.central_symbols.length, (small.markdown.match(/^\d+\. /gm) ?? []).length);
    // a surface that allows less than the budget gets less
    const capped = await call({ budget: 8000 }, 4000);
    assert.equal(capped.budget, 8000); assert.equal(capped.budget_applied, 1000);
    assert.ok(capped.markdown.length <= 4000 && capped.estimated_tokens <= 1000);
  });

  it('repo filters to one repository', async () => {
    const other = tempWorkspace({ 'lib/other.py': 'def lonely():\n    return 1\n\n\ndef caller():\n    return lonely()\n' }, 'other');
    const { e, call } = await setup(SHOP, [other]);
    const otherId = e.roots.find(r => r.root === other.root)!.repo_id;
    const all = await call({});
    assert.equal(all.repos.length, 2);
    const one = await call({ repo: otherId });
    assert.deepEqual(one.repos, [otherId]);
    assert.deepEqual(one.central_symbols.map((s: Json) => sp(s)), ['lonely', 'caller']);
    assert.ok(one.modules.every((m: Json) => m.repo_id === otherId));
    assert.equal(one.entry_points.length, 0);
    assert.equal(one.totals.files, 1);
  });

  it('caches the ranks per index state and recomputes after a change', async () => {
    const { ws, e, call } = await setup(SHOP);
    const first = await call({});
    assert.equal(first.ranking.cached, false);
    const second = await call({ focus: 'shoppy' });
    assert.equal(second.ranking.cached, true);
    assert.equal(second.ranking.model_ms, 0);
    ws.write('src/core/extra.ts', "import { log } from '../util/log';\nexport function extra() { log('x'); }\n");
    await e.index();
    const third = await call({});
    assert.equal(third.ranking.cached, false);
    assert.ok(third.central_symbols.some((s: Json) => sp(s) === 'extra'));
  });

  it('an empty index says so', async () => {
    const ws = tempWorkspace({ 'a.py': 'x = 1\n' });
    const e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    done.push(() => { e.close(); ws.remove(); });
    const out = await invokeTool(TOOLS.overview as never, {}, { engine: e });
    assert.ok(out.ok);
    const r = out.data as Json;
    assert.equal(r.totals.files, 0); assert.equal(r.complete, false);
    assert.match(r.warnings.join('\n'), /empty/);
    assert.match(out.markdown, /nothing indexed/);
    assert.match(out.markdown, /run index_repo/);
  });

  it('parts: PageRank, modules, manifests, source marks, build outputs to sources', () => {
    // a star: everything calls 0; 0 has the highest rank; ranks sum to 1
    const g = buildRankGraph(5, [1, 2, 3, 4], [0, 0, 0, 0], [1, 1, 1, 1], 4);
    const r = pageRank(g);
    assert.ok(Math.abs(r.ranks.reduce((a, b) => a + b, 0) - 1) < 1e-9);
    assert.ok(r.ranks[0]! > 3 * r.ranks[1]!);
    // a name-only binding passes on less than a resolved call
    assert.ok(edgeWeight('calls', 0.3, 0.5) < edgeWeight('calls', 0.8, 0.5) / 4);
    const weak = pageRank(buildRankGraph(2, [1], [0], [edgeWeight('calls', 0.3, 0.5)], 1)).ranks[0]!;
    const strong = pageRank(buildRankGraph(2, [1], [0], [edgeWeight('calls', 0.9, 0.5)], 1)).ranks[0]!;
    assert.ok(strong > weak);
    // personalised: the teleport node and what it calls lead
    const chain = buildRankGraph(4, [0, 1, 2], [1, 2, 3], [1, 1, 1], 3);
    const p = pageRank(chain, { teleport: Float64Array.from([0, 0, 1, 0]) }).ranks;
    assert.ok(p[2]! > p[0]! && p[3]! > p[1]!);
    const back = pageRank(chain, { teleport: Float64Array.from([0, 0, 1, 0]), transpose: true }).ranks;
    assert.ok(back[1]! > back[3]!);

    const f = (path: string) => ({ file_id: path.length, repo_id: 'r', path, language: 'ts', line_count: 1, hash: '', test: false });
    const mods = groupModules(['lib/pkg/a.ts', 'lib/pkg/b.ts', 'lib/pkg/sub/c.ts', 'lib/pkg/sub/d.ts', 'lib/pkg/sub/e.ts', 'docs/x.ts'].map(f), 10);
    assert.deepEqual(mods.map(m => `${m.path}${m.own ? ' own' : ''}:${m.files.length}`).sort(), ['docs:1', 'lib/pkg own:2', 'lib/pkg/sub:3']);
    assert.equal(groupModules(['a/x.ts', 'b/y.ts'].map(f), 1).length, 1);

    assert.deepEqual(parseManifest('Cargo.toml', 'crates/app', '[package]\nname = "app"\n[[bin]]\nname = "tool"\npath = "src/tool.rs"\n').declared.map(d => `${d.kind} ${d.name} ${d.path}`),
      ['cli tool crates/app/src/tool.rs', 'cli app crates/app/src/main.rs', 'package_root app crates/app/src/lib.rs']);
    assert.match(parseManifest('pyproject.toml', '.', '[project\nname=').error ?? '', /pyproject\.toml/);
    assert.deepEqual(parseManifest('package.json', '.', JSON.stringify({ name: '@s/x', exports: { '.': { import: './dist/index.mjs' } }, bin: './bin/x.js' })).declared.map(d => `${d.kind} ${d.name} ${d.path}`),
      ['cli x bin/x.js', 'package_root @s/x dist/index.mjs']);
    assert.ok(sourceCandidates('dist/index.mjs').includes('src/index.ts'));

    const axum = scanSource('rust', 'fn app() -> Router {\n    Router::new()\n        .route("/", get(root).post(create))\n        // .route("/old", get(old))\n}\n');
    assert.deepEqual(axum.routes.map(x => `${x.line} ${x.verb} ${x.path} ${x.handler}`), ['3 GET / root', '3 POST / create']);
    const express = scanSource('typescript', "router.post('/u/:id', auth, update);\naxios.get('/api', handler);\nclient.get('/x', { a: 1 });\napp.get('/inline', (req, res) => res.end());\n");
    assert.deepEqual(express.routes.map(x => `${x.line} ${x.verb} ${x.path} ${x.handler}`), ['1 POST /u/:id update', '4 GET /inline null']);
    const go = scanSource('go', 'func main() {\n\thttp.HandleFunc("/health", health)\n\tmux.HandleFunc("GET /items/{id}", getItem)\n}\n');
    assert.deepEqual(go.routes.map(x => `${x.verb} ${x.path} ${x.handler}`), ['ANY /health health', 'GET /items/{id} getItem']);
    const spring = scanSource('java', '@RestController\nclass C {\n  @GetMapping("/a")\n  String a() { return ""; }\n  public static void main(String[] args) {}\n}\n');
    assert.deepEqual(spring.routes.map(x => `${x.line} ${x.verb} ${x.path}`), ['3 GET /a']);
    assert.deepEqual(spring.staticMain, [5]);
    const sinatra = scanSource('ruby', "get '/' do\n  'hi'\nend\n");
    assert.deepEqual(sinatra.routes.map(x => `${x.verb} ${x.path}`), ['GET /']);
    const flask = scanSource('python', '@bp.route("/x", methods=["POST", "PUT"])\ndef x():\n    pass\n');
    assert.deepEqual(flask.routes.map(x => `${x.verb} ${x.path} ${x.attached}`), ['POST|PUT /x next']);
  });
});
