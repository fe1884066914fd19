// Sightline inside a real VS Code: background index, language-model tools, the MCP server definition,
// freshness after an edit, and the commands. Runs in the extension host (test/vscode/run.mjs).
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { EXTENSION_ID, until, indexedApi, sp } = require('./helpers');

const SOURCE = /\.(ts|tsx|js|mjs|cjs|jsx|py|pyi|java|rs|go|c|h|cc|cpp|hpp|cs|rb|php)$/;
// the fixture's text files (indexed for search as config and data): tsconfig.json, go.mod
const TEXT = /\.(json|mod)$/;


function sourceFiles(dir, rel = '') {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const p = path.join(dir, e.name); const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...sourceFiles(p, r)); else if (SOURCE.test(e.name) || TEXT.test(e.name)) out.push(r);
  }
  return out;
}

const text = result => result.content.map(p => (p && typeof p.value === 'string' ? p.value : '')).join('');

describe('Sightline in VS Code', function () {
  this.timeout(180000);
  let api;
  let root;

  before(async () => {
    api = await indexedApi();
    root = vscode.workspace.workspaceFolders[0].uri.fsPath;
  });

  it('indexes the workspace in the background; index_status counts match the fixture', async () => {
    const r = await api.call('index_status', {});
    assert.ok(r.ok, JSON.stringify(r.error));
    const expected = sourceFiles(root);
    assert.equal(r.data.file_count, expected.length, `indexed ${r.data.file_count}, fixture has ${expected.join(', ')}`);
    const langs = Object.fromEntries(r.data.languages.map(l => [l.language, l.files]));
    assert.equal(langs.typescript, expected.filter(f => f.endsWith('.ts')).length);
    assert.equal(langs.python, expected.filter(f => f.endsWith('.py')).length);
    assert.equal(langs.go, expected.filter(f => f.endsWith('.go')).length);
    assert.equal(langs.json, 1, 'tsconfig.json, a text file');
    assert.ok(r.data.symbol_count > 10);
    console.log(`activation ${api.activationMs} ms; first index: ${JSON.stringify(api.scheduler.snapshot.lastReport && api.scheduler.snapshot.lastReport.timings)}`);
  });

  it('contributes every registry tool as a language-model tool', () => {
    const names = vscode.lm.tools.map(t => t.name);
    const pkg = JSON.parse(fs.readFileSync(path.join(process.env.SIGHTLINE_VSCODE_REPO, 'package.json'), 'utf8'));
    const registry = require(path.join(process.env.SIGHTLINE_VSCODE_REPO, 'dist', 'core.js')).TOOL_NAMES;
    assert.equal(pkg.contributes.languageModelTools.length, registry.length);
    for (const n of pkg.contributes.languageModelTools.map(t => t.name)) {
      assert.ok(names.includes(n), `${n} missing from vscode.lm.tools (${names.filter(x => x.startsWith('sightline')).join(', ')})`);
    }
  });

  it('every tool answers through vscode.lm.invokeTool', async () => {
    const invoke = (name, input, extra = {}) => vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined, ...extra });
    const search = text(await invoke('sightline_search_code', { query: 'place order reserve inventory', limit: 5 }));
    assert.match(search, /src\/orders\.ts/);
    assert.match(search, /placeOrder/);
    const chunkId = /`(chunk:[^`]+placeOrder)`/.exec(search);
    assert.ok(chunkId, search);
    const chunk = text(await invoke('sightline_get_chunk', { chunk_id: chunkId[1] }));
    assert.match(chunk, /export function placeOrder\(order: Order, inventory: Inventory\)/);
    const vec = text(await invoke('sightline_vector_search', { query: 'price tier discount quantity' }));
    assert.match(vec, /python\/pricing\.py/);
    const status = text(await invoke('sightline_index_status', {}));
    assert.match(status, /\*\*index_status\*\* \d+ files/);
    const index = text(await invoke('sightline_index_repo', {}));
    assert.match(index, /\*\*index_repo\*\* done/);
    const bad = text(await invoke('sightline_search_code', { query: 'x', limit: 'ten' }));
    assert.match(bad, /invalid_arguments/);
    const refs = text(await invoke('sightline_find_references', { symbol: 'orderTotal', kinds: ['calls', 'references'] }));
    assert.match(refs, /\*\*find_references\*\* function `orderTotal`/);
    const impact = text(await invoke('sightline_impact', { symbol: 'money', path: 'src/money.ts' }));
    assert.match(impact, /\*\*impact\*\* of function `money`[\s\S]*orderTotal/);
    const map = text(await invoke('sightline_overview', { budget: 1000 }));
    assert.match(map, /\*\*overview\*\* of /);
    assert.match(map, /### Central symbols/);
    const tests = text(await invoke('sightline_related_tests', { symbol: 'placeOrder' }));
    assert.match(tests, /\*\*related_tests\*\* for `placeOrder` — \d+ test\(s\) \(\d+ likely, \d+ possible\)/);
    const ia = text(await invoke('sightline_impact_analysis', { changed_files: ['src/money.ts'] }));
    assert.match(ia, /\*\*impact_analysis\*\* risk (LOW|MEDIUM|HIGH|UNKNOWN)/);
    const ctx = text(await invoke('sightline_expand_context', { chunk_ids: [chunkId[1]] }));
    assert.match(ctx, /\*\*expand_context\*\* \d+ chunk/);
    assert.match(ctx, /placeOrder/);
    // The change loop. The fixture folder is no git repository: history says so instead of "no commits".
    const hist = text(await invoke('sightline_history', { path: 'src/money.ts' }));
    assert.match(hist, /\*\*history\*\* of [\s\S]*(no history — |commit\(s\))/);
    const diff = ['diff --git a/src/money.ts b/src/money.ts', '--- a/src/money.ts', '+++ b/src/money.ts', '@@ -1,1 +1,1 @@', '-x', '+y', ''].join('\n');
    const post = text(await invoke('sightline_post_change_impact', { diff }));
    assert.match(post, /\*\*post_change_impact\*\* risk \*\*\w+\*\*/);
    const cfc = text(await invoke('sightline_context_for_change', { diff }));
    assert.match(cfc, /\*\*context_for_change\*\* — \d+ changed symbol/);
    const pre = text(await invoke('sightline_pre_change_context', { query: 'place order', token_budget: 2000 }));
    assert.match(pre, /\*\*pre_change_context\*\* — \d+ hit/);
    // Project memories (stored in the run folder's XDG data folder, never the index)
    const added = text(await invoke('sightline_memory_add', { text: 'totals are rounded once, at the end', anchor_kind: 'symbol', path: 'src/money.ts', symbol: 'money' }));
    assert.match(added, /\*\*memory_add\*\* (stored|not added)/);
    const listed = text(await invoke('sightline_memory_list', { path: 'src/money.ts' }));
    assert.match(listed, /\*\*memory_list\*\* \d+ memor(y|ies)[\s\S]*totals are rounded once/);
  });

  it('sizes Markdown to the caller\'s token budget', async () => {
    const full = text(await vscode.lm.invokeTool('sightline_search_code', { input: { query: 'order money inventory price', limit: 20 }, toolInvocationToken: undefined }));
    const small = text(await vscode.lm.invokeTool('sightline_search_code', {
      input: { query: 'order money inventory price', limit: 20 }, toolInvocationToken: undefined,
      tokenizationOptions: { tokenBudget: 120, countTokens: async s => Math.ceil(s.length / 4) },
    }));
    assert.ok(small.length < full.length, `budgeted ${small.length} chars vs ${full.length}`);
    // Cut to the budget, and said so: items left out, or the page cut with where to go on.
    assert.match(small, /left out to fit the token budget|Call again with offset=\d+/);
  });

  it('reflects an edit saved through WorkspaceEdit in search_code within the debounce', async () => {
    const uri = vscode.Uri.file(path.join(root, 'src', 'money.ts'));
    const doc = await vscode.workspace.openTextDocument(uri);
    const edit = new vscode.WorkspaceEdit();
    edit.insert(uri, new vscode.Position(doc.lineCount, 0), '\nexport function convertCurrencyWithFreshRates(amount: number): number {\n  return amount * 1.5;\n}\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.ok(await doc.save());
    const t0 = Date.now();
    const hit = await until('the new function in search_code', async () => {
      const r = await api.call('search_code', { query: 'convertCurrencyWithFreshRates', limit: 3, group: 'chunk' });
      return r.ok && r.data.results.find(h => h.symbol_path === 'convertCurrencyWithFreshRates');
    }, 15000, 200);
    assert.equal(hit.path, 'src/money.ts');
    console.log(`edit visible in search after ${Date.now() - t0} ms`);
  });

  it('a saved file is applied by the engine in the background: no tool call, no run of the extension\'s own', async () => {
    const uri = vscode.Uri.file(path.join(root, 'src', 'money.ts'));
    const doc = await vscode.workspace.openTextDocument(uri);
    const line = doc.lineCount + 1;
    const edit = new vscode.WorkspaceEdit();
    edit.insert(uri, new vscode.Position(doc.lineCount, 0), '\nexport function settleBalancesInBackground(amount: number): number {\n  return amount;\n}\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    const runs = api.scheduler.snapshot.runs;
    const t0 = Date.now();
    assert.ok(await doc.save());
    // symbol_at reads the index as it stands (it applies nothing first): the engine took the change by itself
    await until('the engine applied the save', async () => {
      const r = await api.request('sightline/symbol_at', { path: uri.fsPath, line });
      return r.symbol && r.symbol.symbol_path === 'settleBalancesInBackground';
    }, 15000, 20);
    assert.equal(api.scheduler.snapshot.runs, runs, 'the extension ran no index run of its own');
    console.log(`a save applied in the background after ${Date.now() - t0} ms`);
  });

  it('a language-model tool called right after a save answers with the saved edit (no waiting for the debounce)', async () => {
    const uri = vscode.Uri.file(path.join(root, 'src', 'money.ts'));
    const doc = await vscode.workspace.openTextDocument(uri);
    const edit = new vscode.WorkspaceEdit();
    edit.insert(uri, new vscode.Position(doc.lineCount, 0), '\nexport function roundToNearestCentForLedger(amount: number): number {\n  return Math.round(amount * 100) / 100;\n}\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    const t0 = Date.now();
    assert.ok(await doc.save());
    const r = await vscode.lm.invokeTool('sightline_search_code', { input: { query: 'roundToNearestCentForLedger', limit: 3 }, toolInvocationToken: undefined });
    const text = r.content.map(p => p.value ?? '').join('');
    assert.ok(text.split('\n').some(l => l.includes('`roundToNearestCentForLedger`') && !l.startsWith('**search_code**')), text);
    console.log(`edit → visible through the language-model tool: ${Date.now() - t0} ms (save included)`);
  });

  it('commands: status, programmatic search, reindex, copy MCP configuration', async () => {
    const commands = await vscode.commands.getCommands(true);
    for (const c of ['sightline.reindex', 'sightline.showStatus', 'sightline.search', 'sightline.copyMcpConfig', 'sightline.showLog']) assert.ok(commands.includes(c), c);
    const status = await vscode.commands.executeCommand('sightline.showStatus', { silent: true });
    assert.ok(status.file_count > 0);
    const results = await vscode.commands.executeCommand('sightline.search', 'orderTotal');
    assert.equal(results[0].symbol_path, 'orderTotal');
    const snap = await vscode.commands.executeCommand('sightline.reindex');
    assert.equal(snap.phase, 'ready');
    const cfg = JSON.parse(await vscode.commands.executeCommand('sightline.copyMcpConfig'));
    const entry = cfg.mcpServers.sightline;
    assert.equal(entry.command, 'node');
    assert.ok(entry.args[0].endsWith(path.join('dist', 'mcp.js')) && fs.existsSync(entry.args[0]));
    assert.ok(entry.args.includes('--workspace') && entry.args.includes(root));
  });

  it('VS Code starts the Sightline MCP server from our provider; its tools answer like the language-model tools', async () => {
    const lmAnswer = text(await vscode.lm.invokeTool('sightline_search_code', { input: { query: 'orderTotal', limit: 3 }, toolInvocationToken: undefined }));
    const lmChunks = [...lmAnswer.matchAll(/`(chunk:[^`]+)`/g)].map(m => m[1]);
    assert.ok(lmChunks.length >= 3, lmAnswer);
    assert.equal(api.lmToolsEnabled(), true, 'by default VS Code chat gets the language-model tools');
    await vscode.commands.executeCommand('workbench.mcp.startServer', `${EXTENSION_ID}/Sightline`, { waitForLiveTools: true });
    const mcpTool = await until('MCP tools in vscode.lm.tools', () => vscode.lm.tools.find(t => /search_code$/.test(t.name) && t.name !== 'sightline_search_code'), 60000);
    assert.ok(mcpTool.tags.includes('mcp') || /^mcp_/.test(mcpTool.name), `${mcpTool.name} comes from MCP`);
    const mcpAnswer = text(await vscode.lm.invokeTool(mcpTool.name, { input: { query: 'orderTotal', limit: 3 }, toolInvocationToken: undefined }));
    // VS Code hands the model the structured result of an MCP tool with an output schema: the same answer as JSON.
    const data = JSON.parse(mcpAnswer);
    assert.deepEqual(data.files.flatMap(f => f.chunks.map(c => c.chunk_id)), lmChunks);
    assert.equal(data.total, Number(/— (\d+) file/.exec(lmAnswer)[1]));
    // The agent must not see every tool twice: once VS Code runs our server, the language-model tools
    // step aside (their `when` clause reads this context key).
    assert.equal(api.lmToolsEnabled(), false);
    const visible = vscode.lm.tools.filter(t => /search_code$/.test(t.name)).map(t => t.name);
    console.log(`search_code tools in vscode.lm.tools after the MCP start: ${visible.join(', ')}`);
  });

  it('TypeScript language server: references become lsp:typescript edges (exact) that the graph tools return', async () => {
    const before = await api.call('find_references', { symbol: 'Inventory.reserve', kinds: ['calls'] });
    assert.ok(before.ok, JSON.stringify(before.error));
    // not checked yet: the answer says it comes from the heuristic graph
    assert.ok(before.data.boundaries.some(b => b.kind === 'heuristic_only'));
    const outcome = await api.enrich('Inventory.reserve', 'src/inventory.ts');
    assert.equal(outcome, 'recorded');
    const after = await api.call('find_references', { symbol: 'Inventory.reserve', kinds: ['calls'] });
    const lsp = after.data.references.filter(r => r.provider === 'lsp:typescript');
    assert.ok(lsp.some(r => sp(r.from) === 'placeOrder' && r.resolution === 'exact'), JSON.stringify(after.data.references.map(r => [sp(r.from), r.provider])));
    assert.ok(!after.data.boundaries.some(b => b.kind === 'heuristic_only'), JSON.stringify(after.data.boundaries));
    // through the language-model tool too: the symbol the agent asks about is checked on demand
    const text = (await vscode.lm.invokeTool('sightline_impact', { input: { symbol: 'Inventory.reserve' }, toolInvocationToken: undefined })).content.map(p => p.value || '').join('');
    assert.match(text, /lsp:typescript/);
    // outgoing calls: what placeOrder calls, from the call hierarchy
    assert.equal(await api.enrich('placeOrder', 'src/orders.ts'), 'recorded');
    const release = await api.call('find_references', { symbol: 'Inventory.release', kinds: ['calls'] });
    assert.ok(release.data.references.some(r => r.provider === 'lsp:typescript' && sp(r.from) === 'placeOrder'), JSON.stringify(release.data.references.map(r => [sp(r.from), r.provider])));
  });

  it('pyright (a Python language server): references become lsp:python edges', async () => {
    const outcome = await api.enrich('PriceBook.quote', 'python/pricing.py');
    assert.equal(outcome, 'recorded', 'pyright answered for PriceBook.quote');
    const r = await api.call('find_references', { symbol: 'PriceBook.quote', kinds: ['calls', 'references'] });
    const lsp = r.data.references.filter(x => x.provider === 'lsp:python');
    assert.ok(lsp.some(x => sp(x.from) === 'quote_table' && x.confidence === 1), JSON.stringify(r.data.references.map(x => [sp(x.from), x.provider, x.kinds.join("+")])));
  });

  it('shows the impact of a symbol in a webview', async () => {
    const r = await vscode.commands.executeCommand('sightline.showImpact', 'orderTotal');
    assert.equal(sp(r.resolved[0]), 'orderTotal');
    assert.ok(r.affected.some(a => sp(a.node) === 'main' || a.node.path === 'src/main.ts'), JSON.stringify(r.affected.map(a => sp(a.node))));
    const tab = await until('the impact panel', () => vscode.window.tabGroups.all.flatMap(g => g.tabs).find(t => t.label === 'Sightline: Impact'), 10000);
    assert.ok(tab);
  });

  it('shows the Sightline view and status bar item (the README screenshot is taken here)', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('workbench.view.extension.sightline');
    const uri = vscode.Uri.file(path.join(root, 'src', 'orders.ts'));
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: false });
    await vscode.commands.executeCommand('workbench.view.extension.sightline');
    // a memory on placeOrder, and the cursor inside it: the Memories and Impact views have something to show
    const added = await api.call('memory_add', { anchor_kind: 'symbol', path: 'src/orders.ts', symbol: 'placeOrder', source: 'human',
      text: 'All or nothing: a line that cannot be reserved releases the ones before it. Support relies on this.' });
    assert.ok(added.ok, JSON.stringify(added.error));
    await api.memories.refresh();
    const editor = vscode.window.activeTextEditor;
    const line = editor.document.getText().split('\n').findIndex(l => l.includes('inventory.reserve('));
    editor.selection = new vscode.Selection(line, 6, line, 6);
    await vscode.commands.executeCommand('sightline.impact.focus');
    const shown = await api.views.impact.showAtCursor();
    assert.equal(sp(shown.resolved[0]), 'placeOrder');
    // no related test found is said as what it is: a lower bound unless every edge is known
    const testsNode = api.views.impact.getChildren().find(n => n.label === 'Related tests');
    assert.equal(shown.related_tests.length, 0);
    assert.equal(testsNode.children[0].label, shown.complete ? 'none' : 'none found (lower bound)');
    await vscode.commands.executeCommand('sightline.showImpact', 'placeOrder', 'src/orders.ts');
    assert.equal(api.scheduler.snapshot.phase, 'ready');
    await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar').then(undefined, () => undefined); // the chat panel
    await new Promise(r => setTimeout(r, 3000));
    console.log('[sightline-screenshot]');
    await new Promise(r => setTimeout(r, 2500));
  });
});
