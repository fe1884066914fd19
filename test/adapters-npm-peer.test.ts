/**
 * Adapters against a published MCP server from npm that runs offline: the reference knowledge-graph
 * memory server (`@modelcontextprotocol/server-memory`, a test-only dependency, over stdio). A project
 * memory added here reaches it through a `capture` subscription (the durable outbox, op `store` with
 * explicit args: `create_entities`); its `search_nodes` answers `search_code` as an adapter's search
 * op (arguments bound from the tool's schema, its structuredContent mapped), and `expose` republishes
 * its `read_graph` under the adapter's prefix.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { Engine } from '../src/core/engine';
import { invokeTool } from '../src/core/tools/contract';
import { findTool } from '../src/core/tools/registry';
import { tempWorkspace } from './helpers/workspace';
import { publishedTools, callPublished } from '../src/core/adapters/published';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const SERVER = join(__dirname, '..', 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');

describe('adapters with a published MCP server (server-memory)', function () {
  this.timeout(90_000);
  it('a captured memory is stored there, found again by search_code, and its exposed tool reads it', async () => {
    const ws = tempWorkspace({ 'src/pay.ts': 'export function retryPayment() { return 1; }\n' });
    const kg = {
      driver: 'mcp', command: [process.execPath, SERVER], env: { MEMORY_FILE_PATH: join(ws.root, '..', 'kg.jsonl') },
      expose: ['read_graph'], prefix: 'kg_',
      ops: {
        store: { tool: 'create_entities', args: { entities: [{ name: '{{title}}', entityType: '{{kind}}', observations: ['{{body}}'] }] }, text: 'entities[0].name' },
        search: { tool: 'search_nodes', items: 'entities[*]', map: { title: 'name', snippet: 'observations[0]', kind: 'entityType' } },
      },
      on: [{ event: 'capture', op: 'store' }],
    };
    const e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0, adapters: { userConfigPath: null, settings: { kg } } });
    try {
      await e.index({});
      const add = await invokeTool(findTool('memory_add')!, { text: 'Decision: payments retry at most three times, with backoff', anchor_kind: 'repo' }, { engine: e });
      assert.ok(add.ok, JSON.stringify(add));
      const a = await e.adapters();
      let delivered = false;
      for (let i = 0; i < 40 && !delivered; i++) {
        await a.flushOutbox();
        const o = a.outbox();
        delivered = !o.pending.length && !o.dead.length;
        if (!delivered) await new Promise(r => setTimeout(r, 250));
      }
      assert.ok(delivered, JSON.stringify(a.outbox()));
      const s = await invokeTool(findTool('search_code')!, { query: 'payments retry' }, { engine: e });
      assert.ok(s.ok, JSON.stringify(s));
      const ext = (s.data as Json).external;
      assert.equal(ext[0]?.source, 'kg', JSON.stringify(s.data));
      assert.match(ext[0].snippet, /payments retry at most three times/);
      assert.equal(ext[0].kind, 'decision');
      const tools = (await publishedTools(a, new Set())).tools.map(t => t.name);
      assert.deepEqual(tools, ['kg_read_graph']);
      const g = await callPublished(a, 'kg_read_graph', {});
      assert.ok(g.ok, JSON.stringify(g));
      assert.match(g.text, /payments retry at most three times/);
    } finally { e.close(); ws.remove(); }
  });
});
