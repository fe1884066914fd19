/** The engine's public surface for the CLI, the MCP server, the extension, benchmarks and tests. */
export { Engine, type EngineOptions, type IndexReport, type StatusReport } from './engine';
export { TOOLS, TOOL_LIST, TOOL_NAMES, findTool, type ToolName } from './tools/registry';
export { invokeTool, jsonSchema, type ToolDef, type ToolContext, type ToolOutcome } from './tools/contract';
export { toolsList } from './tools/golden';
export { SightlineError, toErrorShape, ERROR_CODES } from './errors';
export { LANGUAGES, GRAMMAR_SOURCES, languageForPath, fileLanguageFor } from './languages';
export { TEXT_FORMATS } from './languages/text';
export { LANGUAGE_IDS } from './languages/types';
export { defaultDbPath, cacheDir, DEFAULT_SETTINGS } from './settings';
export { processFile } from './index/process';
export { walk, DEFAULT_EXCLUDES } from './index/walker';
export { extractSource } from './parse/extract';
export { bm25 } from './store/bm25';
export { STOPWORDS } from './search/search';
export {
  setSignalSink, FUSION, SIZE_PRIOR, TEST_FACTOR, TEST_FACTOR_MENTIONED, AUXILIARY_FACTOR, TEXT_FACTOR, TEXT_FACTOR_MENTIONED,
  RELEASE_NOTES_FACTOR, isAuxiliaryPath,
} from './search/files';
export { textWording } from './search/query';
export { tokenize, queryTerms } from './util/tokens';
export { manifestTools, lmToolName, LM_TOOL_PREFIX } from './tools/manifest';
export { loadLanguage } from './parse/treesitter';
export { resolveGraph } from './graph/resolve';
export { isTestPath } from './languages';
export { isTestCase, testsOf, TESTS_MAX_DEPTH } from './graph/tests';
export { FAMILY_CONFIDENCE, TIERS } from './graph/tiers';
export { toNodeRef } from './graph/query';
export { mineRepository, buildCoChange } from './history';
export { packShapes, shingleSet, MIN_SHINGLES, ENTRY_BYTES } from './similar/shape';
export { queryVector, similarity, HASH_VECTOR_DIMS } from './search/hashvec';
export { pageRank, buildRankGraph, edgeWeight } from './overview/rank';
