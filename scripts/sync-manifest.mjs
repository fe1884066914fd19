#!/usr/bin/env node
// Writes `contributes.languageModelTools` (and the tool set) in package.json from the tool registry, and
// the languages the `sightline.index.languages` setting offers from the language table, so the manifest
// cannot drift from what the MCP server and the CLI publish. A test runs the same
// generation and fails when package.json differs: run `npm run sync-manifest` after changing a tool.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { manifestTools, LANGUAGES } = require(join(root, 'dist', 'core.js'));
const path = join(root, 'package.json');
const pkg = JSON.parse(readFileSync(path, 'utf8'));
const { languageModelTools, languageModelToolSets } = manifestTools();
pkg.contributes = { ...pkg.contributes, languageModelTools, languageModelToolSets };
for (const section of [pkg.contributes.configuration].flat()) {
  const setting = section?.properties?.['sightline.index.languages'];
  if (setting) setting.items.enum = Object.keys(LANGUAGES);
}
const text = JSON.stringify(pkg, null, 2) + '\n';
if (process.argv.includes('--check')) {
  if (readFileSync(path, 'utf8') !== text) { console.error('package.json languageModelTools or languages are out of date: run npm run sync-manifest'); process.exit(1); }
} else writeFileSync(path, text);
