/**
 * End-to-end tests of the MCP surface: the built server (dist/mcp.js) runs as a real child process and
 * is driven by the official SDK client, over stdio and over Streamable HTTP (needs `npm run build`).
 */
import { strict as assert } from 'node:assert';
import { readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { tempWorkspace, SAMPLE_FILES, type TempWorkspace } from './helpers/workspace';
import { requireBuilt, stdioTransport, startHttpServer, rawPost, rawRequest, errorOf, textOf, INITIALIZE_REQUEST, type HttpServerProcess } from './helpers/mcp';
import { TOOL_NAMES, TOOLS } from '../src/core/tools/registry';
import { searchCodeOutput, searchOutput } from '../src/core/tools/search_code';
import { fileLanguageFor } from '../src/core/languages';
import { sp } from './helpers/nodes';

/** Fixture files Sightline indexes: its sources, and README.md as a doc. */
const SOURCE_FILES = Object.keys(SAMPLE_FILES);

function newClient(): Client {
  return new Client({ name: 'sightline-test', version: '0.0.0' });
}

/** Closes the client and makes sure the server process is gone (it must not outlive the suite). */
async function closeStdio(client: Client | undefined, transport: { pid: number | null } | undefined): Promise<void> {
  const pid = transport?.pid;
  await client?.close().catch(() => undefined);
  if (pid) { try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ } }
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return await client.callTool({ name, arguments: args }) as CallToolResult;
}

function structured<T = Record<string, unknown>>(r: CallToolResult): T {
  assert.notEqual(r.isError, true, `tool failed: ${JSON.stringify(r.content)}`);
  assert.ok(r.structuredContent, 'a successful result carries structuredContent');
  return r.structuredContent as T;
}

interface Hit { chunk_id: string; path: string; symbol_path: string | null; start_line: number; end_line: number }
interface SearchResult { query: string; results: Hit[]; total: number }

describe('MCP server over stdio (dist/mcp.js)', function () {
  this.timeout(60000);
  let ws: TempWorkspace;
  let client: Client;
  let transport: StdioClientTransport;
  let tools: Tool[] = [];

  before(async () => {
    requireBuilt();
    ws = tempWorkspace(SAMPLE_FILES);
    ({ transport } = stdioTransport(['--workspace', ws.root, '--db', ws.db]));
    client = newClient();
    await client.connect(transport);
  });

  after(async () => {
    await closeStdio(client, transport);
    ws?.remove();
  });

  it('identifies itself and offers tools', () => {
    assert.equal(client.getServerVersion()?.name, 'sightline');
    assert.ok(client.getServerCapabilities()?.tools, 'tools capability advertised');
  });

  it('lists exactly the registry tools, with schemas and annotations taken from the registry', async () => {
    tools = (await client.listTools()).tools;
    assert.deepEqual(tools.map(t => t.name), [...TOOL_NAMES]);
    for (const t of tools) {
      const def = TOOLS[t.name as keyof typeof TOOLS];
      assert.equal(t.inputSchema.type, 'object', `${t.name} inputSchema`);
      assert.ok(t.outputSchema, `${t.name} has an outputSchema`);
      assert.equal(t.outputSchema.type, 'object', `${t.name} outputSchema`);
      assert.ok(t.description && t.description.length > 20, `${t.name} has a description`);
      assert.ok(t.annotations, `${t.name} has annotations`);
      assert.equal(t.annotations.readOnlyHint, def.annotations.read_only, `${t.name} readOnlyHint`);
      assert.equal(t.annotations.destructiveHint, def.annotations.destructive, `${t.name} destructiveHint`);
      assert.equal(t.annotations.idempotentHint, def.annotations.idempotent, `${t.name} idempotentHint`);
      assert.equal(t.annotations.openWorldHint, def.annotations.open_world, `${t.name} openWorldHint`);
      assert.deepEqual(Object.keys(t.inputSchema.properties ?? {}).sort(), Object.keys(def.input.shape).sort(), `${t.name} input properties`);
    }
    const search = tools.find(t => t.name === 'search_code')!;
    assert.ok((search.inputSchema.required ?? []).includes('query'), 'search_code requires query');
    assert.equal(tools.find(t => t.name === 'index_repo')!.annotations!.readOnlyHint, false);
  });

  it('index_repo parses every supported source file of the fixture', async () => {
    const r = await call(client, 'index_repo');
    const data = structured<{ totals: { files_parsed: number; files_seen: number; files_skipped: number }; repos: { root: string }[]; db_path: string }>(r);
    assert.equal(data.totals.files_parsed, SOURCE_FILES.length);
    assert.equal(data.totals.files_seen, SOURCE_FILES.length);
    assert.equal(data.totals.files_skipped, 0);
    assert.deepEqual(data.repos.map(x => x.root), [ws.root]);
    assert.equal(data.db_path, ws.db);
    assert.match(textOf(r), /index_repo/);
  });

  let userHit: Hit | undefined;

  it('search_code "user name" finds UserService.getUserName in src/users.ts', async () => {
    const r = await call(client, 'search_code', { query: 'user name', group: 'chunk' });
    const data = structured<SearchResult>(r);
    // structuredContent conforms to the tool's output schema (the SDK client also validates it)
    assert.doesNotThrow(() => searchCodeOutput.strict().parse(data));
    assert.equal(data.query, 'user name');
    userHit = data.results.find(h => h.path === 'src/users.ts' && h.symbol_path === 'UserService.getUserName');
    assert.ok(userHit, `expected UserService.getUserName in ${JSON.stringify(data.results.map(h => `${h.path}:${h.symbol_path}`))}`);
    assert.equal(data.results[0]!.path, 'src/users.ts', 'the users file ranks first');
    const md = textOf(r);
    assert.match(md, /\*\*search_code\*\*/, 'Markdown header');
    assert.ok(md.includes('src/users.ts'), 'Markdown mentions the path');
    assert.ok(md.includes(userHit.chunk_id), 'Markdown mentions the chunk id');
  });

  it('vector_search finds the payment retrier for its own wording', async () => {
    const r = await call(client, 'vector_search', { query: 'retry failed payment', limit: 3 });
    const data = structured<SearchResult & { limit: number }>(r);
    assert.doesNotThrow(() => searchOutput.strict().parse(data));
    assert.ok(data.results.length > 0 && data.results.length <= 3);
    assert.equal(data.limit, 3);
    assert.equal(data.results[0]!.path, 'src/payments/retry.py');
    assert.match(textOf(r), /vector_search/);
  });

  it('get_chunk returns the real file lines of a search hit', async () => {
    assert.ok(userHit, 'needs the search_code hit');
    const r = await call(client, 'get_chunk', { chunk_id: userHit.chunk_id });
    const data = structured<{ chunk_id: string; path: string; start_line: number; end_line: number; text: string; stale: boolean }>(r);
    assert.equal(data.chunk_id, userHit.chunk_id);
    assert.equal(data.path, 'src/users.ts');
    assert.equal(data.start_line, userHit.start_line);
    assert.equal(data.end_line, userHit.end_line);
    const onDisk = readFileSync(join(ws.root, 'src/users.ts'), 'utf8').split('\n').slice(data.start_line - 1, data.end_line).join('\n');
    assert.equal(data.text, onDisk);
    assert.match(data.text, /getUserName\(id: string\)/);
    assert.equal(data.stale, false);
    const md = textOf(r);
    data.text.split('\n').forEach((line, i) => assert.ok(md.includes(`${data.start_line + i}  ${line}`.replace(/^\s+/, '')), `Markdown carries line ${data.start_line + i}, numbered`));
  });

  it('index_status counts the indexed files', async () => {
    const r = await call(client, 'index_status');
    const data = structured<{ file_count: number; languages: { language: string; files: number }[]; db_path: string }>(r);
    assert.equal(data.file_count, SOURCE_FILES.length);
    assert.equal(data.db_path, ws.db);
    const expected = new Map<string, number>();
    const languageOf = (p: string) => fileLanguageFor(p, null, true);
    for (const p of SOURCE_FILES) expected.set(languageOf(p), (expected.get(languageOf(p)) ?? 0) + 1);
    assert.deepEqual(new Map(data.languages.map(l => [l.language, l.files])), expected);
  });

  it('index_repo sends progress notifications when the client asks for them', async () => {
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const r = await client.callTool({ name: 'index_repo', arguments: { force: true } }, undefined, { onprogress: p => { progress.push(p); } }) as CallToolResult;
    const data = structured<{ totals: { files_parsed: number }; repos: { forced: boolean }[] }>(r);
    assert.equal(data.totals.files_parsed, SOURCE_FILES.length, 'force re-parses everything');
    assert.equal(data.repos[0]!.forced, true);
    assert.ok(progress.length >= 1, 'at least one progress notification');
    assert.ok(progress.every(p => typeof p.message === 'string' && p.message.length > 0));
  });

  it('concurrent index_repo calls run one after the other, both complete', async () => {
    const [a, b] = await Promise.all([call(client, 'index_repo', { force: true }), call(client, 'index_repo', { force: true })]);
    const outcomes = [a, b].map(r => r.isError ? errorOf(r).code : 'ok').sort();
    assert.deepEqual(outcomes, ['ok', 'ok']);
    for (const r of [a, b]) assert.equal(structured<{ totals: { files_parsed: number } }>(r).totals.files_parsed, SOURCE_FILES.length, 'each forced run re-parsed everything');
    const after = structured<{ totals: { files_parsed: number } }>(await call(client, 'index_repo'));
    assert.equal(after.totals.files_parsed, 0, 'the lock was released and the index is complete');
  });

  describe('bad calls return isError with {error:{code,message}} and never crash the server', () => {
    it('missing required query → invalid_arguments', async () => {
      const e = errorOf(await call(client, 'search_code', {}));
      assert.equal(e.code, 'invalid_arguments');
      assert.ok(e.message.length > 0);
      assert.match(e.message, /query/);
    });

    it('unknown parameter → invalid_arguments', async () => {
      const e = errorOf(await call(client, 'search_code', { query: 'user', colour: 'blue' }));
      assert.equal(e.code, 'invalid_arguments');
      assert.match(e.message, /colour/);
    });

    it('wrong type (limit: "ten") → invalid_arguments', async () => {
      const e = errorOf(await call(client, 'search_code', { query: 'user', limit: 'ten' }));
      assert.equal(e.code, 'invalid_arguments');
      assert.match(e.message, /limit/);
    });

    it('limit out of range → invalid_arguments', async () => {
      const e = errorOf(await call(client, 'search_code', { query: 'user', limit: 0 }));
      assert.equal(e.code, 'invalid_arguments');
    });

    it('repo outside the workspace → path_outside_workspace', async () => {
      const e = errorOf(await call(client, 'search_code', { query: 'user', repo: '/etc' }));
      assert.equal(e.code, 'path_outside_workspace');
      assert.match(e.message, /\/etc/);
      const e2 = errorOf(await call(client, 'index_repo', { repo: '../..' }));
      assert.equal(e2.code, 'path_outside_workspace');
    });

    it('get_chunk with an unknown id → not_found', async () => {
      const e = errorOf(await call(client, 'get_chunk', { chunk_id: 'chunk:nope:nothing.ts:x' }));
      assert.equal(e.code, 'not_found');
    });

    it('an error is sent once: one JSON text block, no Markdown copy', async () => {
      const r = await call(client, 'find_references', { symbol: 'no_such_symbol_anywhere' });
      assert.equal(r.isError, true);
      assert.equal((r.content as unknown[]).length, 1, JSON.stringify(r.content));
      assert.equal(errorOf(r).code, 'not_found');
    });

    it('unknown tool → isError', async () => {
      const r = await call(client, 'no_such_tool', {});
      assert.equal(r.isError, true);
      assert.match(textOf(r), /no_such_tool/);
    });

    it('arguments that are not an object (null, a number, an array) → JSON-RPC -32602 with the one error shape', async () => {
      for (const args of [null, 42, [1, 2], 'query']) {
        const e = await client.request({ method: 'tools/call', params: { name: 'search_code', arguments: args as never } }, z.object({}).passthrough())
          .then(() => null, (err: { code?: number; message?: string; data?: { error?: { code?: string; message?: string } } }) => err);
        assert.ok(e, `arguments ${JSON.stringify(args)} were accepted`);
        assert.equal(e.code, -32602, `${JSON.stringify(args)}: ${e.message}`);
        assert.equal(e.data?.error?.code, 'invalid_arguments');
        assert.match(e.data?.error?.message ?? '', /arguments/);
        assert.ok((e.message ?? '').length < 400, 'no raw schema dump');
      }
    });

    it('the server still answers afterwards', async () => {
      const data = structured<SearchResult>(await call(client, 'search_code', { query: 'getUserName', group: 'chunk' }));
      assert.equal(data.results[0]!.path, 'src/users.ts');
      assert.equal(transport.pid !== null && isAlive(transport.pid), true, 'server process alive');
    });
  });

  describe('the change-loop tools', () => {
    const DIFF = 'diff --git a/src/users.ts b/src/users.ts\n--- a/src/users.ts\n+++ b/src/users.ts\n@@ -9 +9 @@\n-    return this.lookup(id).name;\n+    return this.lookup(id).name.trim();\n';
    it('history of a file outside git says why there is no history', async () => {
      const r = await call(client, 'history', { path: 'src/users.ts' });
      const data = structured<{ history: { available: boolean; reason: string }; commits: unknown[] }>(r);
      assert.equal(data.history.available, false);
      assert.equal(data.history.reason, 'not a git repository');
      assert.deepEqual(data.commits, []);
    });
    it('post_change_impact from a diff names the changed method and its dependents', async () => {
      const data = structured<{ changed_symbols: string[]; changed_new_line_ranges: Record<string, unknown>; report: { risk_level: string; evidence: string[] } }>(await call(client, 'post_change_impact', { diff: DIFF }));
      assert.ok(data.changed_symbols.some(s => s.endsWith(':src/users.ts:UserService.getUserName')), JSON.stringify(data.changed_symbols));
      assert.deepEqual(data.changed_new_line_ranges['src/users.ts'], [{ start: 9, end: 9 }]);
      assert.ok(data.report.evidence.some(e => /no co-change evidence: not a git repository/.test(e)));
    });
    it('context_for_change from a diff lists the change and its neighbourhood', async () => {
      const data = structured<{ changed: { id: string }[]; neighbourhood: { relation: string }[] }>(await call(client, 'context_for_change', { diff: DIFF }));
      assert.ok(data.changed.some(c => c.id.endsWith(':UserService.getUserName')));
      assert.ok(data.neighbourhood.some(n => n.relation === 'callee' || n.relation === 'caller'), JSON.stringify(data.neighbourhood));
    });
    it('memory_update edits and re-anchors a memory; impact then carries it', async () => {
      // scope repo: the memory lives in the fixture (the server process has its own data folder)
      const added = structured<{ memory: { id: string } }>(await call(client, 'memory_add', { text: 'lookup never returns undefined', anchor_kind: 'symbol', path: 'src/users.ts', symbol: 'UserService.lookup', scope: 'repo' }));
      const up = structured<{ updated: boolean; reanchored: boolean; memory: { text: string; status: string } }>(await call(client, 'memory_update', { id: added.memory.id, text: 'lookup throws for unknown ids', reanchor: true }));
      assert.deepEqual([up.updated, up.reanchored, up.memory.text, up.memory.status], [true, true, 'lookup throws for unknown ids', 'current']);
      const bad = await call(client, 'memory_update', { id: added.memory.id, anchor_kind: 'symbol', path: 'src/users.ts', symbol: 'nope' });
      assert.equal(bad.isError, true);
      assert.equal(errorOf(bad).code, 'not_found');
      const imp = structured<{ memories: { id: string; text: string }[]; total_memories: number }>(await call(client, 'impact', { symbol: 'UserService.lookup', path: 'src/users.ts' }));
      assert.deepEqual(imp.memories.map(m => [m.id, m.text]), [[added.memory.id, 'lookup throws for unknown ids']]);
      structured(await call(client, 'memory_delete', { id: added.memory.id }));
    });
    it('pre_change_context stays within its token budget', async () => {
      const data = structured<{ total_estimated_tokens: number; token_budget: number; suggested_chunk_ids: string[] }>(await call(client, 'pre_change_context', { query: 'user name lookup', token_budget: 500 }));
      assert.ok(data.total_estimated_tokens <= 500);
      assert.ok(data.suggested_chunk_ids.length > 0);
    });
  });
});

function isAlive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

describe('MCP server over Streamable HTTP (dist/mcp.js --http)', function () {
  this.timeout(60000);
  let ws: TempWorkspace;
  let server: HttpServerProcess;
  const clients: Client[] = [];

  async function connect(headers?: Record<string, string>): Promise<Client> {
    const c = newClient();
    await c.connect(new StreamableHTTPClientTransport(new URL(server.url), headers ? { requestInit: { headers } } : undefined));
    clients.push(c);
    return c;
  }

  before(async () => {
    requireBuilt();
    ws = tempWorkspace(SAMPLE_FILES);
    server = await startHttpServer(['--workspace', ws.root, '--db', ws.db]);
  });

  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await server?.stop();
    ws?.remove();
  });

  it('binds loopback and reports the real port', () => {
    const u = new URL(server.url);
    assert.equal(u.hostname, '127.0.0.1');
    assert.ok(Number(u.port) > 0);
    assert.equal(u.pathname, '/mcp');
  });

  it('without --token it warns that any local process can call it', () => {
    assert.match(server.stderr(), /no --token .*any local process can call this server/);
  });

  it('lists the tools and serves index_repo then search_code', async () => {
    const c = await connect();
    const { tools } = await c.listTools();
    assert.deepEqual(tools.map(t => t.name), [...TOOL_NAMES]);
    const idx = structured<{ totals: { files_parsed: number } }>(await call(c, 'index_repo'));
    assert.equal(idx.totals.files_parsed, SOURCE_FILES.length);
    const s = await call(c, 'search_code', { query: 'user name', group: 'chunk' });
    const data = structured<SearchResult>(s);
    assert.ok(data.results.some(h => h.path === 'src/users.ts' && h.symbol_path === 'UserService.getUserName'));
    assert.ok(textOf(s).includes('src/users.ts'));
  });

  it('a second session shares the same index', async () => {
    const c = await connect();
    const data = structured<SearchResult>(await call(c, 'search_code', { query: 'retry payment', group: 'chunk' }));
    assert.equal(data.results[0]!.path, 'src/payments/retry.py');
    const e = errorOf(await call(c, 'get_chunk', { chunk_id: 'nope' }));
    assert.equal(e.code, 'not_found');
  });

  it('accepts a raw initialize with a loopback Host (control for the next test)', async () => {
    const res = await rawPost(server.url, INITIALIZE_REQUEST, { host: new URL(server.url).host });
    assert.equal(res.status, 200, res.body);
    assert.ok(res.headers['mcp-session-id'], 'a session id is issued');
  });

  it('rejects a foreign Host header with 403 (DNS rebinding protection)', async () => {
    const res = await rawPost(server.url, INITIALIZE_REQUEST, { host: 'evil.example.com' });
    assert.equal(res.status, 403, res.body);
    const body = JSON.parse(res.body) as { error?: { message: string } };
    assert.match(body.error?.message ?? '', /evil\.example\.com/);
    assert.equal(res.headers['mcp-session-id'], undefined);
  });

  it('rejects a foreign Origin with 403 even when Host is loopback', async () => {
    const res = await rawPost(server.url, INITIALIZE_REQUEST, { host: new URL(server.url).host, origin: 'http://evil.example.com' });
    assert.equal(res.status, 403, res.body);
  });

  it('rejects requests without a session that are not initialize', async () => {
    const res = await rawPost(server.url, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    assert.equal(res.status, 400, res.body);
    const unknown = await rawPost(server.url, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, { 'mcp-session-id': 'not-a-session' });
    assert.equal(unknown.status, 404, unknown.body);
  });

  it('answers malformed JSON with a JSON-RPC parse error (400)', async () => {
    const res = await rawRequest('POST', server.url, '{not json');
    assert.equal(res.status, 400);
    assert.equal((JSON.parse(res.body) as { error: { code: number } }).error.code, -32700);
  });

  it('DELETE ends a session; the session id is then unknown (404)', async () => {
    const init = await rawPost(server.url, INITIALIZE_REQUEST);
    assert.equal(init.status, 200, init.body);
    const sid = String(init.headers['mcp-session-id']);
    const hdrs = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
    const del = await rawRequest('DELETE', server.url, '', hdrs);
    assert.equal(del.status, 200, del.body);
    const after = await rawPost(server.url, { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }, hdrs);
    assert.equal(after.status, 404, after.body);
  });

  it('serves only /mcp', async () => {
    const res = await rawPost(server.url.replace(/\/mcp$/, '/other'), INITIALIZE_REQUEST);
    assert.equal(res.status, 404);
  });
});

describe('MCP server over Streamable HTTP with --token', function () {
  this.timeout(60000);
  let ws: TempWorkspace;
  let server: HttpServerProcess;
  const clients: Client[] = [];

  before(async () => {
    requireBuilt();
    ws = tempWorkspace(SAMPLE_FILES);
    server = await startHttpServer(['--workspace', ws.root, '--db', ws.db, '--token', 'secret']);
  });

  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await server?.stop();
    ws?.remove();
  });

  it('says on stderr that a token is required', () => {
    assert.match(server.stderr(), /bearer token required/);
    assert.doesNotMatch(server.stderr(), /no --token/);
  });

  it('answers 401 with WWW-Authenticate to a request without the token', async () => {
    const res = await rawPost(server.url, INITIALIZE_REQUEST);
    assert.equal(res.status, 401, res.body);
    assert.match(String(res.headers['www-authenticate']), /^Bearer/);
  });

  it('answers 401 to a wrong token', async () => {
    for (const auth of ['Bearer wrong', 'Bearer secretX', 'secret', 'Bearer ']) {
      const res = await rawPost(server.url, INITIALIZE_REQUEST, { authorization: auth });
      assert.equal(res.status, 401, `${auth}: ${res.body}`);
    }
  });

  it('an SDK client without the token cannot connect', async () => {
    const c = newClient();
    clients.push(c);
    await assert.rejects(c.connect(new StreamableHTTPClientTransport(new URL(server.url))), (e: Error & { code?: number }) => {
      assert.equal(e.code, 401, e.message);
      return true;
    });
  });

  it('an SDK client with "Authorization: Bearer secret" works', async () => {
    const c = newClient();
    clients.push(c);
    await c.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: 'Bearer secret' } } }));
    const { tools } = await c.listTools();
    assert.deepEqual(tools.map(t => t.name), [...TOOL_NAMES]);
    const status = structured<{ file_count: number }>(await call(c, 'index_status'));
    assert.equal(status.file_count, 0);
    const idx = structured<{ totals: { files_parsed: number } }>(await call(c, 'index_repo'));
    assert.equal(idx.totals.files_parsed, SOURCE_FILES.length);
  });

  it('checks the Host header before the token', async () => {
    const res = await rawPost(server.url, INITIALIZE_REQUEST, { host: 'evil.example.com', authorization: 'Bearer secret' });
    assert.equal(res.status, 403, res.body);
  });
});

describe('MCP progress notifications for a two-root index_repo', function () {
  this.timeout(120000);
  const FILES_PER_ROOT = 1200;
  let a: TempWorkspace;
  let b: TempWorkspace;
  let client: Client;
  let transport: StdioClientTransport;

  before(async () => {
    requireBuilt();
    a = tempWorkspace({}, 'alpha');
    b = tempWorkspace({}, 'beta');
    for (let i = 0; i < FILES_PER_ROOT; i++) {
      a.write(`gen/f${i}.ts`, `export function alpha${i}(x: number): number {\n  return x + ${i};\n}\n`.repeat(4));
      b.write(`gen/f${i}.py`, `def beta${i}(x):\n    return x + ${i}\n`.repeat(4));
    }
    ({ transport } = stdioTransport(['--workspace', a.root, '--workspace', b.root, '--db', a.db]));
    client = newClient();
    await client.connect(transport);
  });

  after(async () => {
    await closeStdio(client, transport);
    a?.remove();
    b?.remove();
  });

  it('progress increases with every notification (MCP spec), across roots and phases', async () => {
    const seen: { progress: number; total?: number; message?: string }[] = [];
    const r = await client.callTool({ name: 'index_repo', arguments: {} }, undefined, { onprogress: p => { seen.push(p); }, timeout: 110000 }) as CallToolResult;
    const data = structured<{ totals: { files_parsed: number } }>(r);
    assert.equal(data.totals.files_parsed, 2 * FILES_PER_ROOT);
    assert.ok(seen.length >= 3, `expected several progress notifications, got ${JSON.stringify(seen)}`);
    const values = seen.map(p => p.progress);
    const drops = values.flatMap((v, i) => (i > 0 && v <= values[i - 1]! ? [`${values[i - 1]} → ${v} (${seen[i]!.message})`] : []));
    assert.deepEqual(drops, [], `progress went down or stalled: ${JSON.stringify(seen)}`);
    for (const p of seen) if (p.total !== undefined) assert.ok(p.progress <= p.total, `progress ${p.progress} > total ${p.total}`);
  });
});

describe('MCP server: editor-only requests (--editor)', function () {
  this.timeout(60000);
  let ws: TempWorkspace;
  let client: Client;
  let transport: StdioClientTransport;
  const PassThrough = z.object({}).passthrough();
  const request = (method: string, params: Record<string, unknown>) => client.request({ method, params } as never, PassThrough as never) as Promise<Record<string, unknown>>;

  before(async () => {
    requireBuilt();
    ws = tempWorkspace(SAMPLE_FILES);
    ({ transport } = stdioTransport(['--editor', '--workspace', ws.root, '--db', ws.db]));
    client = newClient();
    await client.connect(transport);
    structured(await call(client, 'index_repo', {}));
  });

  after(async () => { await closeStdio(client, transport); ws?.remove(); });

  it('symbol_at: the innermost definition around a line, by absolute path', async () => {
    const inMethod = await request('sightline/symbol_at', { path: join(ws.root, 'src/users.ts'), line: 10 });
    assert.equal((inMethod.symbol as { symbol_path: string }).symbol_path, 'UserService.getUserName');
    const inClass = await request('sightline/symbol_at', { path: join(ws.root, 'src/users.ts'), line: 7 });
    assert.equal((inClass.symbol as { symbol_path: string }).symbol_path, 'UserService');
    const outside = await request('sightline/symbol_at', { path: join(ws.root, 'src/users.ts'), line: 2 });
    assert.equal(outside.symbol, null);
    const elsewhere = await request('sightline/symbol_at', { path: '/definitely/not/in/the/workspace.ts', line: 1 });
    assert.equal(elsewhere.symbol, null);
  });

  it('unsaved_buffers: answers that name an unsaved file say they reflect the saved file', async () => {
    const ack = await request('sightline/unsaved_buffers', { paths: [join(ws.root, 'src/users.ts'), '/elsewhere/x.ts'] });
    assert.deepEqual(ack.paths, ['src/users.ts']);
    const naming = await call(client, 'search_code', { query: 'getUserName', limit: 3 });
    assert.match(textOf(naming), /unsaved editor changes in `src\/users\.ts`/);
    assert.deepEqual((naming._meta as Record<string, unknown>)['sightline/unsaved_paths'], ['src/users.ts']);
    const other = await call(client, 'search_code', { query: 'MAX_RETRY_COUNT', path: 'src/db.ts', limit: 3 });
    assert.doesNotMatch(textOf(other), /unsaved editor changes/);
    await request('sightline/unsaved_buffers', { paths: [] });
    assert.doesNotMatch(textOf(await call(client, 'search_code', { query: 'getUserName', limit: 3 })), /unsaved editor changes/);
  });

  it('changed_paths: files the editor saw change are applied in the background, and before any answer', async () => {
    const file = join(ws.root, 'src', 'ledger.ts');
    writeFileSync(file, 'export function settleLedgerBalanceNow(amount: number): number {\n  return amount;\n}\n');
    const ack = await request('sightline/changed_paths', { paths: [file, '/elsewhere/x.ts', 'src/relative.ts'] });
    assert.equal(ack.accepted, 1, 'only the absolute path inside the indexed root counts');
    // no tool call (a tool call would settle it first): symbol_at reads the index as it is, and the engine
    // applies the change by itself
    const symbolAt = async () => ((await request('sightline/symbol_at', { path: file, line: 2 })).symbol as { symbol_path: string } | null)?.symbol_path;
    const t0 = Date.now();
    let sym = await symbolAt();
    while (!sym && Date.now() - t0 < 10000) { await new Promise(r => setTimeout(r, 20)); sym = await symbolAt(); }
    assert.equal(sym, 'settleLedgerBalanceNow');
    // and an answer right after a hand-over reflects it: the call settles what it was told first
    writeFileSync(file, 'export function reconcileLedgerAfterClose(amount: number): number {\n  return amount;\n}\n');
    await request('sightline/changed_paths', { paths: [file] });
    const hits = structured<{ results: { path: string; symbol_path: string | null }[] }>(await call(client, 'search_code', { query: 'reconcileLedgerAfterClose', limit: 3, group: 'chunk' }));
    assert.equal(hits.results[0]?.symbol_path, 'reconcileLedgerAfterClose');
    rmSync(file);
    await request('sightline/changed_paths', { paths: [file] });
    const gone = structured<{ results: { path: string }[] }>(await call(client, 'search_code', { query: 'reconcileLedgerAfterClose', limit: 3, group: 'chunk' }));
    assert.ok(!gone.results.some(r => r.path === 'src/ledger.ts'), 'a deleted file leaves the index');
  });

  it('--unsaved-buffers FILE: a server the editor only lists reads the unsaved buffers from a file the editor keeps', async () => {
    const file = join(ws.root, '..', `unsaved-${process.pid}.json`);
    writeFileSync(file, JSON.stringify({ paths: [join(ws.root, 'src/users.ts')] }));
    const { transport: t } = stdioTransport(['--workspace', ws.root, '--db', ws.db, '--unsaved-buffers', file]);
    const c = newClient();
    await c.connect(t);
    try {
      const first = await call(c, 'search_code', { query: 'getUserName', limit: 3 });
      assert.match(textOf(first), /unsaved editor changes in `src\/users\.ts`/);
      writeFileSync(file, JSON.stringify({ paths: [] }));
      utimesSync(file, new Date(), new Date(Date.now() + 5000)); // a new mtime even on a coarse clock
      assert.doesNotMatch(textOf(await call(c, 'search_code', { query: 'getUserName', limit: 3 })), /unsaved editor changes/);
      rmSync(file);
      assert.doesNotMatch(textOf(await call(c, 'search_code', { query: 'getUserName', limit: 3 })), /unsaved editor changes/, 'a missing file means none');
    } finally { await closeStdio(c, t); rmSync(file, { force: true }); }
  });

  it('a server started without --editor refuses them', async () => {
    const { transport: t } = stdioTransport(['--workspace', ws.root, '--db', ws.db]);
    const c = newClient();
    await c.connect(t);
    try {
      await assert.rejects(c.request({ method: 'sightline/symbol_at', params: { path: join(ws.root, 'src/users.ts'), line: 10 } } as never, PassThrough as never), /Method not found/);
    } finally { await closeStdio(c, t); }
  });
});

describe('MCP server started on an index older than the files on disk', function () {
  this.timeout(120000);
  let ws: TempWorkspace;

  before(() => { requireBuilt(); ws = tempWorkspace(SAMPLE_FILES); });
  after(() => ws?.remove());

  async function server(): Promise<{ client: Client; transport: StdioClientTransport }> {
    const { transport } = stdioTransport(['--workspace', ws.root, '--db', ws.db]);
    const client = newClient();
    await client.connect(transport);
    return { client, transport };
  }

  it('its first answer reflects what changed while no server was running', async () => {
    const first = await server();
    try { structured(await call(first.client, 'index_repo', {})); } finally { await closeStdio(first.client, first.transport); }
    // edits made while no server runs: a function appended to an indexed file, a new file, a deleted file
    const users = join(ws.root, 'src', 'users.ts');
    writeFileSync(users, `${readFileSync(users, 'utf8')}\nexport function archiveDormantAccounts(days: number): number {\n  return days;\n}\n`);
    ws.write('src/invoices.ts', 'export function reissueVoidedInvoice(id: string): string {\n  return id;\n}\n');
    rmSync(join(ws.root, 'src', 'db.ts'));
    const next = await server();
    try {
      const appended = structured<{ results: { path: string; symbol_path: string | null }[] }>(await call(next.client, 'search_code', { query: 'archiveDormantAccounts', limit: 3, group: 'chunk' }));
      assert.equal(appended.results[0]?.symbol_path, 'archiveDormantAccounts', JSON.stringify(appended.results));
      const added = structured<{ results: { path: string }[] }>(await call(next.client, 'search_code', { query: 'reissueVoidedInvoice', limit: 3, group: 'chunk' }));
      assert.equal(added.results[0]?.path, 'src/invoices.ts');
      const gone = await call(next.client, 'search_code', { query: 'MAX_RETRY_COUNT', path: 'src/db.ts', limit: 3, group: 'chunk' });
      assert.equal(structured<{ results: unknown[] }>(gone).results.length, 0, 'the deleted file is gone from the index');
    } finally { await closeStdio(next.client, next.transport); }
  });
});

describe('MCP server: compiler-grade edges in the background', function () {
  this.timeout(180000);
  let ws: TempWorkspace;

  before(() => {
    requireBuilt();
    ws = tempWorkspace({
      'src/store.ts': ['Store', 'Cache', 'Queue', 'Pool'].map((c, i) => `export class ${c} {\n  flushAll(): number {\n    return ${i};\n  }\n}\n`).join('\n'),
      'src/make.ts': "import { Store } from './store';\n\nexport function makeStore() {\n  return new Store();\n}\n",
      'src/use.ts': "import { makeStore } from './make';\n\nexport function shutdown(): number {\n  const s = makeStore();\n  return s.flushAll();\n}\n",
    });
  });
  after(() => ws?.remove());

  it('the bundled TypeScript service adds the exact edges the heuristic cannot bind, and index_status counts them', async () => {
    const { transport, stderr } = stdioTransport(['--workspace', ws.root, '--db', ws.db, '--compiler-edges-after', '0']);
    const client = newClient();
    await client.connect(transport);
    try {
      structured(await call(client, 'index_repo', {}));
      type Refs = { references: { from: { id: string; path: string }; provider: string; resolution: string }[] };
      const before = structured<Refs>(await call(client, 'find_references', { symbol: 'Store.flushAll' }));
      assert.ok(!before.references.some(r => sp(r.from) === 'shutdown' && r.resolution === 'exact'), 'no exact edge before the provider ran');
      let refs = before;
      for (let i = 0; i < 120 && !refs.references.some(r => r.provider === 'typescript'); i++) {
        await new Promise(r => setTimeout(r, 1000));
        refs = structured<Refs>(await call(client, 'find_references', { symbol: 'Store.flushAll' }));
      }
      const exact = refs.references.find(r => sp(r.from) === 'shutdown' && r.provider === 'typescript');
      assert.ok(exact, `${JSON.stringify(refs.references)}\n${stderr()}`);
      assert.equal(exact!.resolution, 'exact');
      type Status = { roots: { language_servers: { provider: string; symbols_current: number; edges: number }[] }[] };
      const st = structured<Status>(await call(client, 'index_status', {}));
      const ts = st.roots[0]!.language_servers.find(l => l.provider === 'typescript');
      assert.ok(ts && ts.symbols_current >= 6 && ts.edges >= 1, JSON.stringify(st.roots[0]!.language_servers));
      // an edit: the watcher re-indexes the file, and the provider asks only about what changed
      ws.write('src/use.ts', `${readFileSync(join(ws.root, 'src/use.ts'), 'utf8')}\nexport function drain(): number {\n  return makeStore().flushAll();\n}\n`);
      for (let i = 0; i < 120 && !refs.references.some(r => sp(r.from) === 'drain' && r.provider === 'typescript'); i++) {
        await new Promise(r => setTimeout(r, 1000));
        refs = structured<Refs>(await call(client, 'find_references', { symbol: 'Store.flushAll' }));
      }
      assert.ok(refs.references.some(r => sp(r.from) === 'drain' && r.provider === 'typescript'), JSON.stringify(refs.references));
      assert.ok(refs.references.some(r => sp(r.from) === 'shutdown' && r.provider === 'typescript'), 'the edges of the first run stay');
      assert.match(stderr(), /typescript on .* \(\d+ of \d+ symbols\)/, 'the second run was incremental');
    } finally { await closeStdio(client, transport); }
  });
});
