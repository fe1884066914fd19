// Adapters in the workbench: a repository declares an HTTP adapter (a server on loopback, started here);
// the Index view lists it as untrusted, the trust command pins it, then it is active and search_code
// (through the extension's engine process) fuses its results with the local files.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const http = require('http');
const vscode = require('vscode');
const { until, indexedApi } = require('./helpers');

describe('adapters', function () {
  this.timeout(120000);
  let api; let server; let url; let configFile;
  before(async () => {
    api = await indexedApi();
    server = http.createServer((req, res) => { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ results: [{ title: 'ADR 9: how we retry', url: 'notes://adr/9', summary: 'backoff' }] })); });
    await new Promise(r => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${server.address().port}`;
    const root = vscode.workspace.workspaceFolders[0].uri.fsPath;
    configFile = path.join(root, '.sightline', 'config.toml');
    fs.mkdirSync(path.dirname(configFile), { recursive: true });
    fs.writeFileSync(configFile, `[adapters.notes]\ndriver = "http"\ndescription = "Team notes"\nbase_url = "${url}"\n[adapters.notes.ops.search]\npath = "/search"\nbody = { q = "{{query}}" }\n`);
  });
  after(async () => {
    fs.rmSync(path.dirname(configFile), { recursive: true, force: true });
    await api.views.status.refresh();
    server.close();
  });

  const notesRow = () => {
    const node = api.views.status.snapshot().find(n => n.label === 'Adapters');
    return node && node.children.find(c => c.label === 'notes');
  };

  it('the Index view lists a repository adapter as untrusted; trusting makes it active and search_code fuses its results', async () => {
    // the engine reads the repository's adapter tables when it sees the file: wait for the row, do not race it
    const before = await until('the adapter listed in the Index view', async () => { await api.views.status.refresh(); return notesRow(); }, 30000);
    assert.ok(before, JSON.stringify(api.views.status.snapshot()));
    assert.equal(before.description, 'untrusted');
    const untrusted = await api.call('search_code', { query: 'retry' });
    assert.ok(untrusted.ok);
    assert.deepStrictEqual(untrusted.data.external, []);
    await vscode.commands.executeCommand('sightline.adapters.trust', { confirmed: true });
    await until('the adapter active in the Index view', async () => { await api.views.status.refresh(); const r = notesRow(); return r && /http/.test(r.description) && r; }, 30000);
    const r = await api.call('search_code', { query: 'retry' });
    assert.ok(r.ok, JSON.stringify(r.error));
    assert.strictEqual(r.data.external[0].source, 'notes');
    assert.strictEqual(r.data.external[0].uri, 'notes://adr/9');
    assert.ok(r.data.sources.some(s => s.name === 'notes' && s.ok));
    // the palette commands are registered (they open dialogs, so they are not run here)
    const commands = await vscode.commands.getCommands(true);
    for (const c of ['sightline.adapters.list', 'sightline.adapters.trust', 'sightline.adapters.test', 'sightline.adapters.inspect', 'sightline.adapters.sync']) assert.ok(commands.includes(c), c);
  });
});
