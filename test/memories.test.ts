/** Project memories: the pure reconcile (each status), the service over the durable store, the phase, the tools. */
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import initSqlJs from 'sql.js';
import { Engine } from '../src/core/engine';
import { fingerprint, reconcile, fileHash, splitLines, type MemoryRecord } from '../src/core/memories/model';
import { invokeTool } from '../src/core/tools/contract';
import { TOOLS } from '../src/core/tools/registry';
import { tempWorkspace, SAMPLE_FILES, type TempWorkspace } from './helpers/workspace';

const run = promisify(execFile);
const ROOT = join(__dirname, '..');

const FILE = ['// header', 'export function total(xs: number[]) {', '  let t = 0;', '  for (const x of xs) t += x;', '  return Math.round(t);', '}', '', 'export function other() {', '  return 1;', '}'].join('\n');

function memory(over: Partial<MemoryRecord>): MemoryRecord {
  const lines = splitLines(FILE);
  return {
    id: 'memory:r:1', repo_id: 'r', anchor_kind: 'span', anchor_id: 'a.ts', anchor_path: 'a.ts', start_line: 3, end_line: 5, text: 't', source: 'human', confidence: 1,
    status: 'current', created_at_ms: 1, updated_at_ms: 1, scope: 'user', fingerprint: fingerprint(lines, over.start_line ?? 3, over.end_line ?? 5),
    created_commit: null, created_by: 'test', checked_file_hash: fileHash(FILE), checked_at_ms: 1, ...over,
  };
}
const syms = (text: string) => {
  const out: { symbol_path: string; start_line: number; end_line: number }[] = [];
  splitLines(text).forEach((l, i) => { const m = /function (\w+)/.exec(l); if (m) out.push({ symbol_path: m[1]!, start_line: i + 1, end_line: i + 1 + splitLines(text).slice(i).findIndex(x => x === '}') }); });
  return out;
};

describe('memories: reconcile (pure)', () => {
  it('current: the span is where it was', () => {
    assert.equal(reconcile(memory({}), { text: FILE, symbols: null }).status, 'current');
  });
  it('relocated: lines inserted above move the span; the new place is recorded', () => {
    const text = `// one\n// two\n${FILE}`;
    const r = reconcile(memory({}), { text, symbols: null });
    assert.equal(r.status, 'relocated'); assert.equal(r.start_line, 5); assert.equal(r.end_line, 7);
  });
  it('relocated by best context match: one anchored line edited, the rest and the surroundings remain', () => {
    const text = FILE.replace('  let t = 0;', '  let t = 0; // sum');
    const moved = `// a\n${text}`;
    const r = reconcile(memory({}), { text: moved, symbols: null });
    assert.equal(r.status, 'relocated'); assert.equal(r.start_line, 4);
  });
  it('stale: the file remains, the anchored code is gone', () => {
    const text = FILE.replace(/ {2}let t[\s\S]*?round\(t\);/, '  return xs.length;');
    assert.equal(reconcile(memory({}), { text, symbols: null }).status, 'stale');
  });
  it('gone: the file is no longer indexed', () => {
    assert.equal(reconcile(memory({}), null).status, 'gone');
  });
  it('symbols: the exact id resolves (current, also when it moved or was relocated before), renamed with the same code (relocated, new id), removed (stale)', () => {
    const m = memory({ anchor_kind: 'symbol', anchor_id: 'total', start_line: 2, end_line: 6 });
    assert.equal(reconcile(m, { text: FILE, symbols: syms(FILE) }).status, 'current');
    const shifted = `\n\n${FILE}`;
    const r1 = reconcile(m, { text: shifted, symbols: syms(shifted) });
    assert.deepEqual([r1.status, r1.start_line], ['current', 4], 'the exact anchor resolves: current, its lines follow it');
    assert.equal(r1.code_change, null, 'moved, not changed');
    const wasRelocated = reconcile({ ...m, status: 'relocated' }, { text: shifted, symbols: syms(shifted) });
    assert.equal(wasRelocated.status, 'current', 'relocated is not sticky for a symbol that resolves');
    const renamed = FILE.replace('function total', 'function sum');
    const r2 = reconcile(m, { text: renamed, symbols: syms(renamed) });
    // the declaration line changed, so the fingerprint of the whole span differs: no rename found by fingerprint
    assert.equal(r2.status, 'stale');
    const m2 = memory({ anchor_kind: 'symbol', anchor_id: 'total', start_line: 3, end_line: 5 });
    const r3 = reconcile(m2, { text: FILE, symbols: [{ symbol_path: 'sum', start_line: 3, end_line: 5 }] });
    assert.deepEqual([r3.status, r3.anchor_id], ['relocated', 'sum']);
    const removed = FILE.split('\n').slice(6).join('\n');
    assert.equal(reconcile(m, { text: removed, symbols: syms(removed) }).status, 'stale');
  });
  it('code_change: an edit inside the anchored lines is flagged with a line diff, whatever the status; a move is not', () => {
    const m = memory({ anchor_kind: 'symbol', anchor_id: 'total', start_line: 2, end_line: 6, created_at_ms: Date.UTC(2026, 10, 1) });
    const edited = FILE.replace('  let t = 0;', '  let t = 0;\n  if (!xs.length) return 0;').replace('  return Math.round(t);', '  return t;');
    const r = reconcile(m, { text: edited, symbols: syms(edited) });
    assert.equal(r.status, 'current', 'the symbol still resolves');
    assert.ok(r.code_change, 'the anchored code changed');
    assert.deepEqual([r.code_change!.lines_added, r.code_change!.lines_removed], [2, 1]);
    assert.equal(r.code_change!.since_ms, Date.UTC(2026, 10, 1));
    assert.match(r.code_change!.summary, /2 lines added, 1 removed/);
    // confirmed after the edit: compared with the confirmed code, nothing changed
    const confirmed = { ...m, confirmed_fingerprint: r.fingerprint, confirmed_at_ms: 5 };
    assert.equal(reconcile(confirmed, { text: edited, symbols: syms(edited) }).code_change, null);
    // a span edited in place stays current and is flagged; whitespace alone is not a change
    const span = reconcile(memory({}), { text: FILE.replace('  for (const x of xs) t += x;', '  for (const x of xs) t -= x;'), symbols: null });
    assert.ok(span.code_change && span.code_change.lines_added === 1 && span.code_change.lines_removed === 1, JSON.stringify(span));
    assert.equal(reconcile(memory({}), { text: FILE.replace('  let t = 0;', '    let t = 0;'), symbols: null }).code_change, null);
    // a file anchor: the file's text differs from the confirmed one
    const file = memory({ anchor_kind: 'file', start_line: null, end_line: null, fingerprint: null });
    assert.equal(reconcile(file, { text: FILE, symbols: [] }).code_change, null);
    assert.match(reconcile(file, { text: `${FILE}\n// more`, symbols: [] }).code_change?.summary ?? '', /file changed/);
  });
  it('repo and file anchors: current while they are indexed, gone after', () => {
    assert.equal(reconcile(memory({ anchor_kind: 'file', start_line: null, end_line: null, fingerprint: null }), { text: 'x', symbols: [] }).status, 'current');
    assert.equal(reconcile(memory({ anchor_kind: 'repo', anchor_path: null }), null, true).status, 'current');
    assert.equal(reconcile(memory({ anchor_kind: 'repo', anchor_path: null }), null, false).status, 'gone');
  });
});

describe('memories: service, phase and tools', () => {
  let ws: TempWorkspace;
  let engine: Engine;
  beforeEach(async () => {
    ws = tempWorkspace({ ...SAMPLE_FILES, 'src/total.ts': FILE });
    engine = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    await engine.index();
  });
  afterEach(() => { engine.close(); ws.remove(); });

  const call = async (name: keyof typeof TOOLS, args: Record<string, unknown>) => invokeTool(TOOLS[name] as never, args, { engine });

  it('memory_add refuses an anchor that does not resolve, except a repo anchor', async () => {
    for (const args of [{ anchor_kind: 'file', path: 'src/nope.ts' }, { anchor_kind: 'symbol', path: 'src/total.ts', symbol: 'nope' }, { anchor_kind: 'span', path: 'src/total.ts', start_line: 50, end_line: 60 }]) {
      const out = await call('memory_add', { text: 'x', ...args });
      assert.equal(out.ok, false, JSON.stringify(args));
      if (!out.ok) { assert.equal(out.error.code, 'not_found'); assert.equal((out.error.details as { reason: string }).reason, 'anchor_unresolved'); }
    }
    const repo = await call('memory_add', { text: 'the team reviews every migration', anchor_kind: 'repo' });
    assert.ok(repo.ok);
    if (repo.ok) assert.match((repo.data as { memory: { id: string } }).memory.id, new RegExp(`^memory:${engine.roots[0]!.repo_id}:[0-9a-f]{12}$`));
  });

  it('memory_add resolves a member by the name people write (sigils aside) and suggests near names when one does not resolve', async () => {
    ws.write('src/client.ts', 'export class Client {\n  #retryDelay(n: number) {\n    return n * 2;\n  }\n  send() { return this.#retryDelay(1); }\n}\n');
    await engine.index();
    const bare = await call('memory_add', { text: 'the delay doubles', anchor_kind: 'symbol', path: 'src/client.ts', symbol: 'retryDelay' });
    assert.ok(bare.ok, JSON.stringify(!bare.ok && bare.error));
    if (bare.ok) assert.equal((bare.data as { memory: { anchor_id: string } }).memory.anchor_id, 'Client.#retryDelay');
    ws.write('src/parse.ts', 'export function parse(a: string): number;\nexport function parse(a: number): number;\nexport function parse(a: string | number): number {\n  return Number(a);\n}\n');
    await engine.index();
    const overloaded = await call('memory_add', { text: 'parse never throws', anchor_kind: 'symbol', path: 'src/parse.ts', symbol: 'parse' });
    assert.ok(overloaded.ok, JSON.stringify(!overloaded.ok && overloaded.error));
    if (overloaded.ok) assert.deepEqual([(overloaded.data as { memory: { start_line: number } }).memory.start_line], [3], 'an overload set is anchored at its implementation');
    const typo = await call('memory_add', { text: 'x', anchor_kind: 'symbol', path: 'src/client.ts', symbol: 'retryDelya' });
    assert.equal(typo.ok, false);
    if (!typo.ok) {
      assert.deepEqual((typo.error.details as { suggestions: string[] }).suggestions, ['Client.#retryDelay']);
      assert.match(typo.error.message, /Did you mean: Client\.#retryDelay\?/);
    }
  });

  it('adds, reports duplicates, lists with filters, deletes; the seed shape', async () => {
    const a = await call('memory_add', { text: 'totals are rounded once, at the end', anchor_kind: 'symbol', path: 'src/total.ts', symbol: 'total', source: 'human' });
    assert.ok(a.ok);
    const m = (a.data as { memory: Record<string, unknown> }).memory;
    for (const k of ['id', 'repo_id', 'anchor_kind', 'anchor_id', 'anchor_path', 'start_line', 'end_line', 'text', 'source', 'confidence', 'status', 'created_at_ms', 'updated_at_ms']) assert.ok(k in m, k);
    assert.deepEqual([m.anchor_id, m.start_line, m.end_line, m.status], ['total', 2, 6, 'current']);
    const dup = await call('memory_add', { text: 'Totals are rounded once at the end.', anchor_kind: 'symbol', path: 'src/total.ts', symbol: 'total' });
    assert.ok(dup.ok && (dup.data as { added: boolean }).added === false);
    await call('memory_add', { text: 'getUserName trims', anchor_kind: 'file', path: 'src/users.ts', scope: 'repo' });
    assert.ok(existsSync(join(ws.root, '.sightline', 'memories.json')));
    const list = async (args: Record<string, unknown>) => { const o = await call('memory_list', args); assert.ok(o.ok); return (o.data as { memories: { id: string; text: string }[]; total: number }); };
    assert.equal((await list({})).total, 2);
    assert.equal((await list({ symbol: 'total' })).total, 1);
    assert.equal((await list({ path: 'src/users.ts' })).total, 1);
    assert.equal((await list({ source: 'human' })).total, 1);
    assert.equal((await list({ text: 'ROUNDED' })).total, 1);
    assert.equal((await list({ status: 'stale' })).total, 0);
    const p = await list({ limit: 1 });
    assert.equal(p.memories.length, 1);
    const del = await call('memory_delete', { id: m.id });
    assert.ok(del.ok && (del.data as { deleted: boolean }).deleted);
    assert.equal((await list({})).total, 1);
  });

  it('statuses follow real edits: relocated after lines are inserted, stale when the code is removed, gone when the file is deleted; checked on read', async () => {
    const add = await call('memory_add', { text: 'rounding', anchor_kind: 'span', path: 'src/total.ts', start_line: 3, end_line: 5 });
    assert.ok(add.ok);
    const status = async () => { const o = await call('memory_list', {}); assert.ok(o.ok); return (o.data as { memories: { status: string; start_line: number }[] }).memories[0]!; };
    ws.write('src/total.ts', `// moved\n${FILE}`);
    // no index run: the check on read still sees the file changed
    assert.deepEqual(await status(), { ...(await status()), status: 'relocated', start_line: 4 });
    await engine.index();
    assert.equal((await status()).status, 'relocated');
    ws.write('src/total.ts', 'export const nothing = 0;\n');
    await engine.index();
    const rec = await call('memory_reconcile', {});
    assert.ok(rec.ok && (rec.data as { by_status: { stale: number } }).by_status.stale === 1);
    rmSync(join(ws.root, 'src/total.ts'));
    await engine.index();
    assert.equal((await status()).status, 'gone');
  });

  it('the memories phase reconciles after an index run', async () => {
    await call('memory_add', { text: 'rounding', anchor_kind: 'symbol', path: 'src/total.ts', symbol: 'total' });
    ws.write('src/total.ts', `\n\n${FILE}`);
    const report = await engine.index();
    assert.ok('memories_ms' in report.timings);
    const doc = JSON.parse(readFileSync(engine.memories.document('user').path, 'utf8')) as { memories: MemoryRecord[] };
    assert.deepEqual([doc.memories[0]!.status, doc.memories[0]!.start_line], ['current', 4]);
  });

  it('memories survive force, a schema rebuild and a deleted index file', async () => {
    await call('memory_add', { text: 'keep me', anchor_kind: 'file', path: 'src/total.ts' });
    const count = async () => { const o = await call('memory_list', {}); assert.ok(o.ok); return (o.data as { total: number; memories: { status: string }[] }); };
    await engine.index({ force: true });
    assert.equal((await count()).total, 1);
    engine.close();
    const SQL = await initSqlJs();
    const d = new SQL.Database(readFileSync(ws.db));
    d.run("UPDATE meta SET value = '7' WHERE key = 'schema_version'"); d.run('PRAGMA application_id = 0');
    writeFileSync(ws.db, d.export()); d.close();
    engine = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    assert.equal(engine.rebuiltFromScratch, true);
    await engine.index();
    assert.equal((await count()).total, 1);
    engine.close();
    rmSync(ws.db);
    engine = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    const before = await count();
    assert.deepEqual([before.total, before.memories[0]!.status], [1, 'current'], 'listed before indexing, not taken for gone');
    await engine.index();
    const after = await count();
    assert.deepEqual([after.total, after.memories[0]!.status], [1, 'current']);
  });

  it('two processes adding at once lose none', async function () {
    this.timeout(120_000);
    engine.close();
    const writer = join(ROOT, 'test', 'helpers', 'memory-writer.ts');
    await Promise.all(['a', 'b'].map(tag => run(process.execPath, ['-r', 'tsx/cjs', writer, ws.root, ws.db, tag, '15'], { cwd: ROOT })));
    engine = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    const texts = (await engine.memories.list({})).map(m => m.text);
    assert.equal(texts.length, 30);
    for (const tag of ['a', 'b']) for (let i = 0; i < 15; i++) assert.ok(texts.includes(`${tag}-${i}`), `${tag}-${i}`);
  });

  it('CLI: sightline memory add|list|delete|reconcile', async function () {
    this.timeout(120_000);
    const cli = (...args: string[]) => run(process.execPath, ['-r', 'tsx/cjs', join(ROOT, 'src/bin/sightline.ts'), 'memory', ...args, '--workspace', ws.root, '--db', ws.db], { cwd: ROOT });
    const added = JSON.parse((await cli('add', 'rounded at the end', '--path', 'src/total.ts', '--symbol', 'total', '--source', 'human', '--json')).stdout) as { memory: { id: string; anchor_kind: string } };
    assert.equal(added.memory.anchor_kind, 'symbol');
    await assert.rejects(cli('add', 'x', '--path', 'src/nope.ts'), (e: { code: number; stderr: string }) => e.code === 1 && /does not resolve/.test(e.stderr));
    assert.match((await cli('list', '--source', 'human')).stdout, /rounded at the end/);
    assert.match((await cli('reconcile')).stdout, /1 checked/);
    assert.match((await cli('delete', added.memory.id)).stdout, /deleted/);
    assert.match((await cli('list')).stdout, /no memories/);
  });
});
