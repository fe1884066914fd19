/** The indexer against real folders and real git repositories made here. */
import { nodeIdOfChunkId } from '../src/core/util/ids';
import { strict as assert } from 'node:assert';
import { symlinkSync, rmSync, writeFileSync, existsSync, readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { Engine } from '../src/core/engine';
import { SightlineError } from '../src/core/errors';
import { defaultDbPath } from '../src/core/settings';
import { readSavedIndex, ftsState } from './helpers/saved-index';
import { TOOL_LIST } from '../src/core/tools/registry';
import { invokeTool } from '../src/core/tools/contract';
import { tempWorkspace, SAMPLE_FILES, type TempWorkspace } from './helpers/workspace';

const open = (ws: TempWorkspace, extra: Partial<Parameters<typeof Engine.open>[0]> = {}) =>
  Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0, ...extra });

describe('indexing', () => {
  const cleanup: (() => void)[] = [];
  afterEach(() => { while (cleanup.length) cleanup.pop()!(); });
  const make = (files: Record<string, string | Uint8Array>) => { const ws = tempWorkspace(files); cleanup.push(ws.remove); return ws; };

  it('indexes supported files into files, chunks and symbols with the seed ids', async () => {
    const ws = make(SAMPLE_FILES);
    const e = await open(ws); cleanup.push(() => e.close());
    const r = await e.index();
    assert.equal(r.totals.files_seen, 5); // four sources and README.md, a doc
    assert.equal(r.totals.files_parsed, 5);
    const s = await e.status();
    assert.equal(s.file_count, 5);
    assert.deepEqual(s.file_kinds.map(k => [k.file_kind, k.files]), [['code', 4], ['doc', 1]]);
    assert.ok(s.symbol_count >= 10);
    const repoId = e.roots[0]!.repo_id;
    const hit = (await e.search({ query: 'getUserName', limit: 5, offset: 0, vector: false })).results[0]!;
    assert.equal(hit.chunk_id, `chunk:${repoId}:src/users.ts:UserService.getUserName`);
    assert.equal(nodeIdOfChunkId(hit.chunk_id), `symbol:${repoId}:src/users.ts:UserService.getUserName`, 'a definition\'s chunk id names it');
    assert.equal(hit.kind, 'method');
    const go = (await e.search({ query: 'Run', language: 'go', limit: 5, offset: 0, vector: false })).results.find(h => h.symbol_path === 'Worker.Run');
    assert.ok(go, 'Go method qualified by its receiver type');
  });

  it('every line of a file belongs to some chunk', async () => {
    const lines = ['import os', '', 'X = 1', 'def a():', '    return 1', '', 'print(a())', 'class B:', '    y = 2', '    def m(self):', '        return self.y', 'a()'];
    const ws = make({ 'm.py': lines.join('\n') + '\n' });
    const e = await open(ws); cleanup.push(() => e.close());
    await e.index();
    const page = await e.vectorSearch({ query: 'a b m x y os print return self', limit: 100, offset: 0 });
    const covered = new Set<number>();
    for (const h of page.results) {
      const c = await e.getChunk(h.chunk_id);
      if (h.kind === 'top_level' || h.kind === 'function' || h.kind === 'method' || h.kind === 'class') for (let l = c.start_line; l <= c.end_line; l++) covered.add(l);
    }
    lines.forEach((l, i) => { if (l.trim()) assert.ok(covered.has(i + 1), `line ${i + 1} (${l}) is in no chunk`); });
  });

  it('honours .gitignore (nested too), default excludes and user excludes', async () => {
    const ws = make({
      '.gitignore': 'generated/\n*.gen.ts\n',
      'src/a.ts': 'export const A = 1;\n',
      'src/b.gen.ts': 'export const B = 1;\n',
      'generated/c.ts': 'export const C = 1;\n',
      'node_modules/dep/index.js': 'module.exports = 1;\n',
      'dist/out.js': 'var x = 1;\n',
      'pkg/.gitignore': 'local.py\n',
      'pkg/local.py': 'x = 1\n',
      'pkg/kept.py': 'y = 2\n',
      'scratch/tmp.ts': 'export const T = 1;\n',
    });
    const e = await open(ws, { settings: { excludes: ['scratch/'] } }); cleanup.push(() => e.close());
    const r = await e.index();
    const seen = await e.vectorSearch({ query: 'x y a b c t export const module exports var', limit: 100, offset: 0 });
    const paths = new Set(seen.results.map(h => h.path));
    assert.deepEqual([...paths].sort(), ['pkg/kept.py', 'src/a.ts']);
    assert.equal(r.totals.files_seen, 4, 'the two sources kept, and the .gitignore files (text files)');
  });

  it('skips huge and binary files, survives invalid UTF-8, broken syntax and symlink loops with diagnostics', async () => {
    const ws = make({
      'big.ts': 'export const x = 1;\n'.repeat(6000),
      'bin.py': new Uint8Array([0x70, 0x00, 0x01, 0x02, 0x03]),
      'latin1.py': new Uint8Array([...Buffer.from('def caf'), 0xe9, ...Buffer.from('():\n    return 1\n')]),
      'broken.ts': 'export function ok() { return 1 }\nclass {{{ nope(\nexport function alsoOk() { return 2 }\n',
      'good.go': 'package main\nfunc main() {}\n',
    });
    symlinkSync(ws.root, join(ws.root, 'loop'));
    symlinkSync(join(ws.root, 'missing-target.ts'), join(ws.root, 'dangling.ts'));
    const e = await open(ws, { settings: { max_file_bytes: 64 * 1024 } }); cleanup.push(() => e.close());
    const r = await e.index();
    const has = (path: string, code: string) => assert.ok(r.diagnostics.some(d => d.path === path && d.code === code), `${path}: ${code} expected in ${JSON.stringify(r.diagnostics)}`);
    has('big.ts', 'too_large');
    has('bin.py', 'binary');
    has('latin1.py', 'invalid_utf8');
    has('broken.ts', 'syntax_errors');
    has('loop', 'symlink_loop');
    has('dangling.ts', 'broken_symlink');
    assert.ok(!r.diagnostics.some(d => d.path === 'good.go'));
    // the files that could be read are searchable, including around the broken syntax
    assert.ok((await e.search({ query: 'alsoOk', limit: 5, offset: 0, vector: false })).results.some(h => h.path === 'broken.ts'));
    assert.ok((await e.search({ query: 'caf', limit: 5, offset: 0, vector: false })).results.some(h => h.path === 'latin1.py'));
    assert.equal((await e.status()).file_count, 3);
  });

  it('index_status names the declarations a file lost to syntax errors, and the TypeScript repair recovers call-signature interfaces', async () => {
    const ws = make({
      'broken.ts': 'export function ok() { return 1 }\nclass {{{ nope(\nexport function alsoOk() { return 2 }\nexport interface Shape { x: number }\n',
      // generic call signatures without semicolons: parsed through the repair, nothing lost
      'routes.ts': 'export interface Route<E> {\n  <P extends string>(path: P): Route<E>\n  <P extends string, R>(path: P, r: R): Route<E>\n}\n\nexport interface Table {\n  size: number\n}\n',
    });
    const e = await open(ws); cleanup.push(() => e.close());
    await e.index();
    const status = TOOL_LIST.find(t => t.name === 'index_status')!;
    const out = await invokeTool(status, {}, { engine: e });
    assert.ok(out.ok);
    const diags = (out.data as { diagnostics: { path: string; code: string; message: string }[] }).diagnostics;
    assert.deepEqual(diags.map(d => [d.path, d.code]), [['broken.ts', 'syntax_errors']]);
    assert.match(diags[0]!.message, /; 2 declaration\(s\) inside the error regions were not indexed: alsoOk \(line 3\), Shape \(line 4\)$/);
    assert.match(out.markdown, /broken\.ts.*alsoOk \(line 3\)/);
    const symbols = (await e.search({ query: 'Table', limit: 10, offset: 0, vector: false })).results.map(h => h.symbol_path);
    assert.ok(symbols.includes('Table'), `Table after the call-signature interface is a definition: ${symbols.join(', ')}`);
  });

  it('keeps the parse diagnostics of files that an incremental run does not parse again', async () => {
    const ws = make({ 'broken.ts': 'export function ok() { return 1 }\nclass {{{ nope(\n', 'fine.ts': 'export const A = 1;\n' });
    const e = await open(ws); cleanup.push(() => e.close());
    await e.index();
    assert.deepEqual(e.diagnostics().map(d => [d.path, d.code]), [['broken.ts', 'syntax_errors']]);
    ws.write('fine.ts', 'export const B = 2;\n');
    const r = await e.index();
    assert.equal(r.totals.files_parsed, 1);
    assert.deepEqual(e.diagnostics().map(d => [d.path, d.code]), [['broken.ts', 'syntax_errors']]);
  });

  it('is incremental by content hash: unchanged files are not re-parsed, edits and deletions are applied', async () => {
    const ws = make(SAMPLE_FILES);
    const e = await open(ws); cleanup.push(() => e.close());
    await e.index();
    const again = await e.index();
    assert.equal(again.totals.files_parsed, 0);
    assert.equal(again.totals.files_unchanged, 5);
    // touched but identical content: hashed, not parsed
    const t = new Date(Date.now() + 5000);
    utimesSync(join(ws.root, 'src/db.ts'), t, t);
    const touched = await e.index();
    assert.equal(touched.totals.files_parsed, 0);
    // edit one, delete one, add one
    ws.write('src/users.ts', SAMPLE_FILES['src/users.ts']!.replace('getUserName', 'getDisplayName'));
    rmSync(join(ws.root, 'cmd/main.go'));
    ws.write('src/extra.ts', 'export function shinyNewThing() { return 42; }\n');
    const r = await e.index();
    assert.equal(r.totals.files_parsed, 2);
    assert.equal(r.totals.files_deleted, 1);
    assert.equal((await e.search({ query: 'getUserName', limit: 5, offset: 0, vector: false })).results.filter(h => h.symbol_path?.endsWith('getUserName')).length, 0);
    assert.ok((await e.search({ query: 'getDisplayName', limit: 5, offset: 0, vector: false })).results.some(h => h.symbol_path === 'UserService.getDisplayName'));
    assert.equal((await e.search({ query: 'Worker', language: 'go', limit: 5, offset: 0, vector: false })).total, 0);
    assert.ok((await e.search({ query: 'shiny new thing', limit: 5, offset: 0, vector: false })).results.some(h => h.path === 'src/extra.ts'));
  });

  it('a definition added above the others, then a body edit: every definition keeps its own id and its own lines', async () => {
    const fn = (extra = '') => `export function roundTotal(values: number[]): number {\n${extra}  return values.length;\n}\n\nexport function describeTotal(values: number[]): string {\n  return String(roundTotal(values));\n}\n`;
    const ws = make({ 'src/ledger.ts': fn() });
    const e = await open(ws); cleanup.push(() => e.close());
    await e.index();
    const where = async () => {
      const g = await e.graph();
      return Object.fromEntries(['VERSION', 'roundTotal', 'describeTotal'].map(n => [n, g.lookup(n).map(x => [x.node, x.start_line, x.end_line])[0] ?? null]));
    };
    ws.write('src/ledger.ts', `export const VERSION = 2;\n\n${fn()}`);
    await e.index();
    const added = await where();
    assert.deepEqual([added.VERSION?.[1], added.roundTotal?.[1], added.describeTotal?.[1]], [1, 3, 7]);
    // the same definitions, one body longer (same shape): each keeps its row and gets its own new lines
    ws.write('src/ledger.ts', `export const VERSION = 2;\n\n${fn('  if (!values.length) return 0;\n')}`);
    await e.index();
    const edited = await where();
    assert.deepEqual(edited, { VERSION: [added.VERSION![0], 1, 1], roundTotal: [added.roundTotal![0], 3, 6], describeTotal: [added.describeTotal![0], 8, 10] });
  });

  it('the full-text index stays exact across edits, deletions and forced rebuilds (same as a fresh index of the same tree)', async () => {
    const ws = make(SAMPLE_FILES);
    const e = await open(ws);
    await e.index();
    ws.write('src/users.ts', SAMPLE_FILES['src/users.ts']!.replace('getUserName', 'getDisplayName') + '\nexport const extraLine = 1;\n');
    rmSync(join(ws.root, 'cmd/main.go'));
    ws.write('src/extra.ts', 'export function shinyNewThing() { return 42; }\n');
    await e.index();
    e.close();
    const edited = await ftsState(ws.db);
    assert.equal(edited.integrity, 'ok');
    const fresh = make({}); // an index of the same tree, built from nothing
    const f = await Engine.open({ roots: [ws.root], dbPath: fresh.db, threads: 0 });
    await f.index(); f.close();
    const rebuilt = await ftsState(fresh.db);
    assert.deepEqual(edited.stats, rebuilt.stats, 'row count and average column lengths as if built from scratch');
    assert.ok(edited.docs > 0 && edited.docs === rebuilt.docs);
    const e2 = await open(ws);
    await e2.index({ force: true }); e2.close();
    const forced = await ftsState(ws.db);
    assert.equal(forced.integrity, 'ok');
    assert.deepEqual(forced.stats, rebuilt.stats);
  });

  it('a failure while writing stops the run with that error instead of hanging, and the next run works', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 150; i++) files[`m${i}.py`] = `def f${i}():\n    return ${i}\n`;
    const ws = make(files);
    const e = await open(ws); cleanup.push(() => e.close());
    const boom = new Error('progress callback failed');
    await assert.rejects(e.index({ onProgress: p => { if (p.phase === 'parse') throw boom; } }), (err: Error) => err === boom);
    const r = await e.index();
    assert.equal(r.totals.files_seen, 150);
    assert.equal((await e.status()).file_count, 150);
  });

  it('a restart re-parses nothing that did not change (persisted atomically)', async () => {
    const ws = make(SAMPLE_FILES);
    const e1 = await open(ws);
    await e1.index();
    e1.close();
    assert.ok(existsSync(ws.db));
    assert.ok(!existsSync(`${ws.db}.lock`), 'lock released');
    const e2 = await open(ws); cleanup.push(() => e2.close());
    assert.equal((await e2.status()).file_count, 5);
    const r = await e2.index();
    assert.equal(r.totals.files_parsed, 0);
    assert.equal(r.totals.files_unchanged, 5);
  });

  it('force rebuilds only the selected repository of a multi-root workspace', async () => {
    const a = make({ 'a.ts': 'export function alpha() {}\n' });
    const b = make({ 'b.py': 'def beta():\n    pass\n' });
    const e = await Engine.open({ roots: [a.root, b.root], dbPath: a.db, threads: 0 }); cleanup.push(() => e.close());
    await e.index();
    const r = await e.index({ repo: b.root, force: true });
    assert.equal(r.repos.length, 1);
    assert.equal(r.repos[0]!.repo_id, e.roots[1]!.repo_id);
    assert.equal(r.totals.files_parsed, 1);
    const s = await e.status();
    assert.equal(s.file_count, 2);
    assert.equal(s.repositories.length, 2, 'a multi-root workspace lists each root');
    assert.ok((await e.search({ query: 'alpha', limit: 5, offset: 0, vector: false })).results.some(h => h.path === 'a.ts'), 'the other root stays searchable');
    e.close();
    assert.equal((await ftsState(a.db, 'beta')).integrity, 'ok');
    await assert.rejects(e.index({ repo: '/definitely/not/inside' }), (err: SightlineError) => err.code === 'path_outside_workspace');
  });

  it('one writer: a live lock holder blocks, a crashed holder is taken over', async () => {
    const ws = make(SAMPLE_FILES);
    const e = await open(ws); cleanup.push(() => e.close());
    const lock = `${ws.db}.lock`;
    // a live process that is not us holds the lock
    const holder = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.ppid))']);
    writeFileSync(lock, JSON.stringify({ pid: process.ppid, host: require('node:os').hostname(), since: Date.now() }));
    assert.ok(holder.status === 0);
    await assert.rejects(e.index(), (err: SightlineError) => err.code === 'index_locked');
    // a dead pid: taken over
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    writeFileSync(lock, JSON.stringify({ pid: Number(dead), host: require('node:os').hostname(), since: Date.now() - 1000 }));
    const r = await e.index();
    assert.equal(r.totals.files_parsed, 5);
    assert.ok(!existsSync(lock));
  });

  it('readers pick up a newer index file without restarting', async () => {
    const ws = make({ 'a.ts': 'export function firstThing() {}\n' });
    const reader = await open(ws); cleanup.push(() => reader.close());
    const writer = await open(ws); cleanup.push(() => writer.close());
    await writer.index();
    const names = async (q: string) => (await reader.search({ query: q, limit: 5, offset: 0, vector: false })).results.map(h => h.symbol_path);
    assert.deepEqual(await names('secondThing'), ['firstThing']); // shares only "thing"
    ws.write('b.ts', 'export function secondThing() {}\n');
    await writer.index();
    assert.equal((await names('secondThing'))[0], 'secondThing');
  });

  it('records git commit, branch and dirty state of a real repository', async () => {
    const ws = make(SAMPLE_FILES);
    ws.git('init', '-q', '-b', 'trunk');
    ws.git('add', '-A');
    ws.git('commit', '-qm', 'initial');
    const head = ws.git('rev-parse', 'HEAD').trim();
    const e = await open(ws); cleanup.push(() => e.close());
    await e.index();
    let s = await e.status();
    assert.equal(s.indexed_commit, head);
    assert.equal(s.branch, 'trunk');
    assert.equal(s.dirty, false);
    ws.write('src/new.ts', 'export const NEW_THING = 1;\n');
    await e.index();
    s = await e.status();
    assert.equal(s.dirty, true);
  });

  it('parses in worker threads with the same result as in-thread', async () => {
    const ws = make(SAMPLE_FILES);
    const threaded = await Engine.open({ roots: [ws.root], dbPath: ws.db + '.t', threads: 2 }); cleanup.push(() => threaded.close());
    const inline = await open(ws); cleanup.push(() => inline.close());
    await threaded.index(); await inline.index();
    const a = await threaded.status(); const b = await inline.status();
    assert.deepEqual([a.file_count, a.chunk_count, a.symbol_count, a.occurrence_count], [b.file_count, b.chunk_count, b.symbol_count, b.occurrence_count]);
  });

  it('stores files in walk order whatever order the workers finish in: the same tree gets the same row ids', async () => {
    // a.py is slow to parse, the others are tiny: with two workers they finish long before it
    const files: Record<string, string> = { 'a.py': Array.from({ length: 4000 }, (_, i) => `def f${i}(x):\n    return g(x) + ${i}\n`).join('') };
    for (let i = 0; i < 30; i++) files[`m${String(i).padStart(2, '0')}.py`] = `def h${i}():\n    return ${i}\n`;
    const ws = make(files);
    const ids = (db: string) => readSavedIndex(db, d =>
      ['SELECT file_id, path FROM files ORDER BY file_id', 'SELECT rowid, file_id, key FROM chunks ORDER BY rowid', 'SELECT rowid, symbol_path FROM symbols ORDER BY rowid']
        .map(q => JSON.stringify(d.exec(q)[0]!.values)));
    const threaded = await Engine.open({ roots: [ws.root], dbPath: ws.db + '.t', threads: 2 });
    await threaded.index(); threaded.close();
    const inline = await open(ws);
    await inline.index(); inline.close();
    const [t, i] = [await ids(ws.db + '.t'), await ids(ws.db)];
    assert.match(t[0]!, /^\[\[1,"a\.py"\]/);
    assert.deepEqual(t, i);
  });

  it('the default index location is outside the workspace, keyed by its roots', () => {
    const p1 = defaultDbPath(['/x/project']);
    const p2 = defaultDbPath(['/y/project']);
    assert.notEqual(p1, p2);
    assert.ok(!p1.startsWith('/x/project'));
  });
});
