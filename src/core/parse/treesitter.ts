/** Lazily loaded tree-sitter runtime, grammars and compiled queries (one set per thread). */
import { readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Parser, Language, Query } from 'web-tree-sitter';
import { assetPath } from '../assets';
import { LANGUAGES, type LanguageId } from '../languages';

export interface LoadedLanguage {
  readonly id: LanguageId;
  readonly language: Language;
  readonly query: Query;
  readonly parser: Parser;
}

let runtime: Promise<void> | undefined;
const loaded = new Map<LanguageId, Promise<LoadedLanguage>>();

function initRuntime(): Promise<void> {
  runtime ??= Parser.init({ locateFile: () => assetPath('web-tree-sitter.wasm') });
  return runtime;
}

/** Query source: bundled copy in dist/queries, or the source tree when running from source. */
export function querySource(id: LanguageId): string {
  const file = LANGUAGES[id].query;
  const candidates = [resolve(__dirname, '..', 'languages', 'queries', file), join(__dirname, 'queries', file), assetPath('queries', file)];
  for (const c of candidates) if (existsSync(c)) return readFileSync(c, 'utf8');
  throw new Error(`query file ${file} for ${id} not found`);
}

export function loadLanguage(id: LanguageId): Promise<LoadedLanguage> {
  let p = loaded.get(id);
  if (!p) {
    p = (async () => {
      await initRuntime();
      const language = await Language.load(assetPath('grammars', LANGUAGES[id].wasm));
      const query = new Query(language, querySource(id));
      const parser = new Parser();
      parser.setLanguage(language);
      return { id, language, query, parser };
    })();
    loaded.set(id, p);
    p.catch(() => loaded.delete(id));
  }
  return p;
}
