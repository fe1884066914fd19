// The extension loads from this repository, activates on its own in the fixture workspace and
// contributes a working command.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');

const EXTENSION_ID = 'sightline.sightline';
const REPO = process.env.SIGHTLINE_VSCODE_REPO || path.resolve(__dirname, '..', '..', '..');

async function until(what, fn, ms = 60000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise(r => setTimeout(r, 250));
  }
}

/** The extension, once its activation event (onStartupFinished) has fired; no one calls activate(). */
async function activeExtension() {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is not loaded`);
  await until(`${EXTENSION_ID} to activate`, () => ext.isActive);
  return ext;
}

describe('activation', function () {
  it('activates on startup, from this repository, in the fixture workspace', async () => {
    const ext = await activeExtension();
    assert.strictEqual(fs.realpathSync(ext.extensionPath), fs.realpathSync(REPO), 'the development copy is the one loaded');

    const folders = vscode.workspace.workspaceFolders || [];
    assert.strictEqual(folders.length, 1, 'one workspace folder is open');
    if (process.env.SIGHTLINE_VSCODE_FIXTURE !== '1') return; // run.mjs --workspace: some other folder
    const sources = await vscode.workspace.findFiles('**/*.{ts,py,go}', '**/node_modules/**');
    const rel = sources.map(u => vscode.workspace.asRelativePath(u, false)).sort();
    for (const f of ['src/orders.ts', 'python/pricing.py', 'go/retry.go']) assert.ok(rel.includes(f), `workspace has ${f} (found: ${rel.join(', ')})`);
  });

  it('registers sightline.showStatus and runs it', async () => {
    await activeExtension();
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('sightline.showStatus'), 'sightline.showStatus is registered');
    await vscode.commands.executeCommand('sightline.showStatus');
  });
});
