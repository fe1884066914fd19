// Phase `vsix`: Sightline installed from its packaged .vsix (not from this repository) activates,
// indexes the workspace and answers a language-model tool call. The workspace opens with
// sightline.index.importFrom set (test/vscode/all.mjs): a prebuilt index exported from another copy in which one
// file differs is adopted, so the first index parses only that file.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { sp } = require('./helpers');

describe('the packaged extension', function () {
  this.timeout(120000);
  it('installs from the .vsix, activates and answers', async () => {
    const ext = vscode.extensions.getExtension('sightline.sightline');
    assert.ok(ext, 'installed extension not found');
    const repo = process.env.SIGHTLINE_VSCODE_REPO;
    assert.ok(!ext.extensionPath.startsWith(repo), `loaded from ${ext.extensionPath}, expected the installed copy`);
    const end = Date.now() + 60000;
    while (!ext.isActive && Date.now() < end) await new Promise(r => setTimeout(r, 200));
    assert.ok(ext.isActive);
    await ext.exports.whenIndexed();
    const importFrom = vscode.workspace.getConfiguration('sightline').get('index.importFrom');
    assert.ok(importFrom && fs.existsSync(importFrom), `sightline.index.importFrom names the artifact (run this phase through test/vscode/all.mjs): ${importFrom}`);
    const first = ext.exports.scheduler.snapshot.lastReport;
    const status = await ext.exports.call('index_status', {});
    assert.ok(status.data.file_count > 5, `${status.data.file_count} files indexed`);
    assert.ok(first.totals.files_parsed <= 1, `the first index after adopting the artifact parsed ${first.totals.files_parsed} of ${status.data.file_count} files`);
    // The file that differs from the artifact's copy was parsed again: its CI-only function is gone.
    const ci = await ext.exports.call('search_code', { query: 'onlyInTheCiCheckout', limit: 3, group: 'chunk' });
    assert.ok(ci.ok && !ci.data.results.some(h => h.symbol_path === 'onlyInTheCiCheckout'), JSON.stringify(ci.data.results.slice(0, 2)));
    const res = await vscode.lm.invokeTool('sightline_search_code', { input: { query: 'orderTotal', limit: 3 }, toolInvocationToken: undefined });
    const text = res.content.map(p => p.value || '').join('');
    assert.match(text, /src\/orders\.ts/);
    // The webviews ship built: their scripts and style sheets are in the package, and the impact panel opens.
    for (const f of ['impact.js', 'memory.js', 'base.css', 'impact.css', 'memory.css']) assert.ok(fs.existsSync(path.join(ext.extensionPath, 'dist', 'webview', f)), `dist/webview/${f} is packaged`);
    const impact = await vscode.commands.executeCommand('sightline.showImpact', 'placeOrder', 'src/orders.ts');
    assert.equal(sp(impact.resolved[0]), 'placeOrder');
    console.log(`vsix: installed at ${path.basename(ext.extensionPath)}, activation ${ext.exports.activationMs} ms; after the import ${first.totals.files_parsed} of ${status.data.file_count} files parsed`);
  });
});
