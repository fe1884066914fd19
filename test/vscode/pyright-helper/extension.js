// Test-only helper extension: pyright's language server over stdio through vscode-languageclient, so the
// extension-host tests see Python references, call hierarchy and symbols as a user's Python extension
// would provide them. Modules resolve from the project's node_modules.
'use strict';
const path = require('path');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

let client;
exports.activate = async () => {
  const server = require.resolve('pyright/langserver.index.js', { paths: [path.resolve(__dirname, '..', '..', '..')] });
  client = new LanguageClient('sightlineTestPyright', 'Sightline test: pyright',
    { run: { module: server, transport: TransportKind.stdio }, debug: { module: server, transport: TransportKind.stdio } },
    { documentSelector: [{ scheme: 'file', language: 'python' }] });
  await client.start();
};
exports.deactivate = () => (client ? client.stop() : undefined);
