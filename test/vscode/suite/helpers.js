// What the extension-host suites share: the extension id, polling, and the extension once it has
// activated by itself and finished its first index run. Not a test file (index.js runs *.test.js).
'use strict';
const assert = require('assert');
const vscode = require('vscode');

const EXTENSION_ID = 'sightline.sightline';

/** Polls `fn` until it returns something truthy; fails after `ms` naming `what` (and the last value). */
async function until(what, fn, ms = 60000, step = 250) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    last = await fn();
    if (last) return last;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise(r => setTimeout(r, step));
  }
}

/** The extension's API once it activated (no one calls activate()) and its first index run is done. */
async function indexedApi() {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is not loaded`);
  await until('activation', () => ext.isActive, 60000);
  const api = ext.exports;
  await api.whenIndexed();
  await until('first index run', () => api.scheduler.snapshot.phase === 'ready' && api.scheduler.snapshot.runs > 0, 120000);
  return api;
}

/** The qualified name a listed node's id spells: symbol:<repo>:<path>:<symbol_path> (null for a file). */
const sp = n => (n.id.startsWith('symbol:') ? n.id.slice(n.id.indexOf(':', 7) + 1 + n.path.length + 1) : null);

module.exports = { EXTENSION_ID, until, indexedApi, sp };
