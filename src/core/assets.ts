import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Runtime assets (grammars, queries, sql.js and tree-sitter wasm, the worker script) live beside the
 * bundle in `dist/`. When the engine runs from source (tests), they are found in the source tree and
 * node_modules instead.
 */
let cached: string | undefined;
export function distDir(): string {
  if (cached) return cached;
  const candidates = [__dirname, resolve(__dirname, '..', '..', 'dist'), resolve(__dirname, '..', 'dist')];
  for (const c of candidates) if (existsSync(join(c, 'grammars'))) return (cached = c);
  throw new Error(`Sightline assets not found next to ${__dirname}; run "npm run build" first`);
}

export function assetPath(...parts: string[]): string {
  return join(distDir(), ...parts);
}
