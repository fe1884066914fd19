/**
 * Project memories in other answers (impact, post_change_impact, pre_change_context, search_code),
 * editing and re-anchoring them (memory_update, `sightline memory update`), and their optional export
 * into AGENTS.md / .github/copilot-instructions.md — on real files of a real indexed fixture.
 */
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Engine } from '../src/core/engine';
import { invokeTool } from '../src/core/tools/contract';
import { TOOLS } from '../src/core/tools/registry';
import { MEMORIES_END, MEMORIES_START, withSection, parseExportTargets } from '../src/core/memories/export';
import { tempWorkspace, SAMPLE_FILES, type TempWorkspace } from './helpers/workspace';

const run = promisify(execFile);
const ROOT = join(__dirname, '..');

const TOTAL = ['// header', 'export function total(xs: number[]) {', '  let t = 0;', '  for (const x of xs) t += x;', '  return Math.round(t);', '}', '', 'export function other() {', '  return 1;', '}'].join('\n');
/** getUserName's three lines rewritten (the index still has the old ones until the next run) */
const EDITED_USERS = SAMPLE_FILES['src/users.ts']!.replace(
  '  getUserName(id: string): string {\n    return this.lookup(id).name;\n  }',
  '  getUserLabel(key: string): string {\n    const label = this.lookup(key).name.trim();\n    return `user ${label}`; }',
);

interface Note { id: string; anchor_kind: string; anchor_id: string; status: string; text: string; text_truncated: boolean; on: string }
interface Marker { count: number; needs_look: number; worst_status: string }

describe('memories in answers, memory_update and the export', () => {
  let ws: TempWorkspace;
  let engine: Engine;
  const open = async (opts: Partial<Parameters<typeof Engine.open>[0]> = {}) => { engine = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0, ...opts }); };
  beforeEach(async () => {
    ws = tempWorkspace({ ...SAMPLE_FILES, 'src/total.ts': TOTAL });
    await open();
    await engine.index();
  });
  afterEach(() => { engine.close(); ws.remove(); });

  const call = async (name: keyof typeof TOOLS, args: Record<string, unknown>) => {
    const out = await invokeTool(TOOLS[name] as never, args, { engine });
    if (!out.ok) throw new Error(`${name} failed: ${JSON.stringify(out.error)}`);
    const parsed = TOOLS[name].output.strict().safeParse(out.data);
    assert.ok(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 3)));
    return { data: out.data as Record<string, unknown>, md: out.markdown };
  };
  const add = async (args: Record<string, unknown>) => ((await call('memory_add', args)).data as { memory: { id: string } }).memory.id;
  const notes = (d: Record<string, unknown>) => d.memories as Note[];

  /** a memory on the target of impact (lookup), one on its caller (getUserName), one on a file nothing reaches */
  async function seed() {
    return {
      target: await add({ text: 'lookup never returns undefined', anchor_kind: 'symbol', path: 'src/users.ts', symbol: 'UserService.lookup', source: 'human' }),
      caller: await add({ text: 'names are shown as they are stored', anchor_kind: 'symbol', path: 'src/users.ts', symbol: 'UserService.getUserName' }),
      other: await add({ text: 'totals are rounded once', anchor_kind: 'file', path: 'src/total.ts' }),
    };
  }

  it('without memories the answers carry none, and search hits no marker', async () => {
    const imp = await call('impact', { symbol: 'UserService.lookup' });
    assert.deepEqual([imp.data.memories, imp.data.total_memories], [[], 0]);
    assert.doesNotMatch(imp.md, /📝/);
    const s = await call('search_code', { query: 'user name' });
    const files = s.data.files as { memories?: Marker; chunks: { memories?: Marker }[] }[];
    assert.ok(files.length && files.every(f => !('memories' in f) && f.chunks.every(c => !('memories' in c))));
    assert.doesNotMatch(s.md, /📝/);
    // reading writes nothing: no memory document appears
    assert.ok(!existsSync(engine.memories.document('user').path));
    assert.ok(!existsSync(join(ws.root, '.sightline')));
  });

  it('impact: memories on the target and on its dependents; a stale one is flagged after the file is edited', async () => {
    const ids = await seed();
    const imp = await call('impact', { symbol: 'UserService.lookup', path: 'src/users.ts' });
    const got = notes(imp.data);
    assert.deepEqual(got.map(n => n.id), [ids.target, ids.caller], 'the target first, then the dependent; not the unrelated file');
    assert.equal(imp.data.total_memories, 2);
    assert.match(got[0]!.on, /:src\/users\.ts:UserService\.lookup$/);
    assert.match(got[1]!.on, /:UserService\.getUserName$/);
    assert.ok(got.every(n => n.status === 'current'));
    assert.match(imp.md, /📝 2 memories/);
    assert.match(imp.md, /lookup never returns undefined/);
    // the caller's code is rewritten; no index run: the memory is checked on read and never served current
    ws.write('src/users.ts', EDITED_USERS);
    const after = await call('impact', { symbol: 'UserService.lookup', path: 'src/users.ts' });
    const stale = notes(after.data).find(n => n.id === ids.caller)!;
    assert.equal(stale.status, 'stale');
    assert.equal(notes(after.data)[0]!.id, ids.caller, 'stale first: it needs a look');
    assert.match(after.md, /needs a look/);
    assert.match(after.md, /⚠ \*\*stale: needs a look\*\*/);
  });

  it('an edit inside the anchored code: still current, flagged as changed (with the diff) in every answer and the list; confirming clears it', async () => {
    const id = await add({ text: 'totals are rounded once', anchor_kind: 'symbol', path: 'src/total.ts', symbol: 'total' });
    const edited = TOTAL.replace('  return Math.round(t);', '  const rounded = Math.round(t);\n  return rounded;');
    ws.write('src/total.ts', edited);
    const listed = async () => ((await call('memory_list', {})).data as { memories: { id: string; status: string; code_change: { lines_added: number; lines_removed: number; summary: string } | null }[] }).memories.find(m => m.id === id)!;
    const onRead = await listed();
    assert.equal(onRead.status, 'current', 'the anchor still resolves: the status says where, not whether it holds');
    assert.ok(onRead.code_change, 'flagged on read, before any index run');
    await engine.index();
    const changed = await listed();
    assert.equal(changed.status, 'current');
    assert.deepEqual([changed.code_change?.lines_added, changed.code_change?.lines_removed], [2, 1], 'the symbol\'s lines now: the exact diff');
    const list = await call('memory_list', {});
    assert.match(list.md, /code changed/);
    const imp = await call('impact', { symbol: 'total', path: 'src/total.ts' });
    const note = notes(imp.data).find(n => n.id === id) as Note & { code_change: string | null };
    assert.match(note.code_change ?? '', /2 lines added, 1 removed/);
    assert.match(imp.md, /code changed since it was confirmed/);
    const search = await call('search_code', { query: 'total rounded', limit: 3 });
    const file = (search.data.files as { path: string; memories?: Marker & { code_changed: number } }[]).find(f => f.path === 'src/total.ts');
    assert.equal(file?.memories?.code_changed, 1);
    // confirmed: the flag is cleared, and stays cleared until the code changes again
    const confirmed = await call('memory_update', { id, confirm: true });
    assert.equal((confirmed.data as { memory: { code_change: unknown } }).memory.code_change, null);
    assert.equal((await listed()).code_change, null);
    await engine.index();
    assert.equal((await listed()).code_change, null, 'an index run does not bring it back');
    ws.write('src/total.ts', edited.replace('  let t = 0;', '  let t = 0.0;'));
    assert.ok((await listed()).code_change, 'a new change after the confirmation is flagged again');
  });

  it('post_change_impact: memories on the changed code and its dependents; stale ones become evidence', async () => {
    const ids = await seed();
    const r = await call('post_change_impact', { changed_symbols: ['UserService.lookup'] });
    assert.deepEqual(notes(r.data).map(n => n.id).sort(), [ids.target, ids.caller].sort());
    const byFile = await call('post_change_impact', { changed_files: ['src/total.ts'] });
    assert.deepEqual(notes(byFile.data).map(n => n.id), [ids.other]);
    ws.write('src/users.ts', EDITED_USERS);
    const diff = 'diff --git a/src/users.ts b/src/users.ts\n--- a/src/users.ts\n+++ b/src/users.ts\n@@ -8,3 +8,3 @@\n-  getUserName(id: string): string {\n-    return this.lookup(id).name;\n-  }\n+  getUserLabel(key: string): string {\n+    const label = this.lookup(key).name.trim();\n+    return `user ${label}`; }\n';
    const d = await call('post_change_impact', { diff });
    const stale = notes(d.data).find(n => n.id === ids.caller);
    assert.equal(stale?.status, 'stale', JSON.stringify(d.data.memories));
    assert.ok((d.data.report as { evidence: string[] }).evidence.some(e => /no longer resolve \(stale or gone\)/.test(e)));
    assert.match(d.md, /needs a look/);
  });

  it('pre_change_context: memories on the pack, within half the token budget', async () => {
    const ids = await seed();
    const r = await call('pre_change_context', { query: 'user name lookup', token_budget: 4000 });
    const got = notes(r.data);
    assert.ok(got.some(n => n.id === ids.caller) && got.some(n => n.id === ids.target), JSON.stringify(got));
    assert.ok(!got.some(n => n.id === ids.other));
    const pack = (r.data.context_pack as { chunk_id: string }[]).map(p => p.chunk_id);
    assert.ok(got.every(n => pack.includes(n.on)), 'each memory names the pack item it is on');
    assert.match(r.md, /📝 /);
    // a long memory is cut; a tiny budget still shows the most urgent one
    await add({ text: `getUserName ${'x'.repeat(2000)}`, anchor_kind: 'span', path: 'src/users.ts', start_line: 9, end_line: 9 });
    const tiny = await call('pre_change_context', { query: 'user name lookup', token_budget: 100 });
    assert.ok(notes(tiny.data).length >= 1);
    assert.ok((tiny.data.total_memories as number) >= notes(tiny.data).length);
    const long = notes((await call('pre_change_context', { query: 'user name lookup', token_budget: 20000 })).data).find(n => n.text.startsWith('getUserName'));
    assert.ok(long && long.text_truncated && long.text.length <= 300);
  });

  it('search_code: a marker per file and chunk hit, in JSON and Markdown', async () => {
    await seed();
    const r = await call('search_code', { query: 'user name' });
    const files = r.data.files as { path: string; memories?: Marker; chunks: { symbol_path: string | null; memories?: Marker }[] }[];
    const users = files.find(f => f.path === 'src/users.ts')!;
    assert.deepEqual(users.memories, { count: 2, needs_look: 0, worst_status: 'current', code_changed: 0 });
    const chunk = users.chunks.find(c => c.symbol_path === 'UserService.getUserName');
    assert.deepEqual(chunk?.memories, { count: 1, needs_look: 0, worst_status: 'current', code_changed: 0 });
    assert.match(r.md, /\[📝 2 memories\]/);
    assert.match(r.md, /\[📝 1 memory\]/);
    ws.write('src/users.ts', EDITED_USERS);
    const after = await call('search_code', { query: 'user name' });
    const u2 = (after.data.files as typeof files).find(f => f.path === 'src/users.ts')!;
    assert.deepEqual(u2.memories, { count: 2, needs_look: 1, worst_status: 'stale', code_changed: 0 });
    assert.match(after.md, /\[📝 2 memories, ⚠ 1 stale\]/);
  });

  it('memory_update: text, confidence and source; reanchor clears relocated; updated_at_ms moves', async () => {
    const id = await add({ text: 'rounding', anchor_kind: 'span', path: 'src/total.ts', start_line: 3, end_line: 5 });
    ws.write('src/total.ts', `// one\n// two\n${TOTAL}`);
    await engine.index();
    const listed = async () => ((await call('memory_list', {})).data as { memories: { id: string; status: string; start_line: number; text: string; updated_at_ms: number; confidence: number; source: string }[] }).memories.find(m => m.id === id)!;
    const before = await listed();
    assert.deepEqual([before.status, before.start_line], ['relocated', 5]);
    const text = await call('memory_update', { id, text: 'rounding happens once', confidence: 0.5, source: 'human' });
    const t = text.data as { updated: boolean; reanchored: boolean; memory: { status: string; text: string; updated_at_ms: number } };
    assert.deepEqual([t.updated, t.reanchored, t.memory.status, t.memory.text], [true, false, 'relocated', 'rounding happens once'], 'a text edit leaves the status');
    assert.ok(t.memory.updated_at_ms > before.updated_at_ms);
    const re = await call('memory_update', { id, reanchor: true });
    assert.deepEqual([(re.data as { reanchored: boolean }).reanchored, (re.data as { memory: { status: string; start_line: number } }).memory.status], [true, 'current']);
    assert.match(re.md, /re-anchored/);
    const now = await listed();
    assert.deepEqual([now.status, now.start_line, now.text, now.confidence, now.source], ['current', 5, 'rounding happens once', 0.5, 'human']);
    await engine.index({ force: true });
    assert.equal((await listed()).status, 'current', 'still current after an index run');
    // a new anchor, resolved like memory_add's
    const moved = await call('memory_update', { id, anchor_kind: 'symbol', path: 'src/total.ts', symbol: 'other' });
    const m = (moved.data as { memory: { anchor_kind: string; anchor_id: string; start_line: number; status: string } }).memory;
    assert.deepEqual([m.anchor_kind, m.anchor_id, m.start_line, m.status], ['symbol', 'other', 10, 'current']);
    const unknown = await call('memory_update', { id: 'memory:nope:000000000000', text: 'x' });
    assert.deepEqual([(unknown.data as { updated: boolean }).updated, (unknown.data as { memory: null }).memory], [false, null]);
    assert.match(unknown.md, /nothing updated/);
  });

  it('memory_update: an anchor that does not resolve, or a stale memory re-anchored, is the structured error; bad combinations are invalid_arguments', async () => {
    const id = await add({ text: 'rounding', anchor_kind: 'span', path: 'src/total.ts', start_line: 3, end_line: 5 });
    for (const args of [{ anchor_kind: 'file', path: 'src/nope.ts' }, { anchor_kind: 'symbol', path: 'src/total.ts', symbol: 'nope' }, { anchor_kind: 'span', path: 'src/total.ts', start_line: 50, end_line: 60 }]) {
      const out = await invokeTool(TOOLS.memory_update as never, { id, ...args }, { engine });
      assert.equal(out.ok, false, JSON.stringify(args));
      if (!out.ok) { assert.equal(out.error.code, 'not_found'); assert.equal((out.error.details as { reason: string }).reason, 'anchor_unresolved'); assert.match(out.markdown, /does not resolve/); }
    }
    ws.write('src/total.ts', 'export const nothing = 0;\n');
    await engine.index();
    const stale = await invokeTool(TOOLS.memory_update as never, { id, reanchor: true }, { engine });
    assert.ok(!stale.ok && stale.error.code === 'not_found' && (stale.error.details as { reason: string }).reason === 'anchor_unresolved');
    for (const args of [{ path: 'src/total.ts' }, { reanchor: true, anchor_kind: 'repo' }]) {
      const out = await invokeTool(TOOLS.memory_update as never, { id, ...args }, { engine });
      assert.ok(!out.ok && out.error.code === 'invalid_arguments', JSON.stringify(args));
    }
    // the memory itself is untouched by the refusals
    const listed = ((await call('memory_list', {})).data as { memories: { id: string; text: string; status: string }[] }).memories;
    assert.deepEqual(listed.map(m => [m.id, m.text, m.status]), [[id, 'rounding', 'stale']]);
  });

  it('CLI: sightline memory update ID --text … --reanchor', async function () {
    this.timeout(120_000);
    engine.close();
    const cli = (...args: string[]) => run(process.execPath, ['-r', 'tsx/cjs', join(ROOT, 'src/bin/sightline.ts'), 'memory', ...args, '--workspace', ws.root, '--db', ws.db], { cwd: ROOT });
    const added = JSON.parse((await cli('add', 'rounding', '--path', 'src/total.ts', '--lines', '3-5', '--json')).stdout) as { memory: { id: string } };
    ws.write('src/total.ts', `// moved\n${TOTAL}`);
    const up = JSON.parse((await cli('update', added.memory.id, '--text', 'rounding once', '--reanchor', '--json')).stdout) as { memory: { status: string; text: string; start_line: number } };
    assert.deepEqual([up.memory.status, up.memory.text, up.memory.start_line], ['current', 'rounding once', 4]);
    // the file changed since it was indexed: a new span anchor resolves by its lines
    const moved = JSON.parse((await cli('update', added.memory.id, '--path', 'src/total.ts', '--lines', '9-11', '--json')).stdout) as { memory: { anchor_kind: string; start_line: number } };
    assert.deepEqual([moved.memory.anchor_kind, moved.memory.start_line], ['span', 9]);
    assert.match((await cli('update', added.memory.id, '--source', 'human')).stdout, /memory_update\*\* updated/);
    await assert.rejects(cli('update', added.memory.id, '--path', 'src/nope.ts'), (e: { code: number; stderr: string }) => e.code === 1 && /does not resolve/.test(e.stderr));
    await assert.rejects(cli('update'), (e: { code: number }) => e.code === 2);
    await open();
  });

  describe('export into instruction files', () => {
    const AGENTS = '# Agents\r\n\r\nRun the tests before you push.\r\n';
    const agentsPath = () => join(ws.root, 'AGENTS.md');
    const copilotPath = () => join(ws.root, '.github', 'copilot-instructions.md');

    it('is off by default: no file is written, an existing one is left alone', async () => {
      writeFileSync(agentsPath(), AGENTS);
      await seed();
      await call('memory_reconcile', {});
      assert.equal(readFileSync(agentsPath(), 'utf8'), AGENTS);
      assert.ok(!existsSync(copilotPath()));
    });

    it('writes the marked section, keeps the rest byte for byte, rewrites only on change, follows every memory change', async () => {
      engine.close();
      await open({ memoriesExport: ['agents_md', 'copilot_instructions'] });
      // a file with bytes that are not UTF-8 outside the section stays exactly as it was
      const head = Buffer.concat([Buffer.from(AGENTS, 'utf8'), Buffer.from([0xff, 0xfe, 0x0d, 0x0a])]);
      writeFileSync(agentsPath(), head);
      const ids = await seed();
      const bytes = () => readFileSync(agentsPath());
      let text = bytes().toString('utf8');
      assert.ok(bytes().subarray(0, head.length).equals(head), 'the original bytes are a prefix');
      assert.ok(text.includes(MEMORIES_START) && text.includes(MEMORIES_END));
      assert.match(text, /### src\/total\.ts\r\n\r\n- `src\/total\.ts` — totals are rounded once/);
      assert.match(text, /- `src\/users\.ts:8 UserService\.getUserName` — names are shown as they are stored/);
      assert.ok(text.includes('\r\n'), 'the section uses the file\'s line endings');
      const copilot = readFileSync(copilotPath(), 'utf8');
      assert.ok(copilot.startsWith(MEMORIES_START) && copilot.includes('lookup never returns undefined'));
      // text after the section is kept too
      writeFileSync(agentsPath(), Buffer.concat([bytes(), Buffer.from('\r\n## After\r\nkeep me\r\n')]));
      const mtime = statSync(agentsPath()).mtimeMs;
      const ino = statSync(agentsPath()).ino;
      await new Promise(r => setTimeout(r, 30));
      await call('memory_reconcile', {});
      await call('memory_list', {});
      assert.equal(statSync(agentsPath()).mtimeMs, mtime, 'no rewrite when nothing changed');
      assert.equal(statSync(agentsPath()).ino, ino);
      await call('memory_update', { id: ids.other, text: 'totals are rounded at the end' });
      text = bytes().toString('utf8');
      assert.match(text, /totals are rounded at the end/);
      assert.doesNotMatch(text, /totals are rounded once/);
      assert.ok(text.endsWith('\r\n## After\r\nkeep me\r\n'));
      assert.ok(bytes().subarray(0, head.length).equals(head));
      // stale memories leave the section (a reconcile after the edit regenerates it)
      ws.write('src/users.ts', EDITED_USERS);
      await engine.index();
      text = bytes().toString('utf8');
      assert.doesNotMatch(text, /names are shown as they are stored/);
      assert.match(text, /lookup never returns undefined/);
      await call('memory_delete', { id: ids.other });
      assert.doesNotMatch(bytes().toString('utf8'), /totals are rounded/);
      await call('memory_delete', { id: ids.target });
      await call('memory_delete', { id: ids.caller });
      text = bytes().toString('utf8');
      assert.ok(text.includes(`${MEMORIES_START}\r\n${MEMORIES_END}`), 'an empty section stays marked');
      assert.ok(text.endsWith('\r\n## After\r\nkeep me\r\n'));
    });

    it('the section logic: appended once, replaced in place, nothing created for nothing; targets by short name', () => {
      assert.equal(withSection(null, null), null);
      assert.equal(withSection('# A\n', null), null);
      const once = withSection('# A', ['x'])!;
      assert.equal(once, `# A\n\n${MEMORIES_START}\nx\n${MEMORIES_END}\n`);
      assert.equal(withSection(once, ['x']), null, 'idempotent');
      assert.equal(withSection(once, ['y']), `# A\n\n${MEMORIES_START}\ny\n${MEMORIES_END}\n`);
      assert.deepEqual(parseExportTargets('agents, copilot,agents_md'), { targets: ['agents_md', 'copilot_instructions'], unknown: [] });
      assert.deepEqual(parseExportTargets('agents,claude').unknown, ['claude']);
    });

    it('CLI: --export-memories agents writes AGENTS.md; an unknown target is a usage error', async function () {
      this.timeout(120_000);
      engine.close();
      const cli = (...args: string[]) => run(process.execPath, ['-r', 'tsx/cjs', join(ROOT, 'src/bin/sightline.ts'), 'memory', ...args, '--workspace', ws.root, '--db', ws.db], { cwd: ROOT });
      await cli('add', 'imports stay at the top', '--path', 'src/users.ts', '--lines', '1-1', '--export-memories', 'agents');
      assert.match(readFileSync(agentsPath(), 'utf8'), /- `src\/users\.ts:1` — imports stay at the top/);
      assert.ok(!existsSync(copilotPath()));
      await assert.rejects(cli('list', '--export-memories', 'nope'), (e: { code: number; stderr: string }) => e.code === 2 && /unknown --export-memories/.test(e.stderr));
      mkdirSync(join(ws.root, '.github'), { recursive: true });
      await open();
    });
  });
});
