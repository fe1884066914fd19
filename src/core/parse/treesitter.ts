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

/** Query source: the language's query file(s) from the source tree, or the bundled copies in dist/queries. */
export function querySource(id: LanguageId): string {
  const spec = LANGUAGES[id].query;
  const files: readonly string[] = typeof spec === 'string' ? [spec] : spec;
  return files.map(file => {
    const candidates = [resolve(__dirname, '..', 'languages', 'queries', file), join(__dirname, 'queries', file), assetPath('queries', file)];
    for (const c of candidates) if (existsSync(c)) return readFileSync(c, 'utf8');
    throw new Error(`query file ${file} for ${id} not found`);
  }).join('\n');
}

const grammars = new Map<string, Promise<Parser>>();

/** A parser of a grammar without a tags query (text formats: languages/text.ts), loaded once per thread. */
export function loadGrammar(wasm: string): Promise<Parser> {
  let p = grammars.get(wasm);
  if (!p) {
    p = (async () => {
      await initRuntime();
      const parser = new Parser();
      parser.setLanguage(await Language.load(assetPath('grammars', wasm)));
      return parser;
    })();
    grammars.set(wasm, p);
  }
  return p;
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
