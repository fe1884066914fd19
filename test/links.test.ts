/** The links phase and tool on a small full-stack workspace (FastAPI server, TS and Python clients, .env, SQL, Kafka), and the extraction rules one by one. */
import { strict as assert } from 'node:assert';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseId } from '../src/core/util/ids';
import { Engine } from '../src/core/engine';
import { invokeTool } from '../src/core/tools/contract';
import { findTool } from '../src/core/tools/registry';
import { normalisePath } from '../src/core/links/paths';
import { extractLinkSites, readLiteral } from '../src/core/links/extract';
import { extractConfigSites } from '../src/core/links/config';
import { pluralTable } from '../src/core/links/rules';
import type { LanguageId } from '../src/core/languages/types';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';
import { sp } from './helpers/nodes';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
async function call(engine: Engine, args: Json): Promise<{ data: Json; markdown: string }> {
  const out = await invokeTool(findTool('links')!, args, { engine });
  assert.ok(out.ok, JSON.stringify(out));
  return { data: out.data as Json, markdown: out.markdown };
}
const find = (links: Json[], kind: string, path: string, key?: string): any[] => // eslint-disable-line @typescript-eslint/no-explicit-any
  links.filter(l => l.kind === kind && l.path === path && (key === undefined || l.key === key));

const FULLSTACK: Record<string, string> = {
  '.env': 'DATABASE_URL=postgres://localhost/app\nAPI_URL=http://localhost:8000\nexport UNUSED_VAR=1\n',
  'config/settings.yaml': 'database:\n  pool:\n    size: 5\nfeatures:\n  new_checkout: true\n',
  'server/app.py': `import os
from fastapi import FastAPI, APIRouter

app = FastAPI()
router = APIRouter(prefix="/users")

DATABASE_URL = os.environ["DATABASE_URL"]


@router.get("/{user_id}")
def read_user(user_id: int):
    rows = db.execute("SELECT id, name FROM users WHERE id = %s", (user_id,))
    return rows


@app.post("/orders")
async def create_order(order: dict):
    producer.send("orders", order)
    return order


app.include_router(router)
`,
  'server/models.py': `from sqlalchemy import Column, Integer, String


class User(Base):
    __tablename__ = "users"
    id = Column(Integer, primary_key=True)
    name = Column(String)
`,
  'server/worker.py': `from kafka import KafkaConsumer


def consume_orders():
    consumer = KafkaConsumer("orders")
    for msg in consumer:
        print(msg)
`,
  'web/src/api.ts': `import axios from 'axios';

export async function getUser(id: number) {
  const r = await fetch(\`/users/\${id}\`);
  return r.json();
}

export function createOrder(order: object) {
  return axios.post('/orders', order);
}

export function removeThing(id: string) {
  return fetch('/nowhere/' + id, { method: 'DELETE' });
}

export const databaseUrl = () => process.env.DATABASE_URL;

export function poolSize(config: { get(k: string): number }) {
  return config.get('database.pool.size');
}

export function checkoutEnabled(flags: { isEnabled(k: string): boolean }) {
  return flags.isEnabled('new_checkout');
}
`,
  'clients/py_client.py': `import requests


def fetch_user(user_id):
    return requests.get(f"http://localhost:8000/users/{user_id}").json()
`,
};

describe('links: cross-boundary edges', function () {
  this.timeout(120_000);
  let ws: TempWorkspace; let engine: Engine;
  before(async () => {
    ws = tempWorkspace(FULLSTACK);
    engine = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    await engine.index({});
  });
  after(() => { engine.close(); ws.remove(); });

  it('finds HTTP, env, SQL, topic, config and flag links with the right ends and resolution', async () => {
    const { data } = await call(engine, { limit: 200 });
    const L = data.links as Json[];
    const id = (p: string, s: string) => `symbol:${engine.roots[0]!.repo_id}:${p}:${s}`;
    // HTTP: TS fetch with a template literal → FastAPI route under APIRouter(prefix="/users")
    const [ts] = find(L, 'http', 'web/src/api.ts', 'GET /users/{user_id}');
    assert.ok(ts, JSON.stringify(L.map(l => [l.kind, l.path, l.key])));
    assert.equal(ts.from, id('web/src/api.ts', 'getUser')); assert.equal(ts.to, id('server/app.py', 'read_user'));
    assert.equal(ts.matched, true); assert.equal(ts.resolution, 'exact'); assert.equal(ts.to_path, 'server/app.py');
    // axios.post → @app.post
    const [ax] = find(L, 'http', 'web/src/api.ts', 'POST /orders');
    assert.equal(ax.to, id('server/app.py', 'create_order')); assert.equal(ax.resolution, 'exact');
    // Python requests with a host and an f-string: matched, but best effort (the host was stripped)
    const [py] = find(L, 'http', 'clients/py_client.py');
    assert.equal(py.to, id('server/app.py', 'read_user')); assert.equal(py.resolution, 'best_effort'); assert.match(py.evidence, /host stripped/);
    // env read in two languages, both to the .env line
    const env = L.filter(l => l.kind === 'env' && l.key === 'DATABASE_URL' && l.matched);
    assert.deepEqual(env.map(l => l.path).sort(), ['server/app.py', 'web/src/api.ts']);
    for (const e of env) { assert.equal(e.to_path, '.env'); assert.equal(e.to_line, 1); assert.equal(e.resolution, 'exact'); }
    // SQL string → SQLAlchemy model of the same table
    const [sql] = find(L, 'sql', 'server/app.py', 'users');
    assert.equal(sql.to, id('server/models.py', 'User')); assert.equal(sql.from, id('server/app.py', 'read_user'));
    // Kafka consumer → producer
    const [topic] = find(L, 'topic', 'server/worker.py', 'kafka:orders');
    assert.equal(topic.to, id('server/app.py', 'create_order')); assert.equal(topic.matched, true);
    // config key read in code → YAML key path; flag check → flag under features:
    assert.equal(find(L, 'config', 'web/src/api.ts', 'database.pool.size')[0]?.to_path, 'config/settings.yaml');
    const [flag] = find(L, 'flag', 'web/src/api.ts', 'new_checkout');
    assert.equal(flag.to_path, 'config/settings.yaml'); assert.equal(flag.resolution, 'best_effort');
  });

  it('reports an unmatched client call (and an unread .env variable) instead of dropping it', async () => {
    const { data, markdown } = await call(engine, { matched: false, limit: 50 });
    const [miss] = find(data.links, 'http', 'web/src/api.ts');
    assert.ok(miss, JSON.stringify(data.links));
    assert.equal(miss.matched, false); assert.equal(miss.to, 'route:DELETE /nowhere/{param}'); assert.ok(miss.confidence <= 0.5);
    assert.ok(data.links.some((l: Json) => l.kind === 'env' && l.to === 'env:UNUSED_VAR'));
    assert.equal(data.complete, false);
    assert.ok(data.boundaries.some((b: Json) => b.kind === 'dynamic_names'));
    assert.match(markdown, /_unmatched_/);
  });

  it('answers for a symbol (the route handler: its clients in both languages) and for a key node in any placeholder style', async () => {
    const h = await call(engine, { symbol: 'read_user', kind: 'http' });
    assert.deepEqual(h.data.links.map((l: Json) => l.path).sort(), ['clients/py_client.py', 'web/src/api.ts']);
    assert.equal(sp(h.data.resolved[0]), 'read_user');
    for (const style of ['route:GET /users/:id', 'route:GET /users/<int:id>', 'route:GET /users/{uid}']) {
      const k = await call(engine, { symbol: style });
      assert.equal(k.data.links.length, 2, style);
    }
    const e = await call(engine, { symbol: 'env:DATABASE_URL' });
    assert.equal(e.data.links.filter((l: Json) => l.matched).length, 2);
    const t = await call(engine, { symbol: 'table:USERS' });
    assert.equal(t.data.links.length, 1);
    // the boundaries name what is recognised
    assert.ok(h.data.boundaries.some((b: Json) => b.kind === 'heuristic_only' && /flask-fastapi/.test(b.detail) && /fetch/.test(b.detail) && b.detail.length < 1500));
  });

  it('impact follows links when asked (labelled, best effort) and says when it did not', async () => {
    const impact = async (follow_links: boolean) => {
      const out = await invokeTool(findTool('impact')!, { symbol: 'read_user', follow_links }, { engine });
      assert.ok(out.ok, JSON.stringify(out)); return { data: out.data as Json, markdown: out.markdown };
    };
    const without = await impact(false);
    assert.ok(!without.data.affected.some((a: Json) => a.provider === 'links'));
    const b = without.data.boundaries.find((x: Json) => x.kind === 'unfollowed_links');
    assert.match(b?.detail ?? '', /2 cross-boundary link\(s\).*http.*follow_links: true/);
    assert.equal(without.data.complete, false);
    const withLinks = await impact(true);
    const across = withLinks.data.affected.filter((a: Json) => a.provider === 'links');
    assert.deepEqual(across.map((a: Json) => `${a.node.path}:${sp(a.node)}`).sort(), ['clients/py_client.py:fetch_user', 'web/src/api.ts:getUser']);
    for (const a of across) { assert.equal(a.resolution, 'best_effort'); assert.ok(a.confidence <= 0.85); assert.match(a.via, /cross-boundary link: .*GET/); assert.equal(a.distance, 1); }
    assert.ok(!withLinks.data.boundaries.some((x: Json) => x.kind === 'unfollowed_links'));
    assert.match(withLinks.markdown, /getUser.*links/);
  });

  it('pages all links of a kind and a repository', async () => {
    const a = await call(engine, { kind: 'http', repo: '.', limit: 2, offset: 0 });
    assert.equal(a.data.links.length, 2); assert.equal(a.data.next_offset, 2);
    const b = await call(engine, { kind: 'http', limit: 2, offset: 2 });
    assert.ok(b.data.links.every((l: Json) => l.kind === 'http'));
    assert.equal(a.data.total, 4);
  });

  it('incremental: editing the client re-reads only the client and updates its links', async () => {
    ws.write('web/src/api.ts', FULLSTACK['web/src/api.ts']!.replace("axios.post('/orders', order)", "axios.post('/orders/v2', order)"));
    const r = await engine.index({});
    assert.equal(r.totals.files_parsed, 1);
    const { data } = await call(engine, { limit: 200 });
    const moved = find(data.links, 'http', 'web/src/api.ts', 'POST /orders/v2')[0];
    assert.equal(moved?.matched, false);
    // the route is still there (its sites were not re-read: the server file was unchanged) and now has no client
    const route = data.links.find((l: Json) => l.kind === 'http' && l.path === 'server/app.py' && l.key === 'POST /orders');
    assert.equal(route?.matched, false);
    assert.ok(find(data.links, 'http', 'clients/py_client.py')[0].matched);
    // a run that changed nothing rematches nothing and saves nothing
    const again = await engine.index({});
    assert.equal(again.totals.files_parsed, 0);
  });

  it('links across repositories of the workspace, and config files edited alone', async () => {
    const server = tempWorkspace({ 'app.js': "const app = require('express')();\napp.get('/api/items/:id', getItem);\nfunction getItem(req, res) { res.send(process.env.SECRET_KEY); }\n" }, 'server');
    const client = tempWorkspace({ 'main.go': 'package main\n\nimport "net/http"\n\nfunc load() {\n\thttp.Get("https://example.com/api/items/7")\n}\n', '.env.example': 'SECRET_KEY=\n' }, 'client');
    const e = await Engine.open({ roots: [server.root, client.root], dbPath: server.db, threads: 0 });
    try {
      await e.index({});
      const { data } = await call(e, { symbol: 'getItem' });
      const http = data.links.find((l: Json) => l.kind === 'http');
      assert.equal(http?.path, 'main.go'); assert.notEqual(parseId(http.from)!.repo_id, parseId(http.to)!.repo_id); assert.equal(http.to_path, 'app.js');
      const env = data.links.find((l: Json) => l.kind === 'env');
      assert.equal(env?.to_path, '.env.example');
      // a config file edited alone: it alone is read again (as a text file, for search), the link follows
      client.write('.env.example', 'OTHER=1\n');
      const r = await e.index({});
      assert.equal(r.totals.files_parsed, 1);
      assert.equal(r.repos.find(x => x.files_parsed)?.graph_update, 'none', 'a text file changes nothing the graph reads');
      const after = await call(e, { symbol: 'env:SECRET_KEY' });
      assert.ok(after.data.links.every((l: Json) => !l.matched));
    } finally { e.close(); server.remove(); client.remove(); }
  });

  it('among equally good routes, a test requesting its own app links to the route in its file, the nearest above', async () => {
    const test = (port: number) => [
      `  const app = express()`, `  app.get('/health', (req, res) => res.send('hi'))`, `  app.listen(${port})`,
      `  await fetch('http://localhost:${port}/health')`,
    ];
    const own = tempWorkspace({
      'test/stop.test.js': ['const express = require(\'express\')', 'it(\'a\', async () => {', ...test(8080), '})', 'it(\'b\', async () => {', ...test(8081), '})', ''].join('\n'),
      'test/other.test.js': ['const express = require(\'express\')', 'const app = express()', 'app.get(\'/health\', (req, res) => res.send(\'other\'))', ''].join('\n'),
      'web/status.js': 'export const status = () => fetch(\'/health\')\n',
    });
    const e = await Engine.open({ roots: [own.root], dbPath: own.db, threads: 0 });
    try {
      await e.index({});
      const { data } = await call(e, { kind: 'http', limit: 100 });
      const from = (path: string) => data.links.filter((l: Json) => l.path === path && l.matched).map((l: Json) => `${l.line}→${l.to_path}:${l.to_line}`);
      assert.deepEqual(from('test/stop.test.js'), ['6→test/stop.test.js:4', '12→test/stop.test.js:10'], JSON.stringify(data.links));
      for (const l of data.links.filter((x: Json) => x.path === 'test/stop.test.js')) assert.ok(l.confidence <= 0.8 && /in the calling file/.test(l.evidence), l.evidence);
      assert.equal(from('web/status.js').length, 3, 'a file serving no route still sees every equally good one');
    } finally { e.close(); own.remove(); }
  });
});

describe('links: incremental matching equals a full match', function () {
  this.timeout(180_000);
  // Each step edits the workspace; the long-lived engine re-matches only the groups that changed, a fresh
  // engine on a new index matches everything: their links must be the same, row for row.
  const all = async (engine: Engine) => {
    const out: Json[] = []; let offset = 0;
    for (;;) {
      const { data } = await call(engine, { limit: 200, offset });
      out.push(...data.links); if (data.next_offset === null) break; offset = data.next_offset;
    }
    return out.map(l => JSON.stringify([l.kind, l.key, l.from, l.to, l.matched, l.confidence, l.path, l.line, l.to_path ?? null, l.to_line, l.evidence])).sort();
  };
  it('after adding, moving and deleting routes, clients, mounts, handlers and .env lines', async () => {
    const files: Record<string, string> = {
      'server/app.py': FULLSTACK['server/app.py']!, 'server/models.py': FULLSTACK['server/models.py']!, 'server/worker.py': FULLSTACK['server/worker.py']!,
      'web/src/api.ts': FULLSTACK['web/src/api.ts']!, 'clients/py_client.py': FULLSTACK['clients/py_client.py']!, '.env': FULLSTACK['.env']!,
      'express/app.js': "const app = require('express')();\napp.get('/items/:id', getItem);\napp.get('/items/me', me);\n",
      'express/handlers.js': 'function getItem(req, res) { res.send(1); }\nfunction me(req, res) {}\n',
      'web/src/items.ts': "export const one = () => fetch('/items/7');\nexport const mine = () => fetch('/items/me');\n",
    };
    const ws = tempWorkspace(files);
    const logs: string[] = [];
    const live = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0, log: (_l, m) => { if (m.startsWith('links:')) logs.push(m); } });
    try {
      await live.index({});
      const steps: [string, () => void][] = [
        ['a client of an existing route', () => ws.write('web/src/more.ts', "export const o = () => fetch('/orders', { method: 'POST' });\n")],
        ['a wild route another group\'s client now matches', () => ws.write('server/extra.py', 'from fastapi import FastAPI\napp = FastAPI()\n\n@app.get("/orders/{order_id}")\ndef get_order(order_id: int):\n    return order_id\n')],
        ['a client of the wild route', () => ws.write('web/src/orders.ts', 'export const g = (id: number) => fetch(`/orders/${id}`);\n')],
        ['the wild route removed', () => ws.write('server/extra.py', 'x = 1\n')],
        ['a mount prefix changed', () => ws.write('server/app.py', files['server/app.py']!.replace('prefix="/users"', 'prefix="/people"'))],
        ['a second definition of a handler name (ambiguous now)', () => ws.write('express/other.js', 'function getItem() { return 2; }\n')],
        ['a client file deleted', () => rmSync(join(ws.root, 'web/src/items.ts'))],
        ['a .env line renamed', () => ws.write('.env', FULLSTACK['.env']!.replace('DATABASE_URL', 'DB_URL'))],
        ['a table model renamed', () => ws.write('server/models.py', FULLSTACK['server/models.py']!.replace('"users"', '"members"'))],
      ];
      assert.match(logs.at(-1)!, /matched every group/);
      for (const [what, edit] of steps) {
        edit(); logs.length = 0;
        const r = await live.index({});
        const fresh = await Engine.open({ roots: [ws.root], dbPath: join(ws.root, '..', `fresh-${steps.findIndex(s => s[0] === what)}.sqlite`), threads: 0 });
        try {
          await fresh.index({});
          assert.deepEqual(await all(live), await all(fresh), `after ${what}`);
        } finally { fresh.close(); }
        assert.equal(logs.length, 1, what);
        // only the changed groups were matched again: a client of POST /orders brings its group and the wild routes
        if (what.startsWith('a client of an existing')) assert.match(logs[0]!, /matched 2 group\(s\)/);
        // a config file read again brings the groups of its old and new keys: DATABASE_URL, API_URL, UNUSED_VAR, DB_URL
        if (what.startsWith('a .env')) assert.match(logs[0]!, /matched 4 group\(s\)/);
        assert.ok(r.totals.files_parsed + r.totals.files_deleted <= 1, what);
      }
      // nothing changed: nothing matched
      logs.length = 0; await live.index({}); assert.deepEqual(logs, []);
    } finally { live.close(); ws.remove(); }
  });
});

describe('links: path normalisation and extraction rules', () => {
  it('readers of one key that nothing defines are linked through the key (two languages); a lone reader stays unmatched; a bare key name is understood', async () => {
    const own = tempWorkspace({
      'app/pay.py': 'import os\n\ndef charge():\n    key = os.environ["SHOP_PAYMENT_KEY"]\n    return key\n\ndef lonely():\n    return os.environ["LONELY_KEY"]\n',
      'web/key.ts': 'export function clientKey(): string {\n  return process.env.SHOP_PAYMENT_KEY ?? "";\n}\n',
      'app/q.py': 'def orders_query(db):\n    return db.execute("SELECT * FROM orders WHERE id = 1")\n',
      'web/orders.ts': 'export async function listOrders(knex: any) {\n  return knex("orders").select("*");\n}\n',
    });
    const e = await Engine.open({ roots: [own.root], dbPath: own.db, threads: 0 });
    try {
      await e.index({});
      const { data } = await call(e, { limit: 50 });
      const L = data.links as Json[];
      const shared = L.filter(l => l.kind === 'env' && l.key === 'SHOP_PAYMENT_KEY');
      assert.deepEqual(shared.map(l => l.path).sort(), ['app/pay.py', 'web/key.ts']);
      for (const l of shared) {
        assert.equal(l.matched, true); assert.equal(l.to, 'env:SHOP_PAYMENT_KEY'); assert.equal(l.resolution, 'best_effort');
        assert.match(l.evidence, /shares the key with 1 other site\(s\) \(.*\); nothing in the workspace defines it/);
      }
      const tables = L.filter(l => l.kind === 'sql' && l.key === 'orders');
      assert.deepEqual(tables.map(l => [l.path, l.matched]).sort(), [['app/q.py', true], ['web/orders.ts', true]]);
      const lone = L.find(l => l.kind === 'env' && l.key === 'LONELY_KEY')!;
      assert.equal(lone.matched, false, 'one reader alone has no counterpart');
      // the key by its bare name: both readers
      const bare = await call(e, { symbol: 'SHOP_PAYMENT_KEY' });
      assert.match(bare.data.matched_by as string, /the key env:SHOP_PAYMENT_KEY/);
      assert.deepEqual((bare.data.links as Json[]).map(l => l.path).sort(), ['app/pay.py', 'web/key.ts']);
    } finally { e.close(); own.remove(); }
  });

  it('one placeholder for every style', () => {
    const keys = ['/users/:id', '/users/{id}', '/users/{id:int}', '/users/<int:id>', '/users/<id>', 'users/[id]', '/users/{user_id}/'].map(p => normalisePath(p, true)?.key);
    assert.deepEqual(new Set(keys), new Set(['/users/{}']));
    assert.equal(normalisePath('https://api.example.com/users/{x}?q=1', false)?.key, '/users/{}');
    assert.equal(normalisePath('https://api.example.com/users', false)?.base, 'host');
    assert.equal(normalisePath('{API_URL}/users', false)?.base, 'dynamic');
    assert.equal(normalisePath('hello world', false), null);
    assert.equal(readLiteral('`/users/${user.id}/posts`', 0)?.value, '/users/{id}/posts');
    assert.equal(readLiteral('f"/users/{user_id}"', 0)?.value, '/users/{user_id}');
    assert.equal(readLiteral("'/users/' + id", 0)?.value, '/users/{}');
    assert.equal(pluralTable('Category'), 'categories'); assert.equal(pluralTable('OrderItem'), 'order_items');
  });

  const sites = (language: LanguageId, path: string, text: string, defs: { symbol_path: string; name: string; kind: string; start_line: number; end_line: number }[] = []) =>
    extractLinkSites(language, path, text, defs).map(s => `${s.kind}:${s.role}:${s.key}`);
  it('recognises server routes of each framework', () => {
    assert.deepEqual(sites('typescript', 'src/users.controller.ts', "@Controller('users')\nexport class UsersController {\n  @Get(':id')\n  one() {}\n  @Post()\n  make() {}\n}\n"), ['http:provider:GET /users/{}', 'http:provider:POST /users']);
    assert.deepEqual(sites('java', 'A.java', '@RestController\n@RequestMapping("/api/users")\npublic class A {\n  @GetMapping("/{id}")\n  public User one() {}\n  @RequestMapping(value = "/x", method = RequestMethod.POST)\n  public void x() {}\n}\n'), ['http:provider:GET /api/users/{}', 'http:provider:POST /api/users/x']);
    assert.deepEqual(sites('go', 'main.go', 'func main() {\n\tv1 := r.Group("/api/v1")\n\tv1.GET("/items/:id", getItem)\n\thttp.HandleFunc("GET /health/{probe}", health)\n}\n'), ['http:provider:GET /api/v1/items/{}', 'http:provider:GET /health/{}']);
    assert.deepEqual(sites('python', 'shop/urls.py', "urlpatterns = [\n    path('items/<int:pk>/', views.item_detail),\n]\n"), ['http:provider:* /items/{}']);
    assert.deepEqual(sites('python', 'app.py', "bp = Blueprint('b', __name__, url_prefix='/b')\n@bp.route('/x', methods=['GET', 'POST'])\ndef x():\n    pass\n"), ['http:provider:GET /b/x', 'http:provider:POST /b/x']);
    assert.deepEqual(sites('ruby', 'config/routes.rb', "get '/photos/:id', to: 'photos#show'\n"), ['http:provider:GET /photos/{}']);
    assert.deepEqual(sites('php', 'routes/web.php', "<?php\nRoute::get('/user/{id}', [UserController::class, 'show']);\n"), ['http:provider:GET /user/{}']);
    assert.deepEqual(sites('csharp', 'C.cs', '[Route("api/[controller]")]\npublic class OrdersController {\n  [HttpGet("{id}")]\n  public Order Get(int id) {}\n}\napp.MapPost("/todos", handler);\n'), ['http:provider:GET /api/orders/{}', 'http:provider:POST /todos']);
    assert.deepEqual(sites('typescript', 'app/api/users/[id]/route.ts', 'export async function GET(req: Request) {}\n'), ['http:provider:GET /api/users/{}']);
    // app.get('port') is an Express setting, not a route; a comment is not code
    assert.deepEqual(sites('javascript', 'a.js', "app.get('port');\n// app.get('/old', h)\n"), []);
  });
  it('recognises clients, env readers, SQL, topics and flags', () => {
    assert.deepEqual(sites('go', 'c.go', 'req, _ := http.NewRequest(http.MethodPost, "/api/items", body)\n'), ['http:consumer:POST /api/items']);
    assert.deepEqual(sites('java', 'C.java', 'HttpRequest r = HttpRequest.newBuilder(URI.create("http://x/api/a")).DELETE().build();\n'), ['http:consumer:DELETE /api/a']);
    assert.deepEqual(sites('csharp', 'C.cs', 'var r = await client.GetAsync($"/api/orders/{id}");\n'), ['http:consumer:GET /api/orders/{}']);
    assert.deepEqual(sites('typescript', 'sdk.gen.ts', "return __request(OpenAPI, { method: 'GET', url: '/api/v1/items/{id}', path: { id } });\n"), ['http:consumer:GET /api/v1/items/{}']);
    // a route registered on a sub-app named like a client, and a request mock, are not client calls
    const registrations = "api.get('/users', (c) => c.json([]));\napi.post('/users', async (c) => c.text('ok'));\nhttp.get('/mock/users', () => HttpResponse.json([]));\napi.get('/x', getUsersHandler);\n";
    assert.deepEqual(sites('typescript', 'routes.ts', registrations), []);
    assert.deepEqual(sites('typescript', 'calls.ts', "api.get('/one');\napi.get('/two', { params: { a: 1 } });\nclient.get('/three', config);\naxios.get('/four', cfg);\n"),
      ['http:consumer:GET /one', 'http:consumer:GET /two', 'http:consumer:GET /three', 'http:consumer:GET /four']);
    // setting a variable is not reading it; comparing it is
    assert.deepEqual(sites('python', 'conftest.py', 'os.environ["PREFER_ANYIO"] = "0"\nif os.environ["MODE"] == "1":\n    pass\n'), ['env:consumer:MODE']);
    assert.deepEqual(sites('typescript', 'setup.ts', 'process.env.SET_ME = "1";\nconst y = process.env.READ_TS;\n'), ['env:consumer:READ_TS']);
    assert.deepEqual(sites('rust', 'main.rs', 'let k = std::env::var("API_KEY").unwrap();\n'), ['env:consumer:API_KEY']);
    assert.deepEqual(sites('ruby', 'a.rb', "x = ENV.fetch('REDIS_URL')\n"), ['env:consumer:REDIS_URL']);
    assert.deepEqual(sites('python', 'q.py', 'cur.execute("""\n  SELECT o.id FROM orders o JOIN customers c ON c.id = o.cid\n""")\n'), ['sql:consumer:customers', 'sql:consumer:orders']);
    assert.deepEqual(sites('python', 'shop/models.py', 'class Item(models.Model):\n    name = models.CharField()\n', [{ symbol_path: 'Item', name: 'Item', kind: 'class', start_line: 1, end_line: 2 }]), ['sql:provider:shop_item']);
    assert.deepEqual(sites('ruby', 'app/models/category.rb', 'class Category < ApplicationRecord\nend\n', [{ symbol_path: 'Category', name: 'Category', kind: 'class', start_line: 1, end_line: 2 }]), ['sql:provider:categories']);
    assert.deepEqual(sites('java', 'L.java', '@KafkaListener(topics = "payments", groupId = "g")\npublic void on(String m) {}\n'), ['topic:consumer:kafka:payments']);
    assert.deepEqual(sites('javascript', 'e.js', "bus.emit('user:created', u);\nbus.on('user:created', f);\n"), ['topic:provider:event:user:created', 'topic:consumer:event:user:created']);
    assert.deepEqual(sites('python', 'tasks.py', '@app.task\ndef send_mail(to):\n    pass\n\nsend_mail.delay("a")\n'), ['topic:provider:celery:send_mail', 'topic:consumer:celery:send_mail']);
    assert.deepEqual(sites('typescript', 'f.ts', "if (ldClient.variation('dark-mode', ctx, false)) {}\nif (unleash.isEnabled('beta')) {}\n"), ['flag:consumer:dark-mode', 'flag:consumer:beta']);
  });
  it('reads config files: .env, JSON, TOML, properties', () => {
    const k = (p: string, t: string) => extractConfigSites(p, t).map(s => `${s.kind}:${s.key}:${s.line}`);
    assert.deepEqual(k('.env.local', '# c\nexport A=1\nB = 2\n'), ['env:A:2', 'env:B:3']);
    assert.deepEqual(k('config/app.json', '{\n  "db": {\n    "host": "x"\n  }\n}\n'), ['config:db:2', 'config:db.host:3']);
    assert.deepEqual(k('settings.toml', '[server]\nport = 80\n'), ['config:server:1', 'config:server.port:2']);
    assert.deepEqual(k('application.properties', 'spring.datasource.url=jdbc\n'), ['config:spring.datasource.url:1']);
    assert.deepEqual(k('config/broken.yaml', ': : :\n  - ['), []);
  });
  it('reads every YAML/JSON/TOML file, weaker than one named like configuration; environment set in YAML; never a manifest', () => {
    const k = (p: string, t: string) => extractConfigSites(p, t).map(s => `${s.kind}:${s.key}:${s.line}:${s.confidence}`);
    assert.deepEqual(k('deploy/values.yaml', 'retry:\n  limit: 3\n'), ['config:retry:1:0.7', 'config:retry.limit:2:0.7']);
    assert.deepEqual(k('config/values.yaml', 'retry:\n  limit: 3\n'), ['config:retry:1:0.9', 'config:retry.limit:2:0.9']);
    const compose = 'services:\n  web:\n    environment:\n      REDIS_URL: redis://r\n  worker:\n    environment:\n      - QUEUE_NAME=jobs\n      - bad name\n';
    assert.deepEqual(k('docker-compose.yml', compose).filter(s => s.startsWith('env:')), ['env:REDIS_URL:4:0.85', 'env:QUEUE_NAME:7:0.85']);
    const k8s = 'spec:\n  containers:\n    - name: app\n      env:\n        - name: LOG_LEVEL\n          value: debug\n';
    assert.deepEqual(k('k8s/deployment.yaml', k8s).filter(s => s.startsWith('env:')), ['env:LOG_LEVEL:5:0.85']);
    assert.deepEqual(k('package.json', '{"name": "x"}'), []);
    assert.deepEqual(k('pnpm-lock.yaml', 'lockfileVersion: 9\n'), []);
    assert.deepEqual(k('data/big.json', JSON.stringify({ a: 'x'.repeat(300_000) })), []);
  });
});

describe('links: config keys and environment in any YAML/JSON/TOML file', function () {
  this.timeout(120_000);
  it('a key read in code links to the file named like configuration first, else to any file that defines it; env set by Compose and Kubernetes', async () => {
    const ws = tempWorkspace({
      'config/settings.yaml': 'cache:\n  ttl: 60\n',
      'deploy/values.yaml': 'cache:\n  ttl: 30\nretry:\n  limit: 3\n',
      'docker-compose.yml': 'services:\n  web:\n    environment:\n      REDIS_URL: redis://r\n',
      'services/worker/compose.yaml': 'services:\n  worker:\n    environment:\n      - QUEUE_NAME=jobs\n',
      'services/worker/run.py': 'import os\n\nQUEUE = os.getenv("QUEUE_NAME")\n',
      'tools/report.py': 'import os\n\nQUEUE = os.getenv("QUEUE_NAME")\n',
      'k8s/deployment.yaml': 'spec:\n  containers:\n    - name: app\n      env:\n        - name: LOG_LEVEL\n          value: debug\n',
      '.github/workflows/ci.yml': 'env:\n  CI_ONLY: "1"\njobs: {}\n',
      'package.json': '{"name": "app", "version": "1.0.0"}\n',
      'app/main.py': [
        'import os', '', '', 'def settings(config):',
        '    ttl = config.get("cache.ttl")', '    limit = config.get("retry.limit")', '    name = config.get("name")',
        '    return os.environ["REDIS_URL"], os.environ.get("LOG_LEVEL"), ttl, limit, name', '',
      ].join('\n'),
    });
    const engine = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    try {
      await engine.index({});
      const L = (await call(engine, { limit: 200 })).data.links as Json[];
      const to = (kind: string, key: string) => find(L, kind, 'app/main.py', key).map(l => `${l.to_path ?? '-'}:${l.to_line ?? '-'}:${l.matched}`);
      assert.deepEqual(to('config', 'cache.ttl'), ['config/settings.yaml:2:true']);
      assert.deepEqual(to('config', 'retry.limit'), ['deploy/values.yaml:4:true']);
      assert.ok(find(L, 'config', 'app/main.py', 'retry.limit')[0].confidence <= 0.7);
      assert.deepEqual(to('config', 'name'), ['-:-:false'], 'package.json is a manifest, not configuration');
      assert.deepEqual(to('env', 'REDIS_URL'), ['docker-compose.yml:4:true']);
      assert.deepEqual(to('env', 'LOG_LEVEL'), ['k8s/deployment.yaml:5:true']);
      assert.equal(L.filter(l => l.key === 'CI_ONLY').length, 0, 'environment nothing reads is not a link');
      // set for another project's folder: still its only definition, at a lower confidence
      const other = find(L, 'env', 'tools/report.py', 'QUEUE_NAME');
      assert.deepEqual(other.map(l => l.to_path), ['services/worker/compose.yaml']);
      assert.ok(other[0].confidence < find(L, 'env', 'services/worker/run.py', 'QUEUE_NAME')[0].confidence);
      assert.match(other[0].evidence, /outside the reading file's folders/);
    } finally { engine.close(); ws.remove(); }
  });
});
