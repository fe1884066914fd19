/**
 * Adapter tools on the MCP surface, through a real MCP client over stdio against dist/mcp.js (needs
 * `npm run build`): a tool an http adapter declares (`[[adapters.notes.tools]]`, a loopback peer made
 * here) and the tools an mcp adapter exposes — Sightline's own MCP server on another folder, published
 * with the `other_` prefix — are listed after the first-party tools and answer as text; a declared
 * tool's arguments are checked against its params (one error shape); a first-party name cannot be taken.
 */
import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';
import { MCP_JS, requireBuilt } from './helpers/mcp';
import { TOOL_LIST } from '../src/core/tools/registry';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('adapter tools over MCP (dist/mcp.js)', function () {
  this.timeout(120_000);
  let ws: TempWorkspace; let other: TempWorkspace; let peer: Server; let client: Client;
  const seen: string[] = [];
  before(async () => {
    requireBuilt();
    peer = createServer((req, res) => { seen.push(req.url!); res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ items: [{ title: 'Runbook: rotate keys' }, { title: 'ADR 4: one writer' }] })); });
    await new Promise<void>(r => peer.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
    ws = tempWorkspace({ 'a.ts': 'export function here() { return 1; }\n' });
    other = tempWorkspace({ 'billing/invoice.py': 'def compute_invoice_total(lines):\n    return sum(l.price for l in lines)\n' }, 'billing');
    const settings = {
      notes: { driver: 'http', base_url: url, tools: [
        { name: 'notes_recent', description: 'The most recent team notes with a tag', params: { tag: 'string!', limit: 'integer' }, op: { method: 'GET', path: '/recent', query: { tag: '{{tag}}', n: '{{args.limit|default:5}}' } } },
        { name: 'search_code', description: 'would shadow a first-party tool', params: {}, op: { method: 'GET', path: '/x' } },
      ] },
      other: { driver: 'mcp', command: [process.execPath, MCP_JS, '--workspace', other.root, '--db', other.db], expose: ['search_code', 'index_repo'], prefix: 'other_' },
    };
    const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_JS, '--workspace', ws.root, '--db', ws.db], stderr: 'pipe',
      env: { ...process.env, SIGHTLINE_ADAPTERS_SETTINGS: JSON.stringify(settings) } as Record<string, string> });
    client = new Client({ name: 'adapter-tools-test', version: '1' });
    await client.connect(transport);
  });
  after(async () => { await client?.close(); peer.close(); ws.remove(); other.remove(); });

  it('lists adapter tools after the first-party ones; a first-party name is not taken', async () => {
    const { tools } = await client.listTools();
    const names = tools.map(t => t.name);
    assert.deepEqual(names.slice(0, TOOL_LIST.length), TOOL_LIST.map(t => t.name));
    assert.ok(names.includes('adapter_tool'));
    assert.deepEqual(names.slice(TOOL_LIST.length).sort(), ['notes_recent', 'other_index_repo', 'other_search_code']);
    const recent = tools.find(t => t.name === 'notes_recent')!;
    assert.deepEqual((recent.inputSchema as Json).required, ['tag']);
    assert.match(recent.description!, /adapter notes/);
    assert.equal(names.filter(n => n === 'search_code').length, 1);
  });

  it('a declared tool runs its op with the arguments and answers as text; a missing required argument is refused', async () => {
    const r = await client.callTool({ name: 'notes_recent', arguments: { tag: 'ops', limit: 2 } }) as Json;
    assert.ok(!r.isError, JSON.stringify(r));
    assert.match(r.content[0].text, /Runbook: rotate keys/);
    assert.match(seen.at(-1)!, /\/recent\?tag=ops&n=2/);
    const bad = await client.callTool({ name: 'notes_recent', arguments: { limit: 2 } }) as Json;
    assert.equal(bad.isError, true);
    const err = JSON.parse(bad.content[0].text).error;
    assert.equal(err.code, 'invalid_arguments'); assert.match(JSON.stringify(err), /tag/);
  });

  it('adapter_tool (the first-party tool every surface has, language-model tools included) lists and calls them', async () => {
    const list = await client.callTool({ name: 'adapter_tool', arguments: {} }) as Json;
    assert.ok(!list.isError, JSON.stringify(list));
    assert.deepEqual(list.structuredContent.tools.map((t: Json) => t.name).sort(), ['notes_recent', 'other_index_repo', 'other_search_code']);
    assert.deepEqual(JSON.parse(list.structuredContent.tools.find((t: Json) => t.name === 'notes_recent').input_schema_json).required, ['tag']);
    const r = await client.callTool({ name: 'adapter_tool', arguments: { name: 'notes_recent', arguments: { tag: 'db' } } }) as Json;
    assert.ok(!r.isError, JSON.stringify(r));
    assert.match(r.structuredContent.text, /ADR 4: one writer/);
    const missing = await client.callTool({ name: 'adapter_tool', arguments: { name: 'nope' } }) as Json;
    assert.match(missing.structuredContent.notices[0], /no adapter publishes a tool nope/);
    const bad = await client.callTool({ name: 'adapter_tool', arguments: { name: 'notes_recent', arguments: {} } }) as Json;
    assert.equal(bad.isError, true); assert.equal(JSON.parse(bad.content[0].text).error.code, 'invalid_arguments');
  });

  it('an exposed tool calls the other server\'s tool under its prefixed name', async () => {
    const idx = await client.callTool({ name: 'other_index_repo', arguments: {} }) as Json;
    assert.ok(!idx.isError, JSON.stringify(idx));
    const r = await client.callTool({ name: 'other_search_code', arguments: { query: 'compute invoice total' } }) as Json;
    assert.ok(!r.isError, JSON.stringify(r));
    assert.match(r.content[0].text, /billing\/invoice\.py/);
  });
});

describe('the editor\'s adapter requests (dist/mcp.js --editor)', function () {
  this.timeout(120_000);
  it('lists, tests, inspects, trusts and syncs', async () => {
    requireBuilt();
    const { z } = await import('zod');
    const stored: string[] = [];
    const peer = createServer((req, res) => { let b = ''; req.on('data', d => { b += d; }); req.on('end', () => { if (req.url!.startsWith('/store')) stored.push(b); res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ results: [{ title: 'hit' }], id: 'n1' })); }); });
    await new Promise<void>(r => peer.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
    const ws = tempWorkspace({ 'a.ts': 'export const a = 1;\n', '.sightline/config.toml': `[adapters.team]\ndriver = "http"\nbase_url = "${url}"\n[adapters.team.ops.search]\npath = "/search"\nbody = { q = "{{query}}" }\n[adapters.team.ops.store]\npath = "/store"\nbody = { md = "{{markdown}}" }\ntext = "id"\n[[adapters.team.on]]\nevent = "sync"\nop = "store"\n` });
    const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_JS, '--editor', '--workspace', ws.root, '--db', ws.db], stderr: 'pipe', env: { ...process.env } as Record<string, string> });
    const c = new Client({ name: 'editor-requests-test', version: '1' });
    await c.connect(transport);
    const any = z.object({}).passthrough();
    try {
      await c.callTool({ name: 'index_repo', arguments: {} });
      await c.callTool({ name: 'memory_add', arguments: { text: 'Decision: one writer per index', anchor_kind: 'repo' } });
      const before = await c.request({ method: 'sightline/adapters', params: {} }, any) as Json;
      assert.equal(before.adapters[0].state, 'untrusted'); assert.deepEqual(before.repo_files[0].runs, [`team: calls ${url}`]);
      await c.request({ method: 'sightline/adapters_trust', params: {} }, any);
      const after = await c.request({ method: 'sightline/adapters', params: {} }, any) as Json;
      assert.equal(after.adapters[0].state, 'active');
      const t = await c.request({ method: 'sightline/adapters_test', params: { name: 'team', op: 'search', query: 'writer' } }, any) as Json;
      assert.equal(t.result.ok, true); assert.equal(t.result.items[0].title, 'hit');
      const i = await c.request({ method: 'sightline/adapters_inspect', params: { name: 'team' } }, any) as Json;
      assert.equal(i.result.ok, false); assert.equal(i.result.error.code, 'unsupported');
      const s = await c.request({ method: 'sightline/adapters_sync', params: {} }, any) as Json;
      assert.equal(s.queued, 1); assert.equal(s.flush.delivered.length, 1);
      assert.match(stored[0]!, /one writer per index/);
    } finally { await c.close(); peer.close(); ws.remove(); }
  });
});
