// Project memories and the sidebar views in a real VS Code: memories added from the editor, shown in the
// Memories view, CodeLens and hovers, turning relocated / stale / gone as the code moves or goes, the
// Impact view following the cursor, the Index view, and unsaved buffers. Runs in the extension host.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { until, indexedApi, sp } = require('./helpers');



const LEDGER = `/** Ledger totals: rounded once, at the end. */
export function roundTotal(values: number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return Math.round(sum * 100) / 100;
}

export function describeTotal(values: number[]): string {
  const total = roundTotal(values);
  return \`total \${total}\`;
}
`;

describe('Sightline memories and views in VS Code', function () {
  this.timeout(180000);
  let api;
  let root;
  let file;
  let uri;

  const group = status => (api.views.memories.snapshot().find(g => g.status === status) || { items: [] }).items;
  const statusOf = id => { const m = api.memories.all.find(x => x.id === id); return m && m.status; };
  const reindexed = async () => { await vscode.commands.executeCommand('sightline.reindex'); await api.memories.refresh(); };

  before(async () => {
    api = await indexedApi();
    root = vscode.workspace.workspaceFolders[0].uri.fsPath;
    file = path.join(root, 'src', 'ledger.ts');
    uri = vscode.Uri.file(file);
    fs.writeFileSync(file, LEDGER);
    await until('ledger.ts indexed', async () => {
      const r = await api.call('search_code', { query: 'roundTotal', limit: 3 });
      return r.ok && r.data.files.some(f => f.path === 'src/ledger.ts');
    }, 60000, 500);
  });

  let symbolMemory;
  let spanMemory;

  it('adds memories for the symbol at the cursor and for a selection; the Memories view, CodeLens and hover show them', async () => {
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: false });
    editor.selection = new vscode.Selection(3, 4, 3, 4); // inside roundTotal
    const added = await vscode.commands.executeCommand('sightline.addMemoryForSymbol', 'Totals are rounded once, at the end: finance reconciles against this.');
    assert.ok(added && added.added, JSON.stringify(added));
    symbolMemory = added.memory;
    assert.equal(symbolMemory.anchor_kind, 'symbol');
    assert.equal(symbolMemory.anchor_id, 'roundTotal');
    assert.equal(symbolMemory.start_line, 2);

    editor.selection = new vscode.Selection(8, 0, 10, 0); // the two body lines of describeTotal
    const span = await vscode.commands.executeCommand('sightline.addMemoryForSelection', 'The label format is parsed by the nightly report.');
    assert.ok(span && span.added, JSON.stringify(span));
    spanMemory = span.memory;
    assert.deepEqual([spanMemory.start_line, spanMemory.end_line], [9, 10]);

    // adding the same again is reported, not duplicated
    editor.selection = new vscode.Selection(3, 4, 3, 4);
    const again = await vscode.commands.executeCommand('sightline.addMemoryForSymbol', 'Totals are rounded once, at the end: finance reconciles against this.');
    assert.equal(again.added, false);

    const current = group('current').map(i => i.id);
    assert.ok(current.includes(symbolMemory.id) && current.includes(spanMemory.id), JSON.stringify(api.views.memories.snapshot()));
    assert.equal(api.views.memories.view.badge, undefined, 'no badge while nothing is stale or gone');

    const lenses = await vscode.commands.executeCommand('vscode.executeCodeLensProvider', uri);
    const titles = lenses.map(l => l.command && l.command.title).filter(Boolean);
    assert.ok(titles.some(t => /Totals are rounded once/.test(t)), JSON.stringify(titles));
    assert.ok(lenses.some(l => l.range.start.line === 1 && /rounded once/.test(l.command.title)), 'lens on the line of roundTotal');
    const hovers = await vscode.commands.executeCommand('vscode.executeHoverProvider', uri, new vscode.Position(9, 4));
    const hoverText = hovers.flatMap(h => h.contents.map(c => c.value || String(c))).join('\n');
    assert.match(hoverText, /parsed by the nightly report/);
  });

  it('memories follow the code: a symbol that moved is current at its new lines; a span is relocated, current again after re-anchoring', async () => {
    const doc = await vscode.workspace.openTextDocument(uri);
    const edit = new vscode.WorkspaceEdit();
    edit.insert(uri, new vscode.Position(0, 0), 'import { strict } from "assert";\n\n// helpers\nexport const LEDGER_VERSION = 2;\n\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.ok(await doc.save());
    await reindexed();
    await until('the span relocated, the symbol followed', async () => {
      await api.memories.refresh();
      return statusOf(symbolMemory.id) === 'current' && statusOf(spanMemory.id) === 'relocated' && api.memories.all.find(m => m.id === symbolMemory.id).start_line === 7;
    }, 30000, 500);
    const moved = api.memories.all.find(m => m.id === spanMemory.id);
    assert.deepEqual([moved.start_line, moved.end_line], [14, 15]);
    assert.ok(group('relocated').some(i => i.id === spanMemory.id));
    // the lens moved with it
    const lenses = await vscode.commands.executeCommand('vscode.executeCodeLensProvider', uri);
    assert.ok(lenses.some(l => l.range.start.line === 13 && /nightly report/.test(l.command.title)), JSON.stringify(lenses.map(l => [l.range.start.line, l.command && l.command.title])));

    const r = await vscode.commands.executeCommand('sightline.reanchorMemory', spanMemory.id);
    assert.ok(r && !r.code, JSON.stringify(r));
    assert.equal(statusOf(spanMemory.id), 'current');
  });

  it('an edit inside the anchored code is flagged in the view, the lens and the hover; "still holds" clears it', async () => {
    const doc = await vscode.workspace.openTextDocument(uri);
    const body = doc.getText().split('\n').findIndex(l => l.includes('function roundTotal'));
    const edit = new vscode.WorkspaceEdit();
    edit.insert(uri, new vscode.Position(body + 1, 0), '  if (!Number.isFinite(total)) return 0;\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.ok(await doc.save());
    await reindexed();
    const changed = () => api.memories.all.find(m => m.id === symbolMemory.id);
    await until('the symbol memory flagged as on changed code', async () => { await api.memories.refresh(); return changed() && changed().code_change; }, 30000, 500);
    assert.equal(changed().status, 'current', 'the anchor resolves: the status says where, the flag says it changed');
    const row = group('current').find(i => i.id === symbolMemory.id);
    assert.match(row.description, /code changed since \d{4}-\d\d-\d\d \(\+1 lines\)/);
    const lenses = await vscode.commands.executeCommand('vscode.executeCodeLensProvider', uri);
    assert.ok(lenses.some(l => /code changed: Totals are rounded once/.test(l.command.title)), JSON.stringify(lenses.map(l => l.command && l.command.title)));
    const hovers = await vscode.commands.executeCommand('vscode.executeHoverProvider', uri, new vscode.Position(body + 1, 4));
    const hoverText = hovers.flatMap(h => h.contents.map(c => c.value || String(c))).join('\n');
    assert.match(hoverText, /Still holds\]\(command:sightline\.confirmMemory/);
    const r = await vscode.commands.executeCommand('sightline.confirmMemory', symbolMemory.id);
    assert.ok(r && !r.code, JSON.stringify(r));
    assert.equal(changed().code_change, null);
    assert.doesNotMatch(group('current').find(i => i.id === symbolMemory.id).description, /code changed/);
  });

  it('a memory turns stale when its code is deleted and gone when its file is; the view shows them first, with a badge', async () => {
    const doc = await vscode.workspace.openTextDocument(uri);
    const text = doc.getText();
    const start = text.indexOf('export function roundTotal');
    const end = text.indexOf('export function describeTotal');
    const edit = new vscode.WorkspaceEdit();
    // the definition is rewritten under another name: the symbol no longer resolves, its code is not found
    edit.replace(uri, new vscode.Range(doc.positionAt(start), doc.positionAt(end)), 'function countValues(values: number[]): number { return values.length; }\n\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.ok(await doc.save());
    await reindexed();
    await until('the symbol memory stale', async () => { await api.memories.refresh(); return statusOf(symbolMemory.id) === 'stale'; }, 30000, 500);
    const snap = api.views.memories.snapshot();
    assert.equal(snap[0].status, 'stale', `stale first: ${JSON.stringify(snap.map(g => g.status))}`);
    assert.equal(api.views.memories.view.badge && api.views.memories.view.badge.value, 1);
    const hovers = await vscode.commands.executeCommand('vscode.executeHoverProvider', uri, new vscode.Position((api.memories.all.find(m => m.id === symbolMemory.id).start_line || 1) - 1, 2));
    assert.match(hovers.flatMap(h => h.contents.map(c => c.value || String(c))).join('\n'), /stale/);

    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(file);
    await reindexed();
    await until('both memories gone', async () => { await api.memories.refresh(); return statusOf(symbolMemory.id) === 'gone' && statusOf(spanMemory.id) === 'gone'; }, 30000, 500);
    assert.equal(api.views.memories.snapshot()[0].status, 'gone');
    assert.equal(api.views.memories.view.badge.value, 2);

    // delete from the view's command (confirmed programmatically)
    await vscode.commands.executeCommand('sightline.deleteMemory', spanMemory.id, true);
    assert.equal(statusOf(spanMemory.id), undefined);
    assert.equal(api.views.memories.view.badge.value, 1);
    await vscode.commands.executeCommand('sightline.deleteMemory', symbolMemory.id, true);
  });

  it('the Impact view follows the cursor: the definition around it, direct callers, tests, exact or best effort', async () => {
    await vscode.commands.executeCommand('sightline.impact.focus');
    const orders = vscode.Uri.file(path.join(root, 'src', 'orders.ts'));
    const doc = await vscode.workspace.openTextDocument(orders);
    const line = doc.getText().split('\n').findIndex(l => l.includes('return order.lines.reduce'));
    const editor = await vscode.window.showTextDocument(doc, { preview: false });
    editor.selection = new vscode.Selection(line, 6, line, 6);
    const d = await api.views.impact.showAtCursor();
    assert.ok(d, JSON.stringify(api.views.impact.snapshot()));
    assert.equal(sp(d.resolved[0]), 'orderTotal');
    const snap = api.views.impact.snapshot();
    assert.equal(snap[0].label, 'orderTotal');
    assert.match(snap[0].description, /dependent.* · (complete|lower bound)/);
    const direct = snap.find(n => n.label === 'Direct callers and referrers');
    assert.ok(direct.children.some(c => c.label === 'placeOrder' && /^src\/orders\.ts:\d+ · (exact|best effort|name only)$/.test(c.description)), JSON.stringify(direct));
    assert.ok(snap.some(n => n.label === 'Open impact graph'));
  });

  it('the Index view shows per-root status, counts, language-server coverage, the last run and diagnostics', async () => {
    await api.views.status.refresh();
    const snap = api.views.status.snapshot();
    const rootNode = snap.find(n => n.label === path.basename(root));
    assert.ok(rootNode, JSON.stringify(snap));
    const labels = rootNode.children.map(c => c.label);
    for (const l of ['Status', 'Files', 'Chunks', 'Symbols', 'Language servers', 'Last run']) assert.ok(labels.includes(l), `${l} in ${labels}`);
    assert.ok(snap.some(n => n.label === 'Languages') && snap.some(n => n.label === 'Diagnostics'));
  });

  it('answers about a file with unsaved changes say that they reflect the saved file', async () => {
    const main = vscode.Uri.file(path.join(root, 'src', 'inventory.ts'));
    const doc = await vscode.workspace.openTextDocument(main);
    await vscode.window.showTextDocument(doc);
    const edit = new vscode.WorkspaceEdit();
    edit.insert(main, new vscode.Position(0, 0), '// work in progress\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.ok(doc.isDirty);
    await api.unsaved.send();
    assert.deepEqual(api.unsaved.acknowledged, ['src/inventory.ts']);
    // the MCP server VS Code starts from our listing reads the same list from this file
    assert.deepEqual(JSON.parse(fs.readFileSync(api.unsaved.file, 'utf8')).paths, [main.fsPath]);
    const r = await api.call('search_code', { query: 'reserve release stock', path: 'src/inventory.ts', limit: 3 });
    assert.match(r.markdown, /unsaved editor changes in `src\/inventory\.ts`: this answer reflects the saved file/);
    await vscode.commands.executeCommand('workbench.action.files.revert');
    assert.ok(!doc.isDirty);
    await api.unsaved.send();
    assert.deepEqual(JSON.parse(fs.readFileSync(api.unsaved.file, 'utf8')).paths, []);
    const after = await api.call('search_code', { query: 'reserve release stock', path: 'src/inventory.ts', limit: 3 });
    assert.doesNotMatch(after.markdown, /unsaved editor changes/);
  });
});
