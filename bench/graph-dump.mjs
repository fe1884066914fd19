#!/usr/bin/env node
// The stored graph of an index file, as sorted text lines with a digest: two builds (or two histories of
// runs) give the same graph exactly when the digests are equal. Nodes are written by their stable ids
// (repo, path, symbol path), never by row ids, so the comparison does not depend on insertion order.
//
// usage: node bench/graph-dump.mjs INDEX_FILE [--out FILE]
//   prints: heuristic edges, provider edges and unbound-call rows with their counts and a sha256 of all lines.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PROJECT_DIR } from './lib/common.mjs';

const args = process.argv.slice(2);
const file = args[0];
if (!file || file.startsWith('--')) { console.error('usage: node bench/graph-dump.mjs INDEX_FILE [--out FILE]'); process.exit(2); }
const outAt = args.indexOf('--out');
const out = outAt >= 0 ? args[outAt + 1] : null;

const require = createRequire(join(PROJECT_DIR, 'package.json'));
const initSqlJs = require('sql.js');
const SQL = await initSqlJs();
const db = new SQL.Database(readFileSync(file));

function rows(sql) {
  const st = db.prepare(sql);
  const res = [];
  while (st.step()) res.push(st.get());
  st.free();
  return res;
}

// node → stable text: a symbol's rowid, or -file_id for a file.
const files = new Map(rows('SELECT file_id, repo_id, path FROM files').map(([id, repo, path]) => [id, `${repo}:${path}`]));
const symbols = new Map(rows('SELECT rowid, file_id, symbol_path FROM symbols').map(([id, f, sp]) => [id, `${files.get(f)}:${sp}`]));
const node = n => (n < 0 ? `file:${files.get(-n)}` : `symbol:${symbols.get(n)}`);

const lines = [];
let heuristic = 0;
for (const [repo, from, to, kind, conf, ev, fid, line] of rows('SELECT repo_id, from_node, to_node, kind, confidence, evidence, file_id, line FROM graph_edges')) {
  lines.push(`g ${repo} ${node(from)} ${node(to)} ${kind} ${conf} ${ev} ${files.get(fid)}:${line}`);
  heuristic++;
}
let provider = 0;
for (const r of rows('SELECT from_id, to_id, kind, provider, confidence, evidence, file_id FROM edges')) {
  lines.push(`e ${r[0]} ${r[1]} ${r[2]} ${r[3]} ${r[4]} ${r[5]} ${r[6] == null ? '' : files.get(r[6])}`);
  provider++;
}
let unbound = 0;
for (const [repo, name, fid, sites] of rows('SELECT repo_id, name, file_id, sites FROM unbound_calls')) {
  lines.push(`u ${repo} ${name} ${files.get(fid)} ${sites}`);
  unbound++;
}
lines.sort();
const text = lines.join('\n') + '\n';
if (out) writeFileSync(out, text);
const sha = createHash('sha256').update(text).digest('hex');
console.log(`heuristic edges ${heuristic}, provider edges ${provider}, unbound rows ${unbound}; sha256 ${sha}`);
