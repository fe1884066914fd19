import { homedir, platform } from 'node:os';
import { join, resolve } from 'node:path';
import { sha1 } from './util/hash';
import { LANGUAGE_IDS, type LanguageId } from './languages/types';
import type { MemoryExportTarget } from './memories/export';

/** Index settings shared by every surface (CLI flags, MCP process arguments, VS Code settings). */
export interface IndexSettings {
  /** Extra exclude patterns in .gitignore syntax, on top of .gitignore files and the default excludes. */
  excludes: string[];
  /** Files larger than this are skipped with a diagnostic. */
  max_file_bytes: number;
  /** Languages to index; null means all supported. */
  languages: LanguageId[] | null;
  /** Index text files of no language (docs, configuration, data, scripts, markup, styles) for search. */
  text_files: boolean;
}

export const DEFAULT_SETTINGS: IndexSettings = { excludes: [], max_file_bytes: 1024 * 1024, languages: null, text_files: true };

export function resolveSettings(partial?: Partial<IndexSettings>): IndexSettings {
  const s = { ...DEFAULT_SETTINGS, ...(partial ?? {}) };
  if (s.languages) s.languages = s.languages.filter(l => (LANGUAGE_IDS as readonly string[]).includes(l));
  return s;
}

/** The per-user cache folder (never inside the user's repository). */
export function cacheDir(): string {
  if (process.env.SIGHTLINE_CACHE_DIR) return resolve(process.env.SIGHTLINE_CACHE_DIR);
  if (platform() === 'win32') return join(process.env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'sightline', 'Cache');
  if (platform() === 'darwin') return join(homedir(), 'Library', 'Caches', 'sightline');
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'sightline');
}

/** Default index file for a set of workspace roots: keyed by the roots, outside every one of them. */
export function defaultDbPath(roots: string[]): string {
  const key = roots.map(r => resolve(r)).sort().join('\n');
  const name = (roots[0] ? resolve(roots[0]).split(/[\\/]/).pop() : 'workspace') || 'workspace';
  return join(cacheDir(), `${name.replace(/[^A-Za-z0-9._-]+/g, '-')}-${sha1(key).slice(0, 12)}`, 'index.sqlite');
}

/** How an engine is opened (engine.ts `Engine.open`). */
export interface EngineOptions {
  /** The workspace's roots. Empty with a `dbPath`: the roots the index file records that still exist, else `fallbackRoots`. */
  roots: string[];
  fallbackRoots?: string[];
  /** Index file; defaults to a per-user cache folder keyed by the roots. */
  dbPath?: string;
  settings?: Partial<IndexSettings>;
  /** Parser threads; 0 parses on the calling thread. Default: number of cores, at most 4. */
  threads?: number;
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
  /**
   * Whether index_repo may run external reference providers (commands) named in its arguments. Off by
   * default: the CLI and MCP server enable it with --allow-reference-providers, the extension only in a
   * trusted workspace with sightline.providers.allowExternal.
   */
  allowReferenceProviders?: boolean;
  /** Instruction files the current project memories are exported to (memories/export.ts); default none. */
  memoriesExport?: readonly MemoryExportTarget[];
  /**
   * Adapters (adapters/service.ts): the editor's `sightline.adapters` settings, whether the editor's
   * workspace is trusted (false: no repository-declared adapter runs), the user's config file (null:
   * none; default the XDG config folder's `sightline/config.toml`).
   */
  adapters?: { settings?: Record<string, unknown>; workspaceTrusted?: boolean; userConfigPath?: string | null };
}
