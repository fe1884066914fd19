/**
 * Fresh answers in a long-lived engine: targeted runs over named paths (no walk), the deferred save, the
 * file watcher of the MCP server, and every index run of an engine serialised.
 */
import { strict as assert } from 'node:assert';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Engine } from '../src/core/engine';
import { invokeTool } from '../src/core/tools/contract';
import { TOOLS } from '../src/core/tools/registry';
import { diskStamp } from '../src/core/store/pagelog';
import { inspectLock } from '../src/core/store/persist';
import { GraphTablesCache } from '../src/core/pipeline/phases/graph';
import { EMPTIED_WAIT_MS } from '../src/core/services/live';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';
import { requireBuilt, stdioTransport } from './helpers/mcp';
import { forcedCollections } from './helpers/gc';

const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));
const FILES: Record<string, string> = {
  '.gitignore': 'generated/\n',
  'src/alpha.py': 'def alpha():\n    return 1\n',
  'src/beta.py': 'from src.alpha import alpha\n\ndef beta():\n    return alpha()\n',
  'lib/gamma.py': 'def gamma():\n    return 3\n',
  'lib/delta.py': 'def delta():\n    return 4\n',
};

describe('live index', () => {
  const cleanup: (() => void | Promise<void>)[] = [];
  afterEach(async () => { while (cleanup.length) await cleanup.pop()!(); });
  const make = () => { const ws = tempWorkspace(FILES); cleanup.push(ws.remove); return ws; };
  // cleanup pops: an engine opened after its workspace was made is closed before the workspace is removed
  const open = async (ws: TempWorkspace) => {
    const e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    cleanup.push(() => e.close());
    return e;
  };
  /** whether search_code lists `path` for `query` (its files, not the echoed query) */
  const finds = async (e: Engine, query: string, path: string) => {
    const out = await invokeTool(TOOLS.search_code, { query }, { engine: e });
    assert.ok(out.ok, JSON.stringify(out));
    const data = out.data as { files?: { path: string }[]; results?: { path: string }[] };
    return [...(data.files ?? []), ...(data.results ?? [])].some(f => f.path === path);
  };

  it('named paths are looked at alone: a file not named is not picked up (no walk); deletions, folders and ignores follow the walk\'s rules', async () => {
    const ws = make();
    const e = await open(ws);
    await e.index();
    ws.write('src/alpha.py', 'def alpha_renamed_fn():\n    return 1\n');
    ws.write('src/unnamed.py', 'def never_named_fn():\n    return 0\n');
    ws.write('generated/out.py', 'def generated_fn():\n    return 0\n');
    rmSync(join(ws.root, 'lib'), { recursive: true });
    const r = await e.index({ paths: [join(ws.root, 'src/alpha.py'), 'generated/out.py', join(ws.root, 'lib')] });
    assert.equal(r.totals.files_parsed, 1);
    assert.equal(r.totals.files_deleted, 2, 'both files of the deleted folder');
    assert.equal(r.totals.files_seen, 3, 'counted as a walk would: .gitignore, src/alpha.py and src/beta.py (the unnamed file is not looked at)');
    assert.ok(await finds(e, 'alpha_renamed_fn', 'src/alpha.py'));
    assert.ok(!(await finds(e, 'never_named_fn', 'src/unnamed.py')), 'a file nobody named is not found without a walk');
    assert.ok(!(await finds(e, 'generated_fn', 'generated/out.py')), 'an ignored path stays out');
    assert.ok(!(await finds(e, 'gamma', 'lib/gamma.py')));
    // a whole run walks and finds the rest
    const w = await e.index();
    assert.equal(w.totals.files_parsed, 1);
    assert.equal(w.totals.files_seen, 4, '.gitignore, alpha, beta and the unnamed file');
    assert.ok(await finds(e, 'never_named_fn', 'src/unnamed.py'));
  });

  it('a file that became a link out of the workspace is applied as a removal, said once, not retried forever', async () => {
    const ws = make();
    const e = await open(ws);
    await e.index();
    const outside = tempWorkspace({ 'secret.py': 'def outside_secret_fn():\n    return 0\n' }, 'outside'); cleanup.push(outside.remove);
    rmSync(join(ws.root, 'lib/gamma.py'));
    symlinkSync(join(outside.root, 'secret.py'), join(ws.root, 'lib/gamma.py'));
    const r = await e.index({ paths: [join(ws.root, 'lib/gamma.py')] });
    assert.equal(r.totals.files_deleted, 1, 'the indexed file is gone from the index');
    assert.ok(r.diagnostics.some(d => d.path === 'lib/gamma.py' && d.code === 'outside_workspace'), JSON.stringify(r.diagnostics));
    assert.ok(!(await finds(e, 'gamma', 'lib/gamma.py')));
    assert.ok(!(await finds(e, 'outside_secret_fn', 'lib/gamma.py')), 'nothing outside the workspace is read');
    const again = await e.index({ paths: [join(ws.root, 'lib/gamma.py')] });
    assert.equal(again.totals.files_deleted, 0, 'applied once');
  });

  it('what search keeps of the index is patched after each targeted run: answers equal a fresh engine\'s on the same index', async () => {
    const ws = make();
    const e = await open(ws);
    await e.index();
    const queries = ['alpha', 'beta returns alpha', 'gamma delta', 'epsilon helper total', 'zeta'];
    const answer = async (eng: Engine, q: string) => {
      const out = await invokeTool(TOOLS.search_code, { query: q, limit: 10 }, { engine: eng });
      assert.ok(out.ok, JSON.stringify(out));
      const { took_ms: _t, ...rest } = out.data as Record<string, unknown>;
      return rest;
    };
    const compare = async (step: string) => {
      const fresh = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
      try { for (const q of queries) assert.deepEqual(await answer(e, q), await answer(fresh, q), `${step}: ${q}`); } finally { fresh.close(); }
    };
    for (const q of queries) await answer(e, q); // the caches are warm before the first edit
    const many = (n: number, word: string) => Array.from({ length: n }, (_, i) => `def ${word}_${i}(x):\n    total = x + ${i}\n    return total\n`).join('\n');
    const steps: [string, () => string[]][] = [
      ['a file grows into many chunks', () => { ws.write('src/alpha.py', `def alpha():\n    return 1\n\n${many(40, 'epsilon_helper')}`); return ['src/alpha.py']; }],
      ['a new file', () => { ws.write('src/zeta.py', `${many(12, 'zeta')}`); return ['src/zeta.py']; }],
      ['a file deleted', () => { rmSync(join(ws.root, 'lib/gamma.py')); return ['lib/gamma.py']; }],
      ['a file shrinks', () => { ws.write('src/alpha.py', 'def alpha():\n    return 2\n'); return ['src/alpha.py']; }],
      ['two files at once', () => { ws.write('lib/delta.py', `${many(5, 'delta_total')}`); ws.write('src/zeta.py', 'def zeta():\n    return 0\n'); return ['lib/delta.py', 'src/zeta.py']; }],
    ];
    for (const [step, edit] of steps) {
      const paths = edit().map(p => join(ws.root, p));
      await e.index({ paths });
      await compare(step);
    }
  });

  it('the resolver tables are dropped after a quiet spell, except in a live engine, which keeps them for the next edit', async () => {
    const store = {} as never; let trimmed = 0; const tables = { trimMemos: () => { trimmed++; } } as never;
    const quiet = new GraphTablesCache(30);
    quiet.set('r', store, tables); quiet.touch();
    assert.ok(quiet.get('r', store));
    await sleep(80);
    assert.equal(quiet.get('r', store), undefined);
    const live = new GraphTablesCache(30);
    live.set('r', store, tables); live.touch(); live.keepWhileLive(); live.touch();
    await sleep(80);
    assert.ok(live.get('r', store));
    assert.equal(live.get('r', {} as never), undefined, 'tables of another index file are not served');
    assert.equal(trimmed, 2, 'tables are kept without what building them memoised');
  });

  it('an engine prepared for edits before its first index (the editor\'s, on a new workspace) prepares again once that index is done', async () => {
    const ws = make();
    const e = await open(ws);
    await e.live.prepare(); // nothing indexed yet: no file to warm the parse path on
    assert.equal(e.live.stats.parse_warmed, false);
    await e.index();
    await e.live.settle();
    for (let i = 0; i < 50 && !e.live.stats.parse_warmed; i++) await sleep(20);
    assert.equal(e.live.stats.parse_warmed, true);
    // and the search path: the table of files answers read is built before the first question
    for (let i = 0; i < 50 && !e['reads']['fileIndexCache']; i++) await sleep(20);
    assert.ok(e['reads']['fileIndexCache'], 'prepared: the file table of search answers is built');
    ws.write('src/alpha.py', 'def alpha():\n    return 2  # warmed_edit_word\n');
    e.live.notify([join(ws.root, 'src/alpha.py')]);
    await e.live.settle();
    assert.ok(await finds(e, 'warmed_edit_word', 'src/alpha.py'));
  });

  it('a named .gitignore or a new folder makes the run walk; other files\' diagnostics stand', async () => {
    const ws = make();
    ws.write('big.py', `x = 1\n${'# pad\n'.repeat(40_000)}`);
    const e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0, settings: { max_file_bytes: 100_000 } });
    cleanup.push(() => e.close());
    await e.index();
    const before = e.diagnostics().filter(d => d.code === 'too_large').map(d => d.path);
    assert.deepEqual(before, ['big.py']);
    ws.write('src/alpha.py', 'def alpha_again():\n    return 1\n');
    await e.index({ paths: ['src/alpha.py'] });
    assert.deepEqual(e.diagnostics().filter(d => d.code === 'too_large').map(d => d.path), ['big.py'], 'kept: big.py was not named');
    writeFileSync(join(ws.root, '.gitignore'), 'generated/\nsrc/\n');
    const r = await e.index({ paths: ['.gitignore'] });
    assert.ok(r.totals.files_deleted >= 2, 'the walk applied the new rule');
    mkdirSync(join(ws.root, 'newpkg'));
    ws.write('newpkg/n1.py', 'def in_new_folder():\n    return 1\n');
    await e.index({ paths: ['newpkg'] });
    assert.ok(await finds(e, 'in_new_folder', 'newpkg/n1.py'));
  });

  it('a deferred save keeps the answer in memory at once and writes the index file after the burst, holding the lock until then', async () => {
    const ws = make();
    const e = await open(ws);
    await e.index();
    const stamp = diskStamp(ws.db);
    ws.write('src/beta.py', 'def beta_deferred():\n    return 2\n');
    await e.index({ paths: ['src/beta.py'], deferSaveMs: 300 });
    assert.ok(await finds(e, 'beta_deferred', 'src/beta.py'), 'answers reflect the edit before it is saved');
    assert.equal(diskStamp(ws.db), stamp, 'not saved yet');
    assert.ok(inspectLock(`${ws.db}.lock`)?.this_process, 'the writer lock is held for the pending save');
    // another run before the save keeps it pending and still saves once; a save of a few files forces no
    // full garbage collection (in a long-lived engine at millions of lines one paused it for 0.7 s)
    const forced = await forcedCollections(async () => {
      ws.write('src/alpha.py', 'def alpha_deferred():\n    return 1\n');
      await e.index({ paths: ['src/alpha.py'], deferSaveMs: 300 });
      await sleep(600);
    });
    assert.equal(forced, 0, 'a small save forced a full garbage collection');
    assert.notEqual(diskStamp(ws.db), stamp, 'saved after the burst');
    assert.equal(inspectLock(`${ws.db}.lock`), null, 'lock released');
    const other = await open(ws);
    assert.ok(await finds(other, 'beta_deferred', 'src/beta.py'));
    assert.ok(await finds(other, 'alpha_deferred', 'src/alpha.py'));
  });

  it('a file emptied a moment ago (truncated, not yet filled) waits: its class neither vanishes nor makes the graph rebuild; a file left empty is applied', async () => {
    const ws = make();
    const shape = 'class Shape:\n    def area(self):\n        return 1\n';
    ws.write('src/shape.py', shape);
    ws.write('src/use.py', 'from src.shape import Shape\n\ndef use():\n    return Shape().area()\n');
    const e = await open(ws);
    await e.index();
    await e.live.prepare();
    const abs = join(ws.root, 'src/shape.py');
    ws.write('src/shape.py', '');
    e.live.notify([abs]);
    await e.live.settle();
    assert.ok(await finds(e, 'Shape', 'src/shape.py'), 'the half-written file was applied');
    ws.write('src/shape.py', `${shape}# filled\n`);
    e.live.notify([abs]);
    await e.live.settle();
    assert.equal(e.live.stats.held_empty, 1);
    assert.equal(e.live.stats.graph_rebuilds, 0, 'a class vanished and came back: the graph was rebuilt');
    // left empty: applied once the wait is over
    ws.write('lib/gamma.py', '');
    e.live.notify([join(ws.root, 'lib/gamma.py')]);
    await e.live.settle();
    assert.ok(await finds(e, 'gamma', 'lib/gamma.py'), 'held back at first');
    await sleep(EMPTIED_WAIT_MS + 150);
    await e.live.settle();
    assert.ok(!(await finds(e, 'gamma', 'lib/gamma.py')), 'an emptied file is applied after the wait');
  });

  it('index runs of one engine are serialised (two at once both succeed), and close() saves a pending change', async () => {
    const ws = make();
    const e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    await e.index();
    ws.write('src/alpha.py', 'def alpha_concurrent():\n    return 1\n');
    const [a, b] = await Promise.all([e.index({ paths: ['src/alpha.py'], deferSaveMs: 60_000 }), e.index()]);
    assert.equal(a.totals.files_parsed + b.totals.files_parsed, 1);
    e.close();
    const again = await open(ws);
    assert.equal((await again.index()).totals.files_parsed, 0, 'the pending save was written on close');
    assert.ok(await finds(again, 'alpha_concurrent', 'src/alpha.py'));
  });

  it('the watcher applies created, edited and deleted files; settle() makes the next answer reflect them; excluded folders are not watched', async function () {
    this.timeout(30_000);
    const ws = make();
    const e = await open(ws);
    await e.index();
    await e.live.watch();
    ws.write('src/alpha.py', 'def alpha_watched():\n    return 1\n');
    ws.write('src/fresh.py', 'def fresh_watched():\n    return 1\n');
    ws.write('node_modules/pkg/index.js', 'function inNodeModules() { return 1 }\n');
    rmSync(join(ws.root, 'lib/gamma.py'));
    const deadline = Date.now() + 10_000;
    let ok = false;
    while (!ok && Date.now() < deadline) {
      await e.live.settle();
      ok = await finds(e, 'alpha_watched', 'src/alpha.py') && await finds(e, 'fresh_watched', 'src/fresh.py') && !(await finds(e, 'gamma', 'lib/gamma.py'));
      if (!ok) await sleep(50);
    }
    assert.ok(ok, 'the watcher applied the three changes');
    assert.ok(!(await finds(e, 'inNodeModules', 'node_modules/pkg/index.js')));
    assert.ok(e.live.stats.runs >= 1 && e.live.stats.failures === 0, JSON.stringify(e.live.stats));
  });

  it('while an index run builds the graph, search answers and graph tools say graph_pending (not complete)', async () => {
    const files: Record<string, string> = { 'core/lib.py': 'def helper():\n    return 1\n' };
    for (let i = 0; i < 150; i++) files[`pkg/m${i}.py`] = `from core.lib import helper\n\ndef use_${i}():\n    return helper() + ${i}\n`;
    const ws = tempWorkspace(files); cleanup.push(ws.remove);
    const e = await open(ws);
    await e.index();
    ws.write('pkg/extra.py', 'from core.lib import helper\n\ndef extra_zebra_fn():\n    return helper()\n'); // a new file: the graph is rebuilt
    for (let i = 0; i < 150; i++) ws.write(`pkg/m${i}.py`, `from core.lib import helper\n\ndef use_${i}():\n    return helper() * ${i}\n`);
    let during: Promise<[unknown, unknown]> | undefined; let before: Promise<unknown> | undefined;
    await e.index({ onProgress: p => {
      // a search as the run starts (what it reads may be kept for later searches: it must not be)
      if (p.phase === 'walk' && !before) before = invokeTool(TOOLS.search_code, { query: 'extra_zebra_fn' }, { engine: e });
      if (p.phase === 'parse' && !during) during = Promise.all([invokeTool(TOOLS.find_references, { symbol: 'helper', kinds: ['calls'] }, { engine: e }), invokeTool(TOOLS.search_code, { query: 'extra_zebra_fn' }, { engine: e })]);
    } });
    assert.ok(during, 'asked while the run was under way');
    const [refs, search] = await during as [{ ok: boolean; data: { complete: boolean; boundaries: { kind: string }[] } }, { ok: boolean; data: { files: { path: string }[] } }];
    assert.ok(refs.ok && refs.data.boundaries.some(b => b.kind === 'graph_pending'), JSON.stringify(refs));
    assert.equal(refs.data.complete, false);
    assert.ok(search.ok && search.data.files.some(f => f.path === 'pkg/extra.py'), `search answered from what the run had written so far: ${JSON.stringify(search.data)}`);
    const after = await invokeTool(TOOLS.find_references, { symbol: 'helper', kinds: ['calls'] }, { engine: e });
    assert.ok(after.ok && !(after.data as { boundaries: { kind: string }[] }).boundaries.some(b => b.kind === 'graph_pending'));
  });

  describe('over MCP (dist/mcp.js, a real client)', function () {
    this.timeout(60_000);
    it('after index_repo, an edit is reflected by the next search_code without another index_repo', async () => {
      requireBuilt();
      const ws = make();
      const { transport, stderr } = stdioTransport(['--workspace', ws.root, '--db', ws.db]);
      const client = new Client({ name: 'live-test', version: '0.0.0' });
      await client.connect(transport);
      cleanup.push(() => client.close());
      const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
      const first = await call('index_repo', {});
      assert.ok(!first.isError, JSON.stringify(first));
      // the watcher is ready once the server says so
      const deadline = Date.now() + 15_000;
      while (!stderr().includes('watching the workspace') && Date.now() < deadline) await sleep(50);
      assert.ok(stderr().includes('watching the workspace'), stderr());
      const t0 = Date.now();
      ws.write('src/beta.py', 'def beta_over_mcp():\n    return 2\n');
      let seen = false;
      while (!seen && Date.now() - t0 < 10_000) {
        const r = await call('search_code', { query: 'beta_over_mcp' });
        seen = JSON.stringify(r.structuredContent).includes('src/beta.py');
      }
      assert.ok(seen, `not reflected: ${stderr()}`);
      // an agent's own edits of one file, each followed at once by its next question: every answer reflects
      // the edit just made (no polling; the watcher alone passes on one change of a file per 50 ms)
      for (let i = 0; i < 6; i++) {
        const word = `agentedit${'abcdef'[i]}word`;
        ws.write('lib/gamma.py', `def ${word}():\n    return ${i}\n`);
        const r = await call('search_code', { query: word });
        assert.ok(JSON.stringify(r.structuredContent).includes('lib/gamma.py'), `edit ${i} not reflected by the next answer: ${stderr()}`);
      }
      // the deferred save lands on disk (a record or, for an index this small, a new snapshot)
      const saved = Date.now() + 10_000;
      const before = diskStamp(ws.db);
      while (diskStamp(ws.db) === before && Date.now() < saved) await sleep(100);
      assert.notEqual(diskStamp(ws.db), before, `saved after the burst: ${stderr()}`);
    });
  });
});
