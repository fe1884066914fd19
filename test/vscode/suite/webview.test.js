// The webviews in the real workbench: the impact graph and the memory editor. Their pages are iframes
// out of the extension host's reach, so each test asks the harness (run.mjs → webview-probe.mjs) to look
// inside with a `[sightline-webview]` line and reads its answer back from $SIGHTLINE_VSCODE_WEBVIEW_RESULTS.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { until, indexedApi, sp } = require('./helpers');



let seq = 0;
/** Asks the harness to run a webview scenario; resolves with its JSON answer. */
async function inspect(scenario, extra = {}) {
  const dir = process.env.SIGHTLINE_VSCODE_WEBVIEW_RESULTS;
  assert.ok(dir, 'SIGHTLINE_VSCODE_WEBVIEW_RESULTS is set by test/vscode/run.mjs');
  const id = `${scenario}-${process.pid}-${++seq}`;
  console.log(`[sightline-webview] ${JSON.stringify({ id, scenario, ...extra })}`);
  const file = path.join(dir, `${id}.json`);
  await until(`the harness's answer ${file}`, () => fs.existsSync(file), 90000);
  const res = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.ok(!res.error, `the harness failed: ${res.error}`);
  return res;
}

/** No CSP violation and no console error from a webview frame. */
function assertClean(res) {
  assert.deepEqual(res.csp, [], `CSP violations: ${JSON.stringify(res.csp)}`);
  const csp = res.consoleErrors.filter(m => /Content Security Policy/i.test(m.text));
  assert.deepEqual(csp, [], `CSP console messages: ${JSON.stringify(csp)}`);
  const errors = res.consoleErrors.filter(m => m.type === 'error' || m.type === 'pageerror');
  assert.deepEqual(errors, [], `webview console errors: ${JSON.stringify(errors)}`);
}

const tools = () => require(path.join(process.env.SIGHTLINE_VSCODE_REPO, 'dist', 'core.js')).TOOL_NAMES;

describe('webview', function () {
  this.timeout(180000);
  let api;
  let root;

  before(async () => {
    api = await indexedApi();
    root = vscode.workspace.workspaceFolders[0].uri.fsPath;
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('webview: the impact graph renders under the CSP, and the keyboard alone opens a dependent', async () => {
    const orders = vscode.Uri.file(path.join(root, 'src', 'orders.ts'));
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(orders), { preview: false });
    const r = await vscode.commands.executeCommand('sightline.showImpact', 'placeOrder', 'src/orders.ts');
    assert.equal(sp(r.resolved[0]), 'placeOrder');
    assert.ok(r.affected.length > 0, 'placeOrder has dependents in the fixture');
    await until('the impact panel', () => vscode.window.tabGroups.all.flatMap(g => g.tabs).find(t => t.label === 'Sightline: Impact'), 10000);
    // Focus somewhere else first: the file the keyboard opens must come from the webview.
    await vscode.window.showTextDocument(orders, { viewColumn: vscode.ViewColumn.One });
    await vscode.commands.executeCommand('workbench.action.closeSidebar'); // room for the picture
    await vscode.commands.executeCommand('workbench.action.closePanel');
    const res = await inspect('impact', { screenshot: 'impact-webview.png', waitFor: 'placeOrder' });

    assert.equal(res.target, 1, 'one target node');
    assert.match(res.targetLabel, /placeOrder/);
    assert.equal(res.nodes, 1 + r.affected.length, 'a node per dependent (default filters keep all)');
    assert.ok(res.edges >= r.affected.length, `an edge per dependent (${res.edges})`);
    assert.equal(res.graphRole, 'graphics-document');
    assert.equal(res.labelled, res.nodes, 'every node has a role and an aria-label');
    assert.equal(res.focusable, 1, 'one node in the tab order (roving tabindex)');
    assert.equal(res.inlineStyles, 0, 'no inline style (the CSP allows none)');
    assert.equal(res.tableRows, r.affected.length);
    assert.deepEqual(res.filters, ['f-depth', 'f-confidence', 'f-name-only', 'f-exact']);
    assert.match(res.completeness, r.complete ? /complete/ : /lower bound, not "no impact"/);
    assertClean(res);

    // Keyboard: Tab from the filters reaches the graph at the target; ArrowRight goes to a direct dependent.
    assert.ok(res.tabsToGraph >= 1, 'the graph is reached with Tab');
    assert.equal(res.focusedFirst.key, r.resolved[0].id, 'Tab lands on the target');
    assert.ok(res.focusRing && res.focusRing !== 'none', `a visible focus ring (${res.focusRing})`);
    assert.equal(res.afterRight.col, '1', `ArrowRight moves to distance 1 (${JSON.stringify(res.afterRight)})`);
    const direct = r.affected.filter(a => a.distance === 1);
    assert.ok(direct.some(a => a.node.id === res.afterRight.key), `${res.afterRight.key} is a direct dependent`);
    assert.equal(res.afterUp.col, '1', 'up and down stay in the column');
    assert.equal(res.refocused.key, res.afterUp.key, 'Tab back into the graph returns to the last focused node');
    const want = path.join(root, res.opened.path);
    const editor = await until(`Enter to open ${res.opened.path}`, () => {
      const e = vscode.window.activeTextEditor;
      return e && e.document.uri.fsPath === want ? e : undefined;
    }, 15000);
    const node = r.affected.find(a => a.node.id === res.opened.key).node;
    assert.equal(editor.selection.active.line, node.line - 1, 'opened at the dependent\'s line');

    // Exact-only (toggled with Space) leaves no best-effort or name-only node; unchecking restores all.
    assert.equal(res.exactOnly.notExact, 0);
    assert.equal(res.exactOnly.nodes, 1 + r.affected.filter(a => a.resolution === 'exact' && !a.name_only).length);
    assert.equal(res.nodesAfterReset, res.nodes);
    console.log(`impact webview: ${res.nodes} nodes, ${res.edges} edges (${res.edgeStyles.join(', ')}); ${res.tabsToGraph} Tab(s) to the graph; opened ${res.opened.path}`);
  });

  it('webview: the memory editor shows a memory and says what a save did', async () => {
    const text = 'Amounts stay in **integer cents**; build them with `money()` only.\n\n- never store floats\n- round once, at the end';
    const added = await api.call('memory_add', { text, anchor_kind: 'symbol', path: 'src/money.ts', symbol: 'money', source: 'human' });
    assert.ok(added.ok, JSON.stringify(added.error));
    const id = added.data.memory.id;
    const shown = await vscode.commands.executeCommand('sightline.editMemory', id);
    assert.equal(shown && shown.id, id, 'editMemory returns the memory it shows');
    await until('the memory panel', () => vscode.window.tabGroups.all.flatMap(g => g.tabs).find(t => t.label === 'Sightline: Memory'), 10000);
    const res = await inspect('memory', { screenshot: 'memory-editor.png', append: ' (edited)', waitFor: id });

    assert.equal(res.badge, added.data.memory.status);
    assert.match(res.anchor, /src\/money\.ts:\d+(-\d+)? · symbol money/);
    assert.match(res.preview, /<strong>integer cents<\/strong>/);
    assert.match(res.preview, /<code>money\(\)<\/code>/);
    assert.match(res.preview, /<ul><li>never store floats<\/li><li>round once, at the end<\/li><\/ul>/);
    assert.equal(res.text, text);
    assert.deepEqual(res.buttons, ['Save', 'Re-anchor', 'Open anchor', 'Delete']);
    assert.equal(res.inlineStyles, 0);
    assert.equal(res.tabbedTo.id, 'm-save', 'Tab from the text goes to Save');
    assertClean(res);

    const list = async () => (await api.call('memory_list', { path: 'src/money.ts', limit: 100 })).data.memories;
    if (tools().includes('memory_update')) {
      assert.equal(res.status.cls, 'ok', res.status.text);
      assert.ok((await list()).some(m => m.text === `${text} (edited)`), 'the saved text is stored');
    } else {
      // This engine has no memory_update tool: the panel says so instead of pretending it saved.
      assert.equal(res.status.cls, 'warn');
      assert.match(res.status.text, /Cannot save the memory: this Sightline engine has no memory_update tool/);
      assert.ok((await list()).some(m => m.id === id && m.text === text), 'nothing changed');
    }
  });

  it('webview: Delete in the memory editor asks first (in the page), then deletes', async () => {
    const added = await api.call('memory_add', { text: 'Inventory reservations are released on any failure.', anchor_kind: 'symbol', path: 'src/inventory.ts', symbol: 'Inventory.release' });
    assert.ok(added.ok, JSON.stringify(added.error));
    const id = added.data.memory.id;
    await vscode.commands.executeCommand('sightline.editMemory', id);
    const res = await inspect('memory-delete', { waitFor: id });
    assert.equal(res.armed.button, 'Confirm delete');
    assert.match(res.armed.status, /Delete this memory for good\?/);
    assert.equal(res.disarmed.button, 'Delete', 'Escape keeps the memory');
    assert.equal(res.deleted.title, 'Memory deleted');
    assert.equal(res.deleted.status, `${id} was deleted.`);
    const left = (await api.call('memory_list', { path: 'src/inventory.ts', limit: 100 })).data.memories;
    assert.ok(!left.some(m => m.id === id), 'the memory is gone');
    assert.equal(await vscode.commands.executeCommand('sightline.editMemory', id), undefined, 'a deleted memory is not found');
  });
});
