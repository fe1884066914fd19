// Phase `vsix`: Sightline installed from its packaged .vsix (not from this repository) activates,
// indexes the workspace and answers a language-model tool call.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');

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
    const res = await vscode.lm.invokeTool('sightline_search_code', { input: { query: 'orderTotal', limit: 3 }, toolInvocationToken: undefined });
    const text = res.content.map(p => p.value || '').join('');
    assert.match(text, /src\/orders\.ts/);
    // The webviews ship built: their scripts and style sheets are in the package, and the impact panel opens.
    for (const f of ['impact.js', 'memory.js', 'base.css', 'impact.css', 'memory.css']) assert.ok(fs.existsSync(path.join(ext.extensionPath, 'dist', 'webview', f)), `dist/webview/${f} is packaged`);
    const impact = await vscode.commands.executeCommand('sightline.showImpact', 'placeOrder', 'src/orders.ts');
    assert.equal(impact.resolved[0].symbol_path, 'placeOrder');
    console.log(`vsix: installed at ${path.basename(ext.extensionPath)}, activation ${ext.exports.activationMs} ms`);
  });
});
