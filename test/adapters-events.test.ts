/**
 * Adapter events (with the durable outbox), declared tools and exposed tools, against real peers on
 * loopback only: an HTTP server (node:http) whose answers the tests script (fail N times, hang, 400),
 * an MCP server over stdio built with the SDK (a script run with node), and child processes that crash
 * (SIGKILL) or flush the same outbox at once.
 *
 * Checklist: each line of the spec's "Events" and "Tools" sections → the test that covers it.
 * Events
 *   [[adapters.<name>.on]] ............................ every "events:" test (settings `on` lists)
 *   event = "capture" ................................. "events: capture renders every payload field…"
 *   event = "promote" ................................. "events: filters — visibility, kinds, event…"
 *   event = "sync" .................................... "events: sync offers every current memory…"
 *   op = <any op of this adapter> ..................... capture → store; filters → store and brief; sync → store
 *   visibility = "private" (optional filter) .......... "events: filters…" (private ⇔ user scope, shared/team/repo ⇔ repo)
 *   kinds = ["decision", "incident"] (optional) ....... "events: filters…"; kind derivation: "memoryPayload…"
 *   payload: id, kind, title, status, date, summary, tags, paths, body, markdown (the whole file), path,
 *     visibility, source.repo, source.branch (also event.*) ... "memoryPayload…", "events: capture renders…"
 *   durable outbox (written before the attempt; retried with backoff; dead kept with its error; leases)
 *     ... "outbox: fails twice then succeeds…", "outbox: a crash…", "outbox: two processes…",
 *         "outbox: backoff doubles…" (units), "outbox: a 400 is dead at once…", "outbox: a template error…"
 * Tools
 *   [[adapters.notes.tools]] name, description ........ "tools: an inline http op…" (declaredTools + callTool)
 *   params { tag = "string", limit = "integer" } ...... "tools: an inline http op…" (coercion, types)
 *   `!` marks required { q = "string!" } .............. "tools: arguments are validated…"
 *   op = { method, path, query, text = "items" } ....... "tools: an inline http op…"
 *   op = "search" (reuse an existing op) .............. "tools: op = \"search\" reuses the op…"
 *   {{args.x}} and {{x}} .............................. "tools: an inline http op…"
 *   the result goes back as text ...................... every "tools:" test (`text`)
 *   params may be a full JSON schema .................. "tools: arguments are validated…" (enum, minimum)
 *   expose = ["codegraph_explore", "codegraph_node"] / "all" ... "exposed: a list with the prefix rule…",
 *     "exposed: all with a prefix…"
 *   prefix (default <adapter>_, skipped when the tool starts with it) ... "exposed: a list with the prefix rule…"
 */
import { strict as assert } from 'node:assert';
import { execFile, execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { AdapterService, memoryPayload, type AdapterServiceOptions } from '../src/core/adapters/service';
import { Outbox, backoffMs, emptyOutbox, type OutboxDocument } from '../src/core/adapters/outbox';
import { JsonDocument } from '../src/core/durable/store';
import { emptyTrust, type TrustDocument } from '../src/core/adapters/trust';
import type { MemoryRecord } from '../src/core/memories/model';
import { repoIdFor } from '../src/core/util/ids';

const NODE = process.execPath;
const ROOT = resolve(__dirname, '..');
const run = promisify(execFile);
const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));

let base: string;
let root: string;
let trustFile: string;
let outboxFile: string;
let http: Server;
let httpUrl: string;
const sockets = new Set<Socket>();
const services: AdapterService[] = [];
let mcpScript: string;

function git(...args: string[]) { execFileSync('git', args, { cwd: root, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } }); }

async function svc(settings: Record<string, unknown>, more: Partial<AdapterServiceOptions> = {}): Promise<AdapterService> {
  const s = await AdapterService.create({
    roots: [root], userConfigPath: null, settings, trust: new JsonDocument<TrustDocument>(trustFile, emptyTrust), projectName: 'proj',
    outbox: new JsonDocument<OutboxDocument>(outboxFile, emptyOutbox), outboxPolicy: { base_ms: 40, max_ms: 400 }, ...more,
  });
  services.push(s);
  return s;
}

// ------------------------------------------------------------------------------------------ the HTTP peer

interface Received { path: string; method: string; body: string; delivery?: string; answered: number }
let received: Received[] = [];
/** per path: how many more requests fail with 503 */
const failures = new Map<string, number>();
let storeDelayMs = 0;

function body(req: IncomingMessage): Promise<string> {
  return new Promise(res => { let b = ''; req.on('data', d => { b += d; }); req.on('end', () => res(b)); });
}

async function httpHandler(req: IncomingMessage, res: ServerResponse) {
  const u = new URL(req.url!, 'http://x');
  const b = await body(req);
  const json = (v: unknown, status = 200) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(v)); };
  const rec: Received = { path: u.pathname, method: req.method!, body: b, delivery: req.headers['x-delivery'] as string | undefined, answered: 0 };
  received.push(rec);
  const left = failures.get(u.pathname) ?? 0;
  if (left > 0) { failures.set(u.pathname, left - 1); rec.answered = 503; res.writeHead(503); return res.end('busy, try later'); }
  if (u.pathname.startsWith('/store')) {
    if (storeDelayMs) await sleep(storeDelayMs);
    rec.answered = 200;
    return json({ stored: true, id: 'n1' });
  }
  if (u.pathname === '/bad') { rec.answered = 400; res.writeHead(400); return res.end('missing field title'); }
  if (u.pathname === '/recent') {
    rec.answered = 200;
    return json({ items: [{ title: `recent ${u.searchParams.get('tag')}`, n: u.searchParams.get('n'), q: u.searchParams.get('q') }] });
  }
  if (u.pathname === '/search') {
    rec.answered = 200;
    return json({ hits: [{ name: `hit ${u.searchParams.get('q')}`, abstract: 'first', link: 'notes://1' }, { name: 'two', abstract: 'second', link: 'notes://2' }, { name: 'three' }] });
  }
  if (u.pathname === '/raw') { rec.answered = 200; return json({ count: 2, data: { a: 1 } }); }
  rec.answered = 404; res.writeHead(404); res.end('no');
}

const MCP_SERVER_SOURCE = (sdkServer: string, sdkStdio: string, zodPath: string) => `
const { McpServer } = require(${JSON.stringify(sdkServer)});
const { StdioServerTransport } = require(${JSON.stringify(sdkStdio)});
const { z } = require(${JSON.stringify(zodPath)});
const server = new McpServer({ name: 'notes', version: '1.0.0' });
const text = (t) => ({ content: [{ type: 'text', text: typeof t === 'string' ? t : JSON.stringify(t) }] });
server.registerTool('notes_explore', { description: 'Explore notes', inputSchema: { q: z.string() }, outputSchema: { hits: z.array(z.object({ title: z.string() })) } },
  async ({ q }) => ({ content: [{ type: 'text', text: 'explored ' + q }], structuredContent: { hits: [{ title: 'about ' + q }] } }));
server.registerTool('node', { description: 'A node', inputSchema: { id: z.string() } }, async ({ id }) => text('node ' + id));
server.registerTool('hidden', { description: 'Not exposed', inputSchema: {} }, async () => text('hidden'));
server.registerTool('fail', { description: 'errors', inputSchema: {} }, async () => ({ isError: true, content: [{ type: 'text', text: 'notes backend unavailable' }] }));
server.registerTool('echo', { description: 'Echo', inputSchema: { word: z.string(), n: z.number().int() } }, async (a) => text({ result: a.word + ' x' + a.n + ' ' + typeof a.n }));
if (require.main === module) server.connect(new StdioServerTransport());
`;

/** A child process: `emit <settings json> <memory json>` then SIGKILL itself; or `flush <settings json>`. */
const CHILD_SOURCE = (servicePath: string, storePath: string, trustPath: string, outboxPath: string) => `
const { AdapterService } = require(${JSON.stringify(servicePath)});
const { JsonDocument } = require(${JSON.stringify(storePath)});
const { emptyTrust } = require(${JSON.stringify(trustPath)});
const { emptyOutbox } = require(${JSON.stringify(outboxPath)});
const [mode, root, trustFile, outboxFile, settings, memory] = process.argv.slice(2);
(async () => {
  const s = await AdapterService.create({ roots: [root], userConfigPath: null, settings: JSON.parse(settings), trust: new JsonDocument(trustFile, emptyTrust),
    outbox: new JsonDocument(outboxFile, emptyOutbox), outboxPolicy: { base_ms: 300, max_ms: 1000 }, autoFlush: false });
  if (mode === 'emit') {
    const r = await s.emit('capture', JSON.parse(memory));
    process.stdout.write(JSON.stringify(r));
    process.kill(process.pid, 'SIGKILL'); // a crash: no dispose, nothing flushed on exit
  } else {
    const r = await s.flushOutbox();
    process.stdout.write(JSON.stringify(r));
    await s.dispose();
  }
})();
`;
let childScript: string;

let t0 = Date.UTC(2025, 2, 14, 9, 30);
function memory(over: Partial<MemoryRecord> = {}): MemoryRecord {
  const repo_id = repoIdFor(root);
  t0 += 1000;
  return {
    id: `memory:${repo_id}:${(over.text ?? 'x').length.toString(16).padStart(4, '0')}${t0.toString(16).slice(-8)}`, repo_id, anchor_kind: 'symbol', anchor_id: 'greetUser', anchor_path: 'src/greet.ts',
    start_line: 1, end_line: 1, text: 'Decision: greetUser stays synchronous.\n\nCallers in the #billing path rely on it. #perf', source: 'agent', confidence: 0.9,
    status: 'current', created_at_ms: t0, updated_at_ms: t0, scope: 'repo', fingerprint: null, created_commit: null, created_by: 'ana', checked_file_hash: null, checked_at_ms: t0,
    ...over,
  };
}

async function until(cond: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) { if (Date.now() > end) throw new Error(`timed out waiting for ${what}`); await sleep(20); }
}

before(async function () {
  this.timeout(60_000);
  base = realpathSync(mkdtempSync(join(tmpdir(), 'sightline-adapter-events-')));
  root = join(base, 'shop');
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'src', 'greet.ts'), 'export function greetUser(name: string) { return `hello ${name}`; }\n');
  git('init', '-q', '-b', 'main'); git('remote', 'add', 'origin', 'git@github.com:acme/shop.git'); git('add', '.'); git('commit', '-qm', 'init');
  trustFile = join(base, 'data', 'adapters-trust.json');
  mcpScript = join(base, 'mcp-peer.cjs');
  writeFileSync(mcpScript, MCP_SERVER_SOURCE(require.resolve('@modelcontextprotocol/sdk/server/mcp.js'), require.resolve('@modelcontextprotocol/sdk/server/stdio.js'), require.resolve('zod')));
  childScript = join(base, 'child.cjs');
  const src = (p: string) => join(ROOT, 'src', 'core', p);
  writeFileSync(childScript, CHILD_SOURCE(src('adapters/service.ts'), src('durable/store.ts'), src('adapters/trust.ts'), src('adapters/outbox.ts')));
  http = createServer((req, res) => { void httpHandler(req, res); });
  http.on('connection', s => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise<void>(r => http.listen(0, '127.0.0.1', () => r()));
  httpUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});

beforeEach(function () {
  received = []; failures.clear(); storeDelayMs = 0;
  outboxFile = join(base, 'data', `outbox-${this.currentTest!.title.replace(/[^a-z0-9]+/gi, '-').slice(0, 40)}.json`);
});

after(async () => {
  await Promise.all(services.map(s => s.dispose()));
  for (const s of sockets) s.destroy();
  await new Promise(r => http.close(r));
  rmSync(base, { recursive: true, force: true });
});

const outboxOf = () => JSON.parse(readFileSync(outboxFile, 'utf8')) as OutboxDocument;

// ------------------------------------------------------------------------------------------ payload

describe('adapter events: the payload', () => {
  it('memoryPayload: kind and tags derived from the text, title, summary, date, paths, visibility, markdown with front matter, source', () => {
    const m = memory();
    const p = memoryPayload(m, { id: m.repo_id, root, dir: 'shop', name: 'shop', slug: 'acme-shop', branch: 'main', remote: 'github.com/acme/shop' });
    assert.equal(p.kind, 'decision');
    assert.deepEqual(p.tags, ['billing', 'perf']);
    assert.equal(p.title, 'Decision: greetUser stays synchronous.');
    assert.equal(p.summary, 'Decision: greetUser stays synchronous.');
    assert.equal(p.date, '2025-03-14');
    assert.deepEqual(p.paths, ['src/greet.ts']);
    assert.equal(p.path, 'src/greet.ts');
    assert.equal(p.anchor, 'src/greet.ts:1 greetUser');
    assert.equal(p.visibility, 'shared');
    assert.equal(memoryPayload(memory({ scope: 'user' })).visibility, 'private');
    assert.deepEqual(p.source, { repo: 'github.com/acme/shop', branch: 'main', root });
    assert.equal(p.body, m.text);
    const fm = /^---\n([\s\S]*?)\n---\n\n([\s\S]*)$/.exec(p.markdown);
    assert.ok(fm, p.markdown);
    const front = parseYaml(fm[1]!) as Record<string, unknown>;
    assert.equal(front.id, m.id); assert.equal(front.kind, 'decision'); assert.equal(front.status, 'current'); assert.equal(front.visibility, 'shared');
    assert.deepEqual(front.tags, ['billing', 'perf']); assert.deepEqual(front.source, { repo: 'github.com/acme/shop', branch: 'main' });
    assert.equal(fm[2]!.trim(), m.text.trim());
    // kind: a known kind among the tags, else `note`; a record's own kind wins
    assert.equal(memoryPayload(memory({ text: 'Payments went down #incident #billing' })).kind, 'incident');
    assert.equal(memoryPayload(memory({ text: 'Just a remark about #billing' })).kind, 'note');
    assert.equal(memoryPayload({ ...memory(), kind: 'Runbook' } as MemoryRecord).kind, 'runbook');
    // a repository anchor: no path
    const r = memoryPayload(memory({ anchor_kind: 'repo', anchor_path: null, anchor_id: 'x', start_line: null, end_line: null }));
    assert.equal(r.path, ''); assert.deepEqual(r.paths, []); assert.equal(r.anchor, 'repository');
  });
});

// ------------------------------------------------------------------------------------------ events

const storeAdapter = (on: unknown[], more: Record<string, unknown> = {}, opPath = '/store') => ({
  notes: {
    driver: 'http', base_url: httpUrl, timeout_ms: 3000,
    ops: {
      store: { path: opPath, headers: { 'X-Delivery': '{{delivery_id}}' }, body: { text: '{{markdown}}', kind: '{{kind}}', m: '{{id}}' } },
      brief: { path: '/store-brief', body: { q: '{{title}}', kind: '{{event.kind}}', type: '{{event.type}}' } },
    },
    on, ...more,
  },
});

describe('adapter events: capture, promote, sync', () => {
  it('events: capture renders every payload field in the op\'s templates (top level and event.*); delivered once, outbox emptied', async () => {
    const fields = ['id', 'kind', 'title', 'status', 'date', 'summary', 'tags', 'paths', 'body', 'markdown', 'path', 'visibility', 'source.repo', 'source.branch'];
    const s = await svc({
      notes: {
        driver: 'http', base_url: httpUrl,
        ops: { store: { path: '/store-all', body: { ...Object.fromEntries(fields.map(f => [f, `{{${f}}}`])), ev: { type: '{{event.type}}', title: '{{event.title}}', repo: '{{event.source.repo}}' }, inline: '{{kind}}/{{visibility}}: {{title}} [{{tags|join:,}}]' } } },
        on: [{ event: 'capture', op: 'store' }],
      },
    });
    const m = memory();
    const r = await s.emit('capture', m);
    assert.equal(r.queued.length, 1, JSON.stringify(r));
    assert.equal(r.flushed?.delivered.length, 1, JSON.stringify(r.flushed));
    const got = received.filter(x => x.path === '/store-all');
    assert.equal(got.length, 1);
    const b = JSON.parse(got[0]!.body) as Record<string, unknown>;
    assert.equal(b.id, m.id); assert.equal(b.kind, 'decision'); assert.equal(b.title, 'Decision: greetUser stays synchronous.');
    assert.equal(b.status, 'current'); assert.equal(b.date, '2025-03-14');
    assert.equal(b.summary, 'Decision: greetUser stays synchronous.');
    assert.deepEqual(b.tags, ['billing', 'perf']); assert.deepEqual(b.paths, ['src/greet.ts']); // a whole {{x}} keeps its JSON type
    assert.equal(b.body, m.text); assert.match(String(b.markdown), /^---\nid: /); assert.match(String(b.markdown), /stays synchronous/);
    assert.equal(b.path, 'src/greet.ts'); assert.equal(b.visibility, 'shared');
    assert.equal(b['source.repo'], 'github.com/acme/shop'); assert.equal(b['source.branch'], 'main');
    assert.deepEqual(b.ev, { type: 'capture', title: 'Decision: greetUser stays synchronous.', repo: 'github.com/acme/shop' });
    assert.equal(b.inline, 'decision/shared: Decision: greetUser stays synchronous. [billing,perf]');
    assert.deepEqual(s.outbox().pending, []);
    assert.deepEqual(outboxOf().items, []);
  });

  it('events: filters — visibility (private ⇔ user scope, shared/team ⇔ repo scope), kinds, event; inactive adapters are skipped with a reason', async () => {
    const s = await svc({
      ...storeAdapter([
        { event: 'capture', op: 'store', visibility: 'private' },
        { event: 'capture', op: 'brief', visibility: 'team', kinds: ['Incident', 'decision'] },
        { event: 'promote', op: 'store', kinds: ['runbook'] },
      ]),
      off: { driver: 'http', base_url: httpUrl, enabled: false, ops: { store: { path: '/store-off' } }, on: [{ event: 'capture', op: 'store' }] },
    });
    // a shared decision: only the team/kinds subscription (brief)
    const shared = await s.emit('capture', memory());
    assert.deepEqual(shared.queued.map(q => q.op), ['brief'], JSON.stringify(shared));
    assert.ok(shared.skipped.some(x => x.adapter === 'off' && /disabled/.test(x.reason)), JSON.stringify(shared.skipped));
    // a private note: only the private subscription (store)
    const priv = await s.emit('capture', memory({ scope: 'user', text: 'remember to rotate keys' }));
    assert.deepEqual(priv.queued.map(q => q.op), ['store']);
    // a shared note (kind note): nothing on capture
    assert.deepEqual((await s.emit('capture', memory({ text: 'a plain note' }))).queued, []);
    // promote: only the runbook subscription
    assert.deepEqual((await s.emit('promote', memory({ text: 'Decision: x' }))).queued, []);
    const promoted = await s.emit('promote', memory({ text: 'Runbook: restart the queue\n\nsteps… #ops' }));
    assert.deepEqual(promoted.queued.map(q => q.op), ['store']);
    assert.equal(received.filter(x => x.path === '/store-off').length, 0);
    const briefs = received.filter(x => x.path === '/store-brief');
    assert.equal(briefs.length, 1);
    assert.deepEqual(JSON.parse(briefs[0]!.body), { q: 'Decision: greetUser stays synchronous.', kind: 'decision', type: 'capture' });
    assert.equal(received.filter(x => x.path === '/store').length, 2);
  });

  it('events: sync offers every current memory (current, relocated) to every sync subscription; a pending duplicate is not queued twice', async () => {
    const s = await svc(storeAdapter([{ event: 'sync', op: 'store' }, { event: 'capture', op: 'brief' }]), { autoFlush: false });
    const ms = [memory({ text: 'one' }), memory({ text: 'two', status: 'relocated' }), memory({ text: 'three', status: 'stale' }), memory({ text: 'four', status: 'gone' })];
    const r = await s.sync(ms, { flush: false });
    assert.equal(r.queued.length, 2); assert.equal(r.not_current, 2);
    assert.deepEqual(r.queued.map(q => q.memory_id), [ms[0]!.id, ms[1]!.id]);
    const again = await s.sync(ms, { flush: false });
    assert.equal(again.queued.length, 0); assert.equal(again.duplicates, 2);
    assert.equal(s.outbox().pending.length, 2);
    const f = await s.flushOutbox();
    assert.equal(f.delivered.length, 2); assert.equal(f.pending, 0);
    assert.deepEqual(received.map(x => JSON.parse(x.body).m).sort(), [ms[0]!.id, ms[1]!.id].sort());
    assert.equal(received.filter(x => x.path === '/store-brief').length, 0);
  });
});

// ------------------------------------------------------------------------------------------ outbox

describe('adapter events: the durable outbox', () => {
  it('outbox: an HTTP peer that fails twice then succeeds — written before the attempt, retried with backoff, delivered once', async () => {
    failures.set('/store', 2);
    const s = await svc(storeAdapter([{ event: 'capture', op: 'store' }]));
    const m = memory();
    const r = await s.emit('capture', m);
    assert.equal(r.queued.length, 1);
    assert.equal(r.flushed!.delivered.length, 0);
    const f = r.flushed!.failed[0]!;
    assert.equal(f.error.code, 'http_status'); assert.equal(f.attempts, 1); assert.equal(f.state, 'pending');
    const item = s.outbox().pending[0]!;
    assert.equal(item.attempts, 1); assert.match(item.last_error!.message, /503/); assert.equal(item.memory_id, m.id);
    const wait = Date.parse(item.next_attempt_at) - Date.parse(item.last_error!.at);
    assert.equal(wait, 40); // base_ms after the first failure
    // the retry timer delivers it (503 again, then 200)
    await until(() => received.some(x => x.path === '/store' && x.answered === 200), 10_000, 'a delivery');
    await until(() => s.outbox().pending.length === 0, 2_000, 'the outbox to empty');
    const got = received.filter(x => x.path === '/store');
    assert.deepEqual(got.map(x => x.answered), [503, 503, 200]);
    assert.ok(got.every(x => x.delivery === item.id), 'the same delivery id on every attempt');
    await sleep(150);
    assert.equal(received.filter(x => x.path === '/store').length, 3, 'delivered once, nothing after success');
  });

  it('outbox: a crash while the peer is down loses nothing — a new process delivers the item', async function () {
    this.timeout(60_000);
    // a port nobody listens on yet
    const probe = createServer();
    await new Promise<void>(r => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as AddressInfo).port;
    await new Promise(r => probe.close(r));
    const settings = { notes: { driver: 'http', base_url: `http://127.0.0.1:${port}`, ops: { store: { path: '/store', body: { m: '{{id}}', text: '{{markdown}}' } } }, on: [{ event: 'capture', op: 'store' }] } };
    const m = memory();
    const child = await run(NODE, ['-r', 'tsx/cjs', childScript, 'emit', root, trustFile, outboxFile, JSON.stringify(settings), JSON.stringify(m)], { cwd: ROOT }).catch((e: { stdout: string; signal?: string }) => e);
    assert.equal((child as { signal?: string }).signal, 'SIGKILL');
    const emitted = JSON.parse((child as { stdout: string }).stdout) as { queued: unknown[]; flushed: { failed: { error: { code: string } }[] } };
    assert.equal(emitted.queued.length, 1);
    assert.equal(emitted.flushed.failed[0]!.error.code, 'unreachable');
    const left = outboxOf().items;
    assert.equal(left.length, 1); assert.equal(left[0]!.attempts, 1); assert.equal(left[0]!.last_error!.code, 'unreachable');
    // the peer comes up on that port; a new process (service) flushes on create, lazily
    const bodies: string[] = [];
    const peer = createServer((req, res) => { void body(req).then(b => { bodies.push(b); res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"ok":true}'); }); });
    await new Promise<void>(r => peer.listen(port, '127.0.0.1', () => r()));
    try {
      const s = await svc(settings);
      await until(() => bodies.length > 0, 10_000, 'the delivery after the crash');
      await until(() => s.outbox().pending.length === 0, 2_000, 'the outbox to empty');
      assert.equal(bodies.length, 1);
      assert.equal(JSON.parse(bodies[0]!).m, m.id);
    } finally { peer.closeAllConnections(); await new Promise(r => peer.close(r)); }
  });

  it('outbox: two processes flushing at once never deliver one item twice (leases)', async function () {
    this.timeout(60_000);
    storeDelayMs = 150;
    const settings = storeAdapter([{ event: 'sync', op: 'store' }]);
    const s = await svc(settings, { autoFlush: false });
    const ms = Array.from({ length: 6 }, (_, i) => memory({ text: `memory number ${i}` }));
    assert.equal((await s.sync(ms, { flush: false })).queued.length, 6);
    const [mine, theirs] = await Promise.all([
      sleep(30).then(() => s.flushOutbox()),
      run(NODE, ['-r', 'tsx/cjs', childScript, 'flush', root, trustFile, outboxFile, JSON.stringify(settings)], { cwd: ROOT }).then(r => JSON.parse(r.stdout) as { delivered: unknown[] }),
    ]);
    const ids = received.filter(x => x.path === '/store').map(x => x.delivery);
    assert.equal(ids.length, 6, JSON.stringify({ mine: mine.delivered.length, theirs: theirs.delivered.length }));
    assert.equal(new Set(ids).size, 6);
    assert.equal(mine.delivered.length + theirs.delivered.length, 6);
    assert.deepEqual(outboxOf().items, []);
  });

  it('outbox: a 400 is dead at once, kept visible with its error; retryOutbox revives it, dropOutbox removes it', async () => {
    const s = await svc(storeAdapter([{ event: 'capture', op: 'store' }], {}, '/bad'), { autoFlush: false });
    const r = await s.emit('capture', memory());
    assert.equal(r.flushed!.failed[0]!.state, 'dead');
    const { pending, dead } = s.outbox();
    assert.equal(pending.length, 0); assert.equal(dead.length, 1);
    assert.equal(dead[0]!.last_error!.code, 'http_status'); assert.match(dead[0]!.last_error!.message, /400.*missing field title/);
    assert.equal((await s.flushOutbox()).delivered.length, 0);
    assert.equal(received.filter(x => x.path === '/bad').length, 1, 'a dead item is not attempted again');
    assert.equal(s.retryOutbox(), 1);
    assert.equal(s.outbox().pending[0]!.attempts, 0);
    await s.flushOutbox();
    assert.equal(received.filter(x => x.path === '/bad').length, 2);
    assert.equal(s.dropOutbox(), 1);
    assert.deepEqual(s.outbox(), { path: outboxFile, pending: [], dead: [] });
  });

  it('outbox: a template error is dead at once, naming the variable; an unknown visibility is a config error', async () => {
    const s = await svc({ notes: { driver: 'http', base_url: httpUrl, ops: { store: { path: '/store', body: { x: '{{ticket}}' } } }, on: [{ event: 'capture', op: 'store' }] } }, { autoFlush: false });
    const r = await s.emit('capture', memory());
    const f = r.flushed!.failed[0]!;
    assert.equal(f.state, 'dead'); assert.equal(f.error.code, 'template_error'); assert.match(f.error.message, /`ticket`/);
    assert.equal(received.length, 0);
    assert.equal(s.outbox().dead[0]!.last_error!.code, 'template_error');
    const bad = await svc({ notes: { driver: 'http', base_url: httpUrl, ops: { store: { path: '/store' } }, on: [{ event: 'capture', op: 'store', visibility: 'everyone' }] } });
    assert.ok(bad.configErrors().some(e => e.field === 'adapters.notes.on.0.visibility'), JSON.stringify(bad.configErrors().map(e => e.message)));
  });

  it('outbox: backoff doubles from 5 s up to 1 h; too many attempts or too old is dead; an expired lease is claimed again (units)', () => {
    assert.deepEqual([1, 2, 3, 4].map(n => backoffMs(n)), [5000, 10_000, 20_000, 40_000]);
    assert.equal(backoffMs(30), 3_600_000);
    let now = Date.UTC(2025, 0, 1);
    const doc = new JsonDocument<OutboxDocument>(outboxFile, emptyOutbox);
    const a = new Outbox(doc, { max_attempts: 3 }, () => new Date(now));
    const b = new Outbox(doc, { max_attempts: 3 }, () => new Date(now));
    const d = { adapter: 'notes', op: 'store' as const, event: 'capture' as const, memory_id: 'm1', inputs: { x: 1 } };
    const [item] = a.enqueue([d]).queued;
    assert.equal(a.enqueue([d]).duplicates.length, 1);
    assert.equal(a.claim(() => 60_000).length, 1);
    assert.equal(b.claim(() => 60_000).length, 0, 'leased by a');
    now += 61_000; // a died holding the lease
    assert.equal(b.claim(() => 60_000).length, 1, 'the lease ran out');
    assert.equal(b.fail(item!.id, { code: 'timeout', message: 't1' })!.next_attempt_at, new Date(now + 5000).toISOString());
    assert.equal(a.claim(() => 1000).length, 0, 'not due yet');
    now += 5000;
    a.claim(() => 1000);
    assert.equal(a.fail(item!.id, { code: 'timeout', message: 't2' })!.next_attempt_at, new Date(now + 10_000).toISOString());
    now += 10_000;
    a.claim(() => 1000);
    const dead = a.fail(item!.id, { code: 'timeout', message: 't3' })!;
    assert.equal(dead.state, 'dead'); assert.equal(dead.attempts, 3); assert.equal(dead.last_error!.message, 't3');
    assert.equal(a.list().length, 1, 'kept');
    // too old: dead at its next failure
    const old = new Outbox(doc, {}, () => new Date(now));
    const [o] = old.enqueue([{ ...d, memory_id: 'm2' }]).queued;
    now += 8 * 24 * 3600_000;
    old.claim(() => 1000);
    assert.equal(old.fail(o!.id, { code: 'unreachable', message: 'down' })!.state, 'dead');
  });
});

// ------------------------------------------------------------------------------------------ declared tools

describe('adapter tools: declared', () => {
  const notes = (tools: unknown[], ops: Record<string, unknown> = {}) => ({ notes: { driver: 'http', base_url: httpUrl, ops: { search: { method: 'GET', path: '/search', query: { q: '{{query}}' } }, ...ops }, tools } });

  it('tools: an inline http op — {{args.x}} and {{x}}, integer coercion, text path answered as text', async () => {
    const s = await svc(notes([{ name: 'notes_recent', description: 'The ten most recent team notes', params: { tag: 'string', limit: 'integer' }, op: { method: 'GET', path: '/recent', query: { tag: '{{tag}}', n: '{{args.limit}}', q: '{{args.q|default:}}' }, text: 'items' } }]));
    assert.deepEqual(s.declaredTools().map(t => t.name), ['notes_recent']);
    const r = await s.callTool('notes_recent', { tag: 'db', limit: '5' });
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(JSON.parse(r.text), [{ title: 'recent db', n: '5', q: null }]); // an empty query value is dropped
    assert.equal(r.adapter, 'notes');
    const bad = await s.callTool('notes_recent', { tag: 'db', limit: 'five' });
    assert.ok(!bad.ok && bad.error.code === 'invalid_args' && bad.error.details?.field === 'limit', JSON.stringify(bad));
  });

  it('tools: arguments are validated against the JSON schema (required `!`, full schema with enum/minimum), naming the field', async () => {
    const s = await svc(notes([
      { name: 'notes_find', description: 'Find', params: { q: 'string!', limit: 'integer' }, op: { method: 'GET', path: '/recent', query: { tag: '{{q}}' }, text: 'items' } },
      { name: 'notes_typed', description: 'Typed', params: { type: 'object', properties: { level: { type: 'string', enum: ['low', 'high'] }, n: { type: 'integer', minimum: 1 } }, required: ['level'], additionalProperties: false }, op: { method: 'GET', path: '/raw' } },
    ]));
    const missing = await s.callTool('notes_find', { limit: 2 });
    assert.ok(!missing.ok && missing.error.code === 'invalid_args' && missing.error.details?.field === 'q' && /`q` is required/.test(missing.error.message), JSON.stringify(missing));
    const enumBad = await s.callTool('notes_typed', { level: 'mid' });
    assert.ok(!enumBad.ok && enumBad.error.details?.field === 'level', JSON.stringify(enumBad));
    const minBad = await s.callTool('notes_typed', { level: 'low', n: 0 });
    assert.ok(!minBad.ok && minBad.error.details?.field === 'n', JSON.stringify(minBad));
    const extra = await s.callTool('notes_typed', { level: 'low', other: 1 });
    assert.ok(!extra.ok && extra.error.details?.field === 'other', JSON.stringify(extra));
    assert.equal(received.length, 0, 'nothing sent for invalid arguments');
    // no text path, no items hints: the payload as JSON text
    const ok = await s.callTool('notes_typed', { level: 'high', n: 3 });
    assert.ok(ok.ok, JSON.stringify(ok));
    assert.deepEqual(JSON.parse(ok.text), { count: 2, data: { a: 1 } });
    const unknown = await s.callTool('nope', {});
    assert.ok(!unknown.ok && unknown.error.code === 'unknown_tool' && /notes_find/.test(unknown.error.message));
  });

  it('tools: op = "search" reuses the op — the first string argument is its query; items come back one line each', async () => {
    const s = await svc(notes([{ name: 'notes_search', description: 'Search notes', params: { topic: 'string!', limit: 'integer' }, op: 'search' }]));
    const r = await s.callTool('notes_search', { topic: 'caching', limit: 2 });
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.text, '1. hit caching — first (notes://1)\n2. two — second (notes://2)');
    assert.equal(received[0]!.path, '/search');
  });

  it('tools: an inline mcp op without args passes the arguments through; a disabled adapter is a structured failure', async () => {
    const s = await svc({
      mcp: { driver: 'mcp', command: [NODE, mcpScript], tools: [{ name: 'echo_twice', description: 'Echo', params: { word: 'string!', n: 'integer' }, op: { tool: 'echo', text: 'result' } }] },
      off: { driver: 'http', base_url: httpUrl, enabled: false, ops: {}, tools: [{ name: 'off_tool', description: 'Off', op: { path: '/raw' } }] },
    });
    const r = await s.callTool('echo_twice', { word: 'hi', n: '2' });
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.text, 'hi x2 number');
    const off = await s.callTool('off_tool', {});
    assert.ok(!off.ok && off.error.code === 'disabled', JSON.stringify(off));
  });
});

// ------------------------------------------------------------------------------------------ exposed tools

describe('adapter tools: exposed', () => {
  it('exposed: a list with the prefix rule — text plus structuredContent; not exposed or unknown is unknown_tool; isError is peer_error', async () => {
    const s = await svc({ notes: { driver: 'mcp', command: [NODE, mcpScript], expose: ['notes_explore', 'node', 'fail'] } });
    const r = await s.callExposed('notes_explore', { q: 'auth' });
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.text, 'explored auth');
    assert.deepEqual(r.structured_content, { hits: [{ title: 'about auth' }] });
    const n = await s.callExposed('notes_node', { id: '7' });
    assert.ok(n.ok && n.text === 'node 7' && n.structured_content === undefined, JSON.stringify(n));
    const hidden = await s.callExposed('notes_hidden', {});
    assert.ok(!hidden.ok && hidden.error.code === 'unknown_tool', JSON.stringify(hidden));
    const f = await s.callExposed('notes_fail', {});
    assert.ok(!f.ok && f.error.code === 'peer_error' && /notes backend unavailable/.test(f.error.message), JSON.stringify(f));
    const none = await s.callExposed('elsewhere_x', {});
    assert.ok(!none.ok && none.error.code === 'unknown_tool');
  });

  it('exposed: all with a prefix; the server validates arguments (a structured error)', async () => {
    const s = await svc({ cg: { driver: 'mcp', command: [NODE, mcpScript], expose: 'all', prefix: 'cg_' } }, { cooldown: { base_ms: 0 } });
    const { tools } = await s.exposedTools();
    assert.ok(tools.some(t => t.name === 'cg_hidden'));
    const r = await s.callExposed('cg_echo', { word: 'w', n: 3 });
    assert.ok(r.ok && r.text === JSON.stringify({ result: 'w x3 number' }), JSON.stringify(r));
    const bad = await s.callExposed('cg_echo', { word: 'w' });
    assert.ok(!bad.ok && bad.error.code === 'peer_error', JSON.stringify(bad));
    assert.equal((await s.callExposed('echo', {})).ok, false, 'the unprefixed name is not published');
  });
});
