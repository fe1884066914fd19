// Phase `restart`: the editor starts again on the workspace and index of the `main` phase (same run
// folder). Nothing changed on disk, so the first index run must parse nothing.
'use strict';
const assert = require('assert');
const vscode = require('vscode');

describe('after an editor restart', function () {
  this.timeout(120000);
  it('re-parses nothing that did not change (index_status counters)', async () => {
    const ext = vscode.extensions.getExtension('sightline.sightline');
    const end = Date.now() + 60000;
    while (!ext.isActive && Date.now() < end) await new Promise(r => setTimeout(r, 200));
    const api = ext.exports;
    await api.whenIndexed();
    const status = await api.call('index_status', {});
    assert.ok(status.ok);
    const root = status.data.roots[0];
    assert.ok(root.file_count > 0, 'the index from the previous start is there');
    assert.ok(root.last_run, 'a run happened in this start');
    assert.equal(root.last_run.files_parsed, 0, `re-parsed ${root.last_run.files_parsed} files`);
    assert.equal(root.last_run.files_unchanged, root.file_count);
    console.log(`restart: ${root.file_count} files unchanged, 0 parsed, run took ${root.last_run.duration_ms} ms`);
  });
});
