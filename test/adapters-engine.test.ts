/**
 * The adapters service against real peers on loopback only: an HTTP server (node:http), command peers
 * (grep and a node script), an MCP server over stdio (a script run with node) and over Streamable HTTP
 * (McpServer + StreamableHTTPServerTransport on 127.0.0.1:0), both built with the SDK here, and Sightline's
 * own MCP server (dist/mcp.js; needs `npm run build`). Pure parts: adapters-units.test.ts ("units").
 *
 * Checklist: each line of the spec's tables → the test that covers it.
 * Fields
 *   driver (mcp/http/command) ........ every peer suite; missing driver: units "a wrong type…" (e)
 *   enabled = false .................. "list: states and reasons"
 *   description ...................... "list: states and reasons"
 *   when ............................. units "when" (each condition true and false); "when: inactive with the reason, never called"
 *   vars (templates themselves) ...... units "templates"; "http: GET with query…" (vars.base)
 *   timeout_ms (default 10000) ....... units "layers merge…"; "http: a hung endpoint…", "mcp stdio: a hung tool…", "command: killed with its tree…"
 *   weight (default 0.9; local 1.0) .. units "layers merge…"; "search: fans out…"
 *   command (argv) ................... "command: argv, stdin, cwd, env…"; "mcp stdio…"
 *   env, cwd (default repo root) ..... "command: argv, stdin, cwd, env…"
 *   url (MCP HTTP / base HTTP) ....... "mcp http…"; "http: POST with a JSON body…" (op url)
 *   base_url ......................... "http: GET with query…"
 *   headers .......................... "http: GET with query…"; "mcp http: headers sent…"
 *   expose (none/all/list) ........... "mcp stdio: exposedTools…"
 *   prefix (not doubled) ............. "mcp stdio: exposedTools…"; units "the prefix is not doubled"
 *   ops.<op> ......................... every peer suite (search, code, history, read, brief, llm, store)
 *   on ............................... units "on, tools and expose are parsed and validated" (parse only)
 *   tools ............................ units "on, tools…"; "declaredTools: params → JSON schema"
 * when (command, file, repo, env, exists; inactive + reason, never called) ... units "when"; "when: inactive…"
 * Operations
 *   mcp tool, args (optional) ........ "mcp stdio: args rendered with their types"; binding: "mcp stdio: arguments bound…"
 *   http method (POST with body, GET without) ... "http: GET with query…", "http: POST with a JSON body…"
 *   http path / url, query (empty dropped), headers, body (JSON; string as is) ... same two + "http: a string body…"
 *   command command, stdin, output_file, cwd, env ... "command: argv, stdin, cwd, env…", "command: output_file…"
 *   format auto/json/jsonl/lines/text  units "formats"; "http: log lines before JSON…"; "command: grep as a peer" (lines)
 *   timeout_ms (per op) .............. "http: a hung endpoint…"
 *   items, split, where, map ......... units "result mapping"; "http: GET with query…" (map), "command: grep…" (re:), "mcp stdio: split…"
 *   text ............................. "http: read with text…"; "mcp stdio: read…"
 *   owns ............................. "http: read with text…" (ownerOf)
 * MCP argument binding (roles query, target, uri, content, title/tags, limit, project, prompt; required
 *   string gets the main value; JSON types) ... units "MCP argument binding"; "mcp stdio: arguments bound…";
 *   "sightline mcp: search_code bound by its schema"
 * inspect .......................... "mcp stdio: inspect lists tools and schemas"
 * Result mapping 1 (payload: structuredContent / text JSON / text) ... units "MCP payload"; "mcp stdio: structuredContent…"
 * Result mapping 2, 3 ............... units "result mapping"
 * Events ............................ parsed and validated here (units "on, tools…"); delivered and tested in adapters-events.test.ts
 * Tools (declared; params `!`; full JSON schema) ... "declaredTools…"; units "params → JSON schema"
 * Templates (repo.*, project.name, vars, env, now.date, inputs, filters) ... units "templates"; "command: argv…" (repo.*)
 * Failures: hung (timeout honoured), crash (restarted), malformed (structured), config error (file, line,
 *   field), cool-down ... "http: a hung endpoint…", "mcp stdio: a crashing server is restarted…",
 *   "malformed answers…", "list: a config error…", "cool-down…"
 * Trust: untrusted / trusted / changed after trust / untrusted workspace / user+settings trusted ... "trust…"
 */
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { AdapterService, CALL_SLACK_MS, type AdapterServiceOptions } from '../src/core/adapters/service';
import { McpDriver } from '../src/core/adapters/drivers/mcp';
import { JsonDocument } from '../src/core/durable/store';
import { emptyTrust, type TrustDocument } from '../src/core/adapters/trust';
import { CLI_JS, MCP_JS, requireBuilt } from './helpers/mcp';

const NODE = process.execPath;
const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };
const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));

let base: string;
let root: string;
let trustFile: string;
let http: Server;
let httpUrl: string;
/** Requests the never-answering endpoint received (a cooling adapter must not add to them). */
let hangRequests = 0;
const sockets = new Set<Socket>();
let mcpHttp: Server;
let mcpHttpUrl: string;
const services: AdapterService[] = [];

function git(...args: string[]) { execFileSync('git', args, { cwd: root, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } }); }

async function svc(settings: Record<string, unknown>, more: Partial<AdapterServiceOptions> = {}): Promise<AdapterService> {
  const s = await AdapterService.create({ roots: [root], userConfigPath: null, settings, trust: new JsonDocument<TrustDocument>(trustFile, emptyTrust), projectName: 'proj', ...more });
  services.push(s);
  return s;
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise(res => { let b = ''; req.on('data', d => { b += d; }); req.on('end', () => res(b)); });
}

async function httpHandler(req: IncomingMessage, res: ServerResponse) {
  const u = new URL(req.url!, 'http://x');
  const json = (v: unknown, status = 200) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(v)); };
  if (u.pathname === '/api/search' && req.method === 'GET') {
    return json({ meta: {}, hits: [
      { name: `hit for ${u.searchParams.get('q')}`, abstract: 'first', link: 'https://notes/1', relevance: 2, query: Object.fromEntries(u.searchParams), trace: req.headers['x-trace'], auth: req.headers.authorization },
      { name: 'second', abstract: 'two', link: 'https://notes/2', relevance: 1 },
    ] });
  }
  if (u.pathname === '/api/echo') {
    const b = await body(req);
    return json({ results: [{ title: 'echo', method: req.method, ct: req.headers['content-type'], body: b }] });
  }
  if (u.pathname === '/notes/1') { res.writeHead(200, { 'content-type': 'application/json' }); return res.end(JSON.stringify({ note: { markdown: '# Decision 1\nUse Postgres.' } })); }
  if (u.pathname === '/hang') { hangRequests++; return; } // never answers
  if (u.pathname === '/bad-json') { res.writeHead(200, { 'content-type': 'application/json' }); return res.end('{"results": [oops'); }
  if (u.pathname === '/status500') { res.writeHead(500); return res.end('database down'); }
  if (u.pathname === '/logs') { res.writeHead(200, { 'content-type': 'text/plain' }); return res.end('INFO booting\nWARN slow disk\n{"items": [{"title": "after logs"}]}\n'); }
  if (u.pathname === '/wrong-shape') return json({ unexpected: 5 });
  res.writeHead(404); res.end('no');
}

/** The test's MCP server (the same tools over stdio and HTTP). */
const MCP_SERVER_SOURCE = (sdkServer: string, sdkStdio: string, zodPath: string) => `
const { McpServer } = require(${JSON.stringify(sdkServer)});
const { StdioServerTransport } = require(${JSON.stringify(sdkStdio)});
const { z } = require(${JSON.stringify(zodPath)});
const server = new McpServer({ name: 'notes', version: '1.0.0' });
const text = (t) => ({ content: [{ type: 'text', text: typeof t === 'string' ? t : JSON.stringify(t) }] });
server.registerTool('search_notes', { description: 'Search notes', inputSchema: { substring_pattern: z.string(), max_results: z.number().int().optional(), projectPath: z.string().optional() } },
  async (args) => text({ results: [{ title: 'note about ' + args.substring_pattern, summary: 'We chose X', url: 'notes://1', score: 0.8, args }] }));
server.registerTool('structured', { description: 'Structured hits', inputSchema: { query: z.string() }, outputSchema: { hits: z.array(z.object({ title: z.string(), n: z.number() })) } },
  async ({ query }) => ({ content: [{ type: 'text', text: 'see structured' }], structuredContent: { hits: [{ title: 'S ' + query, n: 1 }] } }));
server.registerTool('read_note', { description: 'Read a note', inputSchema: { resource: z.string() } }, async ({ resource }) => text('# Note ' + resource + '\\nbody'));
server.registerTool('digest', { description: 'Markdown digest', inputSchema: { topic: z.string(), n: z.number().optional() } },
  async ({ topic, n }) => text('### First ' + topic + '\\nalpha\\n### Second\\nbeta (n=' + n + ')\\n'));
server.registerTool('remember', { description: 'Store', inputSchema: { markdown: z.string(), subject: z.string().optional(), labels: z.array(z.string()).optional() } },
  async (a) => text({ stored: true, echo: a }));
server.registerTool('typed', { description: 'Typed args', inputSchema: { n: z.number(), s: z.string(), flag: z.boolean() } }, async (a) => text({ result: JSON.stringify({ n: typeof a.n, s: typeof a.s, flag: typeof a.flag }) }));
server.registerTool('whoami', { description: 'pid', inputSchema: {} }, async () => text(String(process.pid)));
server.registerTool('crash', { description: 'exits', inputSchema: {} }, async () => { process.exit(3); });
server.registerTool('hang', { description: 'never answers', inputSchema: {} }, () => new Promise(() => {}));
server.registerTool('fail', { description: 'errors', inputSchema: {} }, async () => ({ isError: true, content: [{ type: 'text', text: 'notes backend unavailable' }] }));
server.registerTool('notes_explore', { description: 'Explore', inputSchema: { q: z.string() } }, async () => text('x'));
server.registerTool('node', { description: 'Node', inputSchema: { id: z.string() } }, async () => text('x'));
module.exports = { server };
if (require.main === module) server.connect(new StdioServerTransport());
`;

let mcpScript: string;
let peerScript: string;

const PEER_SOURCE = `
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const [mode, ...rest] = process.argv.slice(2);
let input = '';
process.stdin.on('data', d => { input += d; });
process.stdin.on('end', () => {
  if (mode === 'echo') { process.stdout.write('log: starting\\n' + JSON.stringify({ items: [{ title: 'echo', argv: rest, stdin: input, cwd: process.cwd(), env: process.env.PEER_VAR, op_env: process.env.OP_VAR }] }) + '\\n'); }
  else if (mode === 'write') { fs.writeFileSync(rest[0], JSON.stringify({ result: 'from file ' + rest[1] })); process.stdout.write('ignored'); }
  else if (mode === 'hang') {
    const c = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    fs.writeFileSync(rest[0], String(c.pid));
    setInterval(() => {}, 1000);
  }
  else if (mode === 'garbage') process.stdout.write('not json at all {');
  else if (mode === 'exit3') { process.stderr.write('boom: bad flag'); process.exit(3); }
});
`;

function mcpHttpServer(): Promise<Server> {
  return new Promise(res => {
    const s = createServer(async (req, resp) => {
      if (req.headers.authorization !== 'Bearer t0k') { resp.writeHead(401); resp.end('unauthorized'); return; }
      const server = new McpServer({ name: 'tickets', version: '1.0.0' });
      server.registerTool('find_tickets', { description: 'Find tickets', inputSchema: { question: z.string(), top_k: z.number().int().optional() } },
        async ({ question, top_k }) => ({ content: [{ type: 'text', text: JSON.stringify({ matches: [{ subject: `TICKET-1 ${question}`, url: 'https://t/1', top_k }] }) }] }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      resp.on('close', () => { void transport.close(); void server.close(); });
      await server.connect(transport);
      const b = req.method === 'POST' ? JSON.parse(await body(req)) : undefined;
      await transport.handleRequest(req, resp, b);
    });
    s.listen(0, '127.0.0.1', () => res(s));
  });
}

before(async function () {
  this.timeout(120_000);
  base = realpathSync(mkdtempSync(join(tmpdir(), 'sightline-adapters-')));
  root = join(base, 'shop');
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'src', 'greet.ts'), 'export function greetUser(name: string) { return `hello ${name}`; }\n');
  writeFileSync(join(root, 'README.md'), 'hello adapters\n');
  git('init', '-q', '-b', 'main'); git('remote', 'add', 'origin', 'git@github.com:acme/shop.git'); git('add', '.'); git('commit', '-qm', 'init');
  trustFile = join(base, 'data', 'adapters-trust.json');
  mcpScript = join(base, 'mcp-peer.cjs');
  writeFileSync(mcpScript, MCP_SERVER_SOURCE(require.resolve('@modelcontextprotocol/sdk/server/mcp.js'), require.resolve('@modelcontextprotocol/sdk/server/stdio.js'), require.resolve('zod')));
  peerScript = join(base, 'peer.cjs');
  writeFileSync(peerScript, PEER_SOURCE);
  http = createServer((req, res) => { void httpHandler(req, res); });
  http.on('connection', s => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise<void>(r => http.listen(0, '127.0.0.1', () => r()));
  httpUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  mcpHttp = await mcpHttpServer();
  mcpHttpUrl = `http://127.0.0.1:${(mcpHttp.address() as AddressInfo).port}/mcp`;
});

after(async () => {
  await Promise.all(services.map(s => s.dispose()));
  for (const s of sockets) s.destroy();
  await new Promise(r => http.close(r));
  mcpHttp.closeAllConnections();
  await new Promise(r => mcpHttp.close(r));
  rmSync(base, { recursive: true, force: true });
});

describe('adapters engine: http driver', () => {
  const notes = (ops: Record<string, unknown>, more: Record<string, unknown> = {}) => ({ notes: { driver: 'http', description: 'Team notes', base_url: '{{vars.base}}', vars: { base: httpUrl }, headers: { Authorization: 'Bearer {{env.NOTES_TOKEN}}' }, ops, ...more } });

  it('GET with query (URL-encoded, empty values dropped), base_url + path, headers, mapping fallbacks', async () => {
    const s = await svc(notes({ search: { path: '/api/search', query: { q: '{{query}}', n: '{{limit}}', empty: '', tag: '{{env.NOPE|default:}}' }, headers: { 'X-Trace': 'sightline-{{repo.slug}}' } } }), { env: { NOTES_TOKEN: 'sekrit' } });
    const r = await s.call('notes', 'search', { query: 'auth & tokens', limit: 5 });
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.items!.length, 2);
    const first = r.items![0]!;
    assert.equal(first.title, 'hit for auth & tokens');
    assert.equal(first.snippet, 'first');
    assert.equal(first.uri, 'https://notes/1');
    assert.equal(first.score, 2);
    const raw = first.raw as Record<string, unknown>;
    assert.deepEqual(raw.query, { q: 'auth & tokens', n: '5' });
    assert.equal(raw.trace, 'sightline-acme-shop');
    assert.equal(raw.auth, 'Bearer sekrit');
  });
  it('POST with a JSON body (numbers stay numbers), absolute op url', async () => {
    const s = await svc(notes({ search: { url: `${httpUrl}/api/echo`, body: { query: '{{query}}', limit: '{{limit}}' } } }), { env: { NOTES_TOKEN: 'x' } });
    const r = await s.call('notes', 'search', { query: 'q1', limit: 3 });
    assert.ok(r.ok, JSON.stringify(r));
    const it = r.items![0]!.raw as Record<string, unknown>;
    assert.equal(it.method, 'POST');
    assert.equal(it.ct, 'application/json');
    assert.deepEqual(JSON.parse(it.body as string), { query: 'q1', limit: 3 });
  });
  it('a string body is sent as is; method overrides', async () => {
    const s = await svc(notes({ brief: { path: '/api/echo', method: 'PUT', body: 'topic={{query}}', text: 'results[0].body' } }), { env: { NOTES_TOKEN: 'x' } });
    const r = await s.call('notes', 'brief', { query: 'deploys' });
    assert.ok(r.ok && r.text === 'topic=deploys', JSON.stringify(r));
  });
  it('read with text (a path into the payload); owns names the adapter of a URI', async () => {
    const s = await svc(notes({ read: { path: '/notes/{{uri|basename}}', text: 'note.markdown', owns: ['notes://'] } }), { env: { NOTES_TOKEN: 'x' } });
    assert.equal(s.ownerOf('notes://1'), 'notes');
    assert.equal(s.ownerOf('other://1'), undefined);
    const r = await s.call('notes', 'read', { uri: 'notes://1' });
    assert.ok(r.ok && r.text === '# Decision 1\nUse Postgres.', JSON.stringify(r));
  });
  it('log lines before JSON (format auto)', async () => {
    const s = await svc(notes({ search: { path: '/logs' } }), { env: { NOTES_TOKEN: 'x' } });
    const r = await s.call('notes', 'search', { query: 'x' });
    assert.ok(r.ok && r.items![0]!.title === 'after logs', JSON.stringify(r));
  });
  it('a hung endpoint: the timeout is honoured (returns within timeout + slack), then the adapter cools down', async () => {
    const s = await svc(notes({ search: { path: '/hang', timeout_ms: 300 } }), { env: { NOTES_TOKEN: 'x' } });
    const t0 = Date.now();
    const r = await s.call('notes', 'search', { query: 'x' });
    const took = Date.now() - t0;
    assert.ok(!r.ok && r.error.code === 'timeout', JSON.stringify(r));
    assert.ok(took >= 290 && took < 300 + CALL_SLACK_MS + 400, `took ${took} ms`);
    const again = await s.call('notes', 'search', { query: 'x' });
    assert.ok(!again.ok && again.error.code === 'cooling_down' && again.ms < 50, JSON.stringify(again));
    const info = s.list().find(a => a.name === 'notes')!;
    assert.ok(info.cooldown && info.cooldown.failures === 1 && info.cooldown.retry_in_ms > 25_000);
  });
  it('malformed answers: invalid JSON, a wrong shape, a bad status, nothing listening — structured errors, never a throw', async () => {
    const s = await svc(notes({ search: { path: '/bad-json', format: 'json' }, code: { path: '/wrong-shape', items: 'results' }, history: { path: '/status500' }, read: { url: 'http://127.0.0.1:9/x' } }), { env: { NOTES_TOKEN: 'x' }, cooldown: { base_ms: 0 } });
    const a = await s.call('notes', 'search', { query: 'x' });
    assert.ok(!a.ok && a.error.code === 'malformed' && /not JSON/.test(a.error.message), JSON.stringify(a));
    const b = await s.call('notes', 'code', { query: 'x' });
    assert.ok(!b.ok && b.error.code === 'malformed' && /no `results`/.test(b.error.message), JSON.stringify(b));
    const c = await s.call('notes', 'history', { target: 'src/a.ts' });
    assert.ok(!c.ok && c.error.code === 'http_status' && c.error.details?.status === 500 && /database down/.test(c.error.message), JSON.stringify(c));
    const d = await s.call('notes', 'read', { uri: 'x' });
    assert.ok(!d.ok && d.error.code === 'unreachable', JSON.stringify(d));
    const e = await s.call('notes', 'llm', { prompt: 'x' });
    assert.ok(!e.ok && e.error.code === 'unknown_op');
    const f = await s.call('nobody', 'search', { query: 'x' });
    assert.ok(!f.ok && f.error.code === 'unknown_adapter');
  });
  it('a template error names the variable and the field (and does not cool down)', async () => {
    const s = await svc(notes({ search: { path: '/api/search', query: { q: '{{vars.missing}}' } } }), { env: { NOTES_TOKEN: 'x' } });
    const r = await s.call('notes', 'search', { query: 'x' });
    assert.ok(!r.ok && r.error.code === 'template_error' && /`vars.missing` in adapters\.notes\.ops\.search\.query\.q/.test(r.error.message), JSON.stringify(r));
    assert.equal(s.list()[0]!.cooldown, undefined);
  });
});

describe('adapters engine: command driver', () => {
  it('argv (no shell), stdin, cwd (default the repo root), env merged over the process env, templates of repo.*', async () => {
    const s = await svc({ peer: { driver: 'command', command: [NODE, peerScript, 'echo', '{{repo.id}}', '{{repo.name}}', '{{repo.branch}}', '{{project.name}}', '$(whoami)'], env: { PEER_VAR: '{{repo.remote}}' }, ops: { search: { stdin: 'q={{query}}', env: { OP_VAR: 'op' } } } } });
    const r = await s.call('peer', 'search', { query: 'a;b' });
    assert.ok(r.ok, JSON.stringify(r));
    const it = r.items![0]!.raw as Record<string, unknown>;
    assert.deepEqual((it.argv as string[]).slice(1), ['shop', 'main', 'proj', '$(whoami)']);
    assert.match((it.argv as string[])[0]!, /^shop-[0-9a-f]{8}$/);
    assert.equal(it.stdin, 'q=a;b');
    assert.equal(it.cwd, root);
    assert.equal(it.env, 'github.com/acme/shop');
    assert.equal(it.op_env, 'op');
  });
  it('output_file: the answer is read from {{output_file}}; the temp file is removed', async () => {
    const s = await svc({ peer: { driver: 'command', ops: { llm: { command: [NODE, peerScript, 'write', '{{output_file}}', '{{prompt}}'], output_file: true, text: 'result' } } } });
    const r = await s.call('peer', 'llm', { prompt: 'P1' });
    assert.ok(r.ok && r.text === 'from file P1', JSON.stringify(r));
  });
  it('grep as a peer: lines format, re: mapping, exit 1 with no output is an empty answer', async () => {
    const s = await svc({ grep: { driver: 'command', command: ['grep', '-rn', '--', '{{query}}', '.'], ops: { search: { format: 'lines', map: { path: 're:^\\./([^:]+):', line: 're:^[^:]+:(\\d+):', snippet: 're:^[^:]+:\\d+:(.*)$' } } } } });
    const r = await s.call('grep', 'search', { query: 'greetUser' });
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(r.items!.map(i => [i.path, i.line, i.title]), [['src/greet.ts', 1, 'src/greet.ts:1']]);
    const none = await s.call('grep', 'search', { query: 'zzz-not-there' });
    assert.ok(none.ok && none.items!.length === 0, JSON.stringify(none));
  });
  it('killed with its whole process tree at the timeout', async () => {
    const pidFile = join(base, 'grandchild.pid');
    const s = await svc({ peer: { driver: 'command', timeout_ms: 800, ops: { search: { command: [NODE, peerScript, 'hang', pidFile] } } } });
    const t0 = Date.now();
    const r = await s.call('peer', 'search', { query: 'x' });
    assert.ok(!r.ok && r.error.code === 'timeout', JSON.stringify(r));
    assert.ok(Date.now() - t0 < 800 + CALL_SLACK_MS + 400);
    const gc = Number(readFileSync(pidFile, 'utf8'));
    for (let i = 0; i < 40 && alive(gc); i++) await sleep(50);
    assert.equal(alive(gc), false, 'the detached grandchild was killed with the tree');
  });
  it('malformed and failing programs are structured failures', async () => {
    const s = await svc({ peer: { driver: 'command', command: [NODE, peerScript], ops: { search: { command: [NODE, peerScript, 'garbage'], format: 'json' }, brief: { command: [NODE, peerScript, 'exit3'] }, read: { command: ['/nonexistent/program-xyz'] } } } }, { cooldown: { base_ms: 0 } });
    const a = await s.call('peer', 'search', { query: 'x' });
    assert.ok(!a.ok && a.error.code === 'malformed', JSON.stringify(a));
    const b = await s.call('peer', 'brief', { query: 'x' });
    assert.ok(!b.ok && b.error.code === 'command_failed' && b.error.details?.exit_code === 3 && /boom: bad flag/.test(b.error.message), JSON.stringify(b));
    const c = await s.call('peer', 'read', { uri: 'x' });
    assert.ok(!c.ok && c.error.code === 'spawn_failed', JSON.stringify(c));
  });
});

describe('adapters engine: mcp driver over stdio', () => {
  const notes = (ops: Record<string, unknown>, more: Record<string, unknown> = {}) => ({ notes: { driver: 'mcp', command: [NODE, mcpScript], ops, ...more } });

  it('arguments bound from the tool schema by role (query → substring_pattern, limit → max_results, project → projectPath)', async () => {
    const s = await svc(notes({ search: { tool: 'search_notes' } }));
    const r = await s.call('notes', 'search', { query: 'caching', limit: 4 });
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.items![0]!.title, 'note about caching');
    assert.equal(r.items![0]!.snippet, 'We chose X');
    assert.deepEqual((r.items![0]!.raw as { args: unknown }).args, { substring_pattern: 'caching', max_results: 4, projectPath: root });
  });
  it('args rendered with their types; store binding; structuredContent is the payload', async () => {
    const s = await svc(notes({ code: { tool: 'typed', args: { n: '{{limit}}', s: 'x{{limit}}', flag: '{{args.flag}}' }, map: { snippet: 'result' } }, store: { tool: 'remember', text: 'echo' }, search: { tool: 'structured', map: { score: 'n' } } }));
    const t = await s.call('notes', 'code', { query: 'q', limit: 2, flag: true });
    assert.ok(t.ok, JSON.stringify(t));
    assert.deepEqual(JSON.parse(t.items![0]!.snippet as string), { n: 'number', s: 'string', flag: 'boolean' });
    // values written as strings in the config take the types the tool's schema declares
    const s2 = await svc(notes({ code: { tool: 'typed', args: { n: '7', s: 'x', flag: 'false' }, map: { snippet: 'result' } } }));
    const t2 = await s2.call('notes', 'code', { query: 'q' });
    assert.ok(t2.ok, JSON.stringify(t2));
    assert.deepEqual(JSON.parse(t2.items![0]!.snippet as string), { n: 'number', s: 'string', flag: 'boolean' });
    await s2.dispose();
    const st = await s.call('notes', 'store', { content: '# Decision', title: 'D1', tags: ['a', 'b'] });
    assert.ok(st.ok, JSON.stringify(st));
    assert.deepEqual(JSON.parse(st.text!), { markdown: '# Decision', subject: 'D1', labels: ['a', 'b'] });
    const sc = await s.call('notes', 'search', { query: 'q' });
    assert.ok(sc.ok && sc.items![0]!.title === 'S q' && sc.items![0]!.score === 1, JSON.stringify(sc));
  });
  it('read (uri → resource) and split over a text answer; a tool error is peer_error', async () => {
    const s = await svc(notes({ read: { tool: 'read_note', owns: ['notes://'] }, brief: { tool: 'digest' }, history: { tool: 'digest', args: { topic: '{{target}}', n: '{{limit}}' }, split: '### ' }, llm: { tool: 'fail' } }), { cooldown: { base_ms: 0 } });
    const r = await s.call('notes', 'read', { uri: 'notes://7' });
    assert.ok(r.ok && r.text === '# Note notes://7\nbody', JSON.stringify(r));
    const b = await s.call('notes', 'brief', { query: 'deploys' });
    assert.ok(b.ok && /### First deploys/.test(b.text!), JSON.stringify(b));
    const h = await s.call('notes', 'history', { target: 'src/a.ts', limit: 2 });
    assert.ok(h.ok, JSON.stringify(h));
    assert.deepEqual(h.items!.map(i => [i.title, i.snippet]), [['First src/a.ts', 'alpha'], ['Second', 'beta (n=2)']]);
    const f = await s.call('notes', 'llm', { prompt: 'x' });
    assert.ok(!f.ok && f.error.code === 'peer_error' && /notes backend unavailable/.test(f.error.message), JSON.stringify(f));
  });
  it('inspect lists tools and schemas; a missing tool is unsupported', async () => {
    const s = await svc(notes({ search: { tool: 'no_such_tool' } }));
    const i = await s.inspect('notes');
    assert.ok(i.ok, JSON.stringify(i));
    const t = i.tools.find(x => x.name === 'search_notes')!;
    assert.deepEqual(Object.keys((t.inputSchema as { properties: object }).properties).sort(), ['max_results', 'projectPath', 'substring_pattern']);
    const r = await s.call('notes', 'search', { query: 'x' });
    assert.ok(!r.ok && r.error.code === 'unsupported' && /search_notes/.test(r.error.message), JSON.stringify(r));
  });
  it('a hung tool: the timeout is honoured; the server is reused afterwards', async () => {
    const s = await svc(notes({ search: { tool: 'hang', args: {}, timeout_ms: 400 }, brief: { tool: 'whoami', args: {} } }), { cooldown: { base_ms: 0 } });
    // started first (a start on a busy machine can take longer than the hung call's timeout)
    assert.ok((await s.call('notes', 'brief', { query: 'x' })).ok);
    const t0 = Date.now();
    const r = await s.call('notes', 'search', { query: 'x' });
    assert.ok(!r.ok && r.error.code === 'timeout', JSON.stringify(r));
    assert.ok(Date.now() - t0 < 400 + CALL_SLACK_MS + 600, `took ${Date.now() - t0}`);
    const w = await s.call('notes', 'brief', { query: 'x' });
    assert.ok(w.ok, JSON.stringify(w));
    assert.equal((s.driver('notes') as McpDriver).starts, 1);
  });
  it('a crashing server is restarted on the next call; dispose stops the child', async () => {
    const s = await svc(notes({ search: { tool: 'crash', args: {} }, brief: { tool: 'whoami', args: {} } }), { cooldown: { base_ms: 0 } });
    const p1 = await s.call('notes', 'brief', { query: 'x' });
    assert.ok(p1.ok, JSON.stringify(p1));
    const c = await s.call('notes', 'search', { query: 'x' });
    assert.ok(!c.ok && c.error.code === 'peer_error', JSON.stringify(c));
    const p2 = await s.call('notes', 'brief', { query: 'x' });
    assert.ok(p2.ok, JSON.stringify(p2));
    assert.notEqual(p2.text, p1.text, 'a new server process');
    assert.equal(alive(Number(p1.text)), false);
    const d = s.driver('notes') as McpDriver;
    assert.equal(d.starts, 2);
    const pid = Number(p2.text);
    assert.ok(alive(pid));
    await s.dispose();
    for (let i = 0; i < 40 && alive(pid); i++) await sleep(50);
    assert.equal(alive(pid), false);
  });
  it('a server that cannot start is spawn_failed, with its stderr', async () => {
    const s = await svc({ broken: { driver: 'mcp', command: [NODE, '-e', 'console.error("no config found"); process.exit(2)'], ops: { search: { tool: 'x' } } } });
    const r = await s.call('broken', 'search', { query: 'x' });
    assert.ok(!r.ok && r.error.code === 'spawn_failed' && /no config found/.test(r.error.message), JSON.stringify(r));
  });
  it('exposedTools: expose list / all with the prefix rule; expose none publishes nothing', async () => {
    const s = await svc({ ...notes({}, { expose: ['notes_explore', 'node', 'missing_tool'] }), cg: { driver: 'mcp', command: [NODE, mcpScript], expose: 'all', prefix: 'cg_' }, quiet: { driver: 'mcp', command: [NODE, mcpScript] } });
    const { tools, notices } = await s.exposedTools();
    const names = tools.filter(t => t.adapter === 'notes').map(t => t.name);
    assert.deepEqual(names, ['notes_explore', 'notes_node']);
    assert.ok(notices.some(n => /no tool `missing_tool`/.test(n)));
    const cg = tools.filter(t => t.adapter === 'cg');
    assert.ok(cg.length >= 10 && cg.every(t => t.name.startsWith('cg_')) && cg.some(t => t.name === 'cg_search_notes' && t.tool === 'search_notes'));
    assert.equal(tools.filter(t => t.adapter === 'quiet').length, 0);
  });
  it('a server slower to start than one call (a loaded machine) still publishes its tools: its start has a window of its own', async () => {
    const slow = join(dirname(mcpScript), 'mcp-slow-start.cjs');
    writeFileSync(slow, `const { server } = require(${JSON.stringify(mcpScript)});\nconst { StdioServerTransport } = require(${JSON.stringify(require.resolve('@modelcontextprotocol/sdk/server/stdio.js'))});\nsetTimeout(() => server.connect(new StdioServerTransport()), 1500);\n`);
    const s = await svc({ slow: { driver: 'mcp', command: [NODE, slow], expose: ['whoami'], timeout_ms: 500 } });
    const { tools, notices } = await s.exposedTools();
    assert.deepEqual(tools.map(t => t.name), ['slow_whoami'], notices.join('\n'));
    // once running, a call is bounded by its own timeout again
    const who = await s.callExposed('slow_whoami', {});
    assert.ok(who.ok, JSON.stringify(who));
  });
});

describe('adapters engine: mcp driver over Streamable HTTP', () => {
  it('headers sent; arguments bound (query → question, limit → top_k); matches found by default', async () => {
    const s = await svc({ tickets: { driver: 'mcp', url: mcpHttpUrl, headers: { Authorization: 'Bearer {{env.TICKETS_TOKEN}}' }, ops: { search: { tool: 'find_tickets' } } } }, { env: { TICKETS_TOKEN: 't0k' } });
    const r = await s.call('tickets', 'search', { query: 'login fails', limit: 3 });
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual([r.items![0]!.title, r.items![0]!.uri, (r.items![0]!.raw as { top_k: number }).top_k], ['TICKET-1 login fails', 'https://t/1', 3]);
    const bad = await svc({ tickets: { driver: 'mcp', url: mcpHttpUrl, headers: { Authorization: 'Bearer wrong' }, ops: { search: { tool: 'find_tickets' } } } });
    const f = await bad.call('tickets', 'search', { query: 'x' });
    assert.ok(!f.ok && f.error.code === 'unreachable', JSON.stringify(f));
  });
});

describe('adapters engine: Sightline\'s own MCP server as a peer', () => {
  let ws: string; let db: string;
  before(function () {
    this.timeout(120_000);
    requireBuilt();
    ws = join(base, 'sl'); db = join(base, 'sl.sqlite');
    mkdirSync(ws);
    writeFileSync(join(ws, 'billing.ts'), 'export function computeInvoiceTotal(lines: number[]) { return lines.reduce((a, b) => a + b, 0); }\n');
    const r = spawnSync(NODE, [CLI_JS, 'index', ws, '--db', db, '--no-compiler-edges'], { encoding: 'utf8', timeout: 100_000 });
    assert.equal(r.status, 0, r.stderr);
  });
  it('search_code bound by its schema (query, limit, repo as the project: the adapter\'s repository root)', async function () {
    this.timeout(60_000);
    const s = await svc({ sl: { driver: 'mcp', command: [NODE, MCP_JS, '--workspace', ws, '--db', db], timeout_ms: 30_000, ops: { code: { tool: 'search_code', items: 'files' } } } }, { roots: [ws] });
    const i = await s.inspect('sl');
    assert.ok(i.ok && i.tools.some(t => t.name === 'search_code'), JSON.stringify(i).slice(0, 300));
    const r = await s.call('sl', 'code', { query: 'computeInvoiceTotal', limit: 3 });
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.items![0]!.path, 'billing.ts');
    assert.equal(r.items![0]!.title, 'billing.ts');
    assert.ok(typeof r.items![0]!.score === 'number');
  });
});

describe('adapters engine: service', () => {
  it('list: states and reasons (active, disabled, when failed), descriptions, ops, tools, declared_in', async () => {
    const s = await svc({
      a: { driver: 'http', description: 'Notes', base_url: httpUrl, ops: { search: { path: '/api/search' } }, tools: [{ name: 'a_recent', description: 'Recent', op: 'search' }] },
      b: { driver: 'http', enabled: false, base_url: httpUrl, ops: { search: { path: '/x' } } },
      c: { driver: 'mcp', command: ['codegraph-not-installed', 'serve'], when: { command: 'codegraph-not-installed' }, ops: { code: { tool: 'x' } } },
    });
    const l = s.list();
    const by = (n: string) => l.find(x => x.name === n)!;
    assert.deepEqual([by('a').state, by('a').description, by('a').ops, by('a').tools, by('a').declared_in[0]!.kind], ['active', 'Notes', ['search'], ['a_recent'], 'settings']);
    assert.deepEqual([by('b').state, by('b').reason], ['inactive', 'disabled (enabled = false)']);
    assert.deepEqual([by('c').state, by('c').reason], ['inactive', 'inactive: command `codegraph-not-installed` not on PATH']);
  });
  it('when: inactive with the reason, never called', async () => {
    const marker = join(base, 'called.marker');
    const s = await svc({ w: { driver: 'command', when: { env: 'NOTES_TOKEN', repo: 'github.com/acme/(shop|billing)' }, command: [NODE, '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`], ops: { brief: {} } } }, { env: { PATH: process.env.PATH } });
    const r = await s.call('w', 'brief', { query: 'x' });
    assert.ok(!r.ok && r.error.code === 'inactive' && /`NOTES_TOKEN` is not set/.test(r.error.message), JSON.stringify(r));
    assert.equal(existsSync(marker), false);
    const ok = await svc({ w: { driver: 'command', when: { env: 'NOTES_TOKEN', repo: 'github.com/acme/(shop|billing)', file: 'README.md', exists: '{{repo.root}}/src/*.ts' }, command: [NODE, '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`], ops: { brief: {} } } }, { env: { PATH: process.env.PATH, NOTES_TOKEN: 't' } });
    assert.equal(ok.list()[0]!.state, 'active');
    const r2 = await ok.call('w', 'brief', { query: 'x' });
    assert.ok(r2.ok, JSON.stringify(r2));
    assert.equal(existsSync(marker), true);
  });
  it('list: a config error names file, line and field; the other adapters still load', async () => {
    const user = join(base, 'user-config.toml');
    writeFileSync(user, `[adapters.good]\ndriver = "http"\nbase_url = "${httpUrl}"\n[adapters.good.ops.search]\npath = "/api/search"\n\n[adapters.typo]\ndriver = "http"\nbase_url = "${httpUrl}"\nweigth = 0.3\n`);
    const s = await svc({}, { userConfigPath: user });
    const t = s.list().find(a => a.name === 'typo')!;
    assert.equal(t.state, 'error');
    assert.equal(t.reason, `${user}:10: adapters.typo: unknown field \`weigth\``);
    assert.equal(s.list().find(a => a.name === 'good')!.state, 'active');
    const r = await s.call('typo', 'search', { query: 'x' });
    assert.ok(!r.ok && r.error.code === 'config_error' && r.error.message === t.reason);
  });
  it('search: fans out in parallel, each bounded by its own timeout; weights, merged order, notices, completeness', async () => {
    const s = await svc({
      fast: { driver: 'http', base_url: httpUrl, weight: 0.6, ops: { search: { path: '/api/search', query: { q: '{{query}}' } } } },
      tickets: { driver: 'mcp', url: mcpHttpUrl, headers: { Authorization: 'Bearer t0k' }, ops: { search: { tool: 'find_tickets' } } },
      slow: { driver: 'http', base_url: httpUrl, ops: { search: { path: '/hang', timeout_ms: 500 } } },
      off: { driver: 'http', base_url: httpUrl, enabled: false, ops: { search: { path: '/api/search' } } },
      nosearch: { driver: 'http', base_url: httpUrl, ops: { read: { path: '/notes/1' } } },
    });
    const t0 = Date.now();
    const a = await s.search('cache', 5);
    const took = Date.now() - t0;
    assert.ok(took < 500 + CALL_SLACK_MS + 600, `took ${took}`);
    assert.equal(a.complete, false);
    assert.deepEqual(a.results.map(r => [r.adapter, r.ok]).sort(), [['fast', true], ['slow', false], ['tickets', true]]);
    assert.equal(a.merged[0]!.adapter, 'tickets'); // 0.9 / 1 > 0.6 / 1
    assert.equal(a.merged[0]!.weight, 0.9);
    assert.deepEqual(a.merged.map(i => i.adapter), ['tickets', 'fast', 'fast']);
    assert.ok(a.notices.some(n => /^slow: timeout/.test(n)));
    assert.ok(a.notices.some(n => /^off: disabled/.test(n)));
    const asked = hangRequests;
    assert.ok(asked >= 1, 'the first call asked the hung peer');
    const b = await s.search('cache', 5);
    assert.ok(b.notices.some(n => /^slow: cooling_down: cooling down for \d+ s/.test(n)), b.notices.join('\n'));
    assert.equal(hangRequests, asked, 'a cooling adapter is skipped at once: the hung peer is not asked again');
  });
  it('cool-down doubles with each failure in a row, is capped, and a success ends it', async () => {
    let up = false;
    const srv = createServer((req, res) => { if (up) { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"results":[{"title":"ok"}]}'); } else { res.writeHead(503); res.end('down'); } });
    await new Promise<void>(r => srv.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
      const s = await svc({ flaky: { driver: 'http', base_url: url, ops: { search: { path: '/' } } } }, { cooldown: { base_ms: 100, max_ms: 300 } });
      const waits: number[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await s.call('flaky', 'search', { query: 'x' });
        assert.ok(!r.ok && r.error.code === 'http_status');
        const cd = s.list()[0]!.cooldown!;
        waits.push(cd.retry_in_ms);
        const cooling = await s.call('flaky', 'search', { query: 'x' });
        assert.ok(!cooling.ok && cooling.error.code === 'cooling_down');
        await sleep(cd.retry_in_ms + 20);
      }
      assert.ok(waits[0]! <= 100 && waits[0]! > 50 && waits[1]! > 150 && waits[1]! <= 200 && waits[2]! > 250 && waits[2]! <= 300, waits.join(','));
      up = true;
      const ok = await s.call('flaky', 'search', { query: 'x' });
      assert.ok(ok.ok);
      assert.equal(s.list()[0]!.cooldown, undefined);
    } finally { srv.close(); }
  });
  it('declaredTools: params → JSON schema (`!` required), op name or inline op, active flag', async () => {
    const s = await svc({ notes: { driver: 'http', base_url: httpUrl, ops: { search: { path: '/api/search' } }, tools: [
      { name: 'notes_recent', description: 'The ten most recent team notes', params: { tag: 'string', limit: 'integer', q: 'string!' }, op: { method: 'GET', path: '/recent', query: { tag: '{{tag}}', n: '{{limit}}' }, text: 'items' } },
      { name: 'notes_find', description: 'Find notes', params: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }, op: 'search' },
    ] } });
    const t = s.declaredTools();
    assert.deepEqual(t.map(x => [x.name, x.adapter, x.active]), [['notes_recent', 'notes', true], ['notes_find', 'notes', true]]);
    assert.deepEqual(t[0]!.input_schema, { type: 'object', properties: { tag: { type: 'string' }, limit: { type: 'integer' }, q: { type: 'string' } }, required: ['q'] });
    assert.deepEqual((t[0]!.op as { path: string }).path, '/recent');
    assert.equal(t[1]!.op, 'search');
    assert.deepEqual(t[1]!.input_schema.required, ['q']);
  });
});

describe('adapters engine: trust', () => {
  const repoCfg = () => `[adapters.team]\ndriver = "command"\ndescription = "Team runbooks"\ncommand = ["${NODE.replace(/\\/g, '\\\\')}", "${peerScript.replace(/\\/g, '\\\\')}", "echo"]\n[adapters.team.ops.search]\nstdin = "{{query}}"\n`;
  beforeEach(() => {
    mkdirSync(join(root, '.sightline'), { recursive: true });
    writeFileSync(join(root, '.sightline', 'config.toml'), repoCfg());
    rmSync(trustFile, { force: true });
  });
  afterEach(() => rmSync(join(root, '.sightline'), { recursive: true, force: true }));

  it('repository adapters never run until trusted; trusting pins a sha256 in the durable document', async () => {
    const s = await svc({});
    const info = s.list().find(a => a.name === 'team')!;
    assert.equal(info.state, 'untrusted');
    assert.match(info.trust_hint!, /sightline adapters trust/);
    const r = await s.call('team', 'search', { query: 'x' });
    assert.ok(!r.ok && r.error.code === 'untrusted');
    const a = await s.search('x');
    assert.ok(a.notices.some(n => /^team: untrusted/.test(n)) && !a.complete);
    const t = s.trust();
    assert.equal(t.trusted.length, 1);
    assert.match(t.trusted[0]!.sha256, /^[0-9a-f]{64}$/);
    const doc = JSON.parse(readFileSync(trustFile, 'utf8')) as TrustDocument;
    assert.equal(doc.repos[root]!.sha256, t.trusted[0]!.sha256);
    assert.deepEqual(doc.repos[root]!.adapters, ['team']);
    assert.equal(s.list().find(x => x.name === 'team')!.state, 'active');
    const ok = await s.call('team', 'search', { query: 'hello' });
    assert.ok(ok.ok && (ok.items![0]!.raw as { stdin: string }).stdin === 'hello', JSON.stringify(ok));
    // another service over the same durable document sees the pin
    assert.equal((await svc({})).list().find(x => x.name === 'team')!.state, 'active');
  });
  it('any change to the tables makes them untrusted again; other tables do not count', async () => {
    const s = await svc({});
    s.trust();
    writeFileSync(join(root, '.sightline', 'config.toml'), `[other]\nx = 1\n\n${repoCfg()}`);
    await s.reload();
    assert.equal(s.list().find(x => x.name === 'team')!.state, 'active');
    writeFileSync(join(root, '.sightline', 'config.toml'), repoCfg().replace('Team runbooks', 'Team runbooks!'));
    await s.reload();
    const info = s.list().find(x => x.name === 'team')!;
    assert.equal(info.state, 'untrusted');
    assert.match(info.reason!, /changed since its adapters were trusted/);
    s.trust();
    assert.equal(s.list().find(x => x.name === 'team')!.state, 'active');
    assert.equal(s.untrust(root), true);
    assert.equal(s.list().find(x => x.name === 'team')!.state, 'untrusted');
  });
  it('a repository overriding a user adapter needs trust; user and settings adapters are trusted', async () => {
    writeFileSync(join(root, '.sightline', 'config.toml'), `[adapters.mine]\nbase_url = "http://127.0.0.1:9"\n`);
    const s = await svc({ mine: { driver: 'http', base_url: httpUrl, ops: { search: { path: '/api/search' } } }, other: { driver: 'http', base_url: httpUrl, ops: { search: { path: '/api/search' } } } });
    assert.equal(s.list().find(x => x.name === 'mine')!.state, 'untrusted');
    assert.equal(s.list().find(x => x.name === 'other')!.state, 'active');
  });
  it('an untrusted workspace makes every repository-declared adapter inactive, pinned or not', async () => {
    (await svc({})).trust();
    const s = await svc({ other: { driver: 'http', base_url: httpUrl, ops: { search: { path: '/api/search' } } } }, { workspaceTrusted: false });
    const team = s.list().find(x => x.name === 'team')!;
    assert.deepEqual([team.state, /workspace is not trusted/.test(team.reason!)], ['inactive', true]);
    assert.equal(s.list().find(x => x.name === 'other')!.state, 'active');
    const r = await s.call('team', 'search', { query: 'x' });
    assert.ok(!r.ok && r.error.code === 'inactive');
  });
});
