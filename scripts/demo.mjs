#!/usr/bin/env node
// The main job, end to end on a real folder: index it with the CLI, query it with the CLI, then start
// the MCP server over stdio and query it with a real MCP client.
// usage: npm run demo [-- DIR [QUERY]]   (default: this repository, "atomic write of the index file")
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..');
const dir = resolve(process.argv[2] ?? repo);
const query = process.argv[3] ?? 'atomic write of the index file';
const tmp = mkdtempSync(join(tmpdir(), 'sightline-demo-'));
const db = join(tmp, 'index.sqlite');
const cli = (...args) => execFileSync(process.execPath, [join(repo, 'dist/cli.js'), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

try {
  console.log(`$ sightline index ${dir} --db ${db}`);
  console.log(cli('index', dir, '--db', db));
  console.log(`$ sightline search "${query}" --db ${db} --limit 5`);
  console.log(cli('search', query, '--db', db, '--limit', '5'));

  console.log(`MCP client → node dist/mcp.js --workspace ${dir} --db ${db}`);
  const client = new Client({ name: 'sightline-demo', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [join(repo, 'dist/mcp.js'), '--workspace', dir, '--db', db], stderr: 'inherit' }));
  const { tools } = await client.listTools();
  console.log(`tools: ${tools.map(t => t.name).join(', ')}`);
  const res = await client.callTool({ name: 'search_code', arguments: { query, limit: 3 } });
  console.log(res.content[0].text);
  const top = res.structuredContent.results[0];
  if (top) {
    const chunk = await client.callTool({ name: 'get_chunk', arguments: { chunk_id: top.chunk_id } });
    console.log(chunk.content[0].text.split('\n').slice(0, 12).join('\n'));
  }
  const status = await client.callTool({ name: 'index_status', arguments: {} });
  console.log(status.content[0].text.split('\n')[0]);
  await client.close();
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
