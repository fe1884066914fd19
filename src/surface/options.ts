/**
 * What every surface that starts from a command line shares (the `sightline` verbs, `dist/mcp.js`, the
 * `sightline provider` adapters): the workspace options, their parsing, the usage error, and opening
 * the engine from them. Surfaces (src/cli, src/mcp, src/extension) never import each other; what two of
 * them need lives here, above the engine and below every surface.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { resolve } from 'node:path';
import { Engine } from '../core/engine';
import { SightlineError } from '../core/errors';
import { LANGUAGE_IDS, type LanguageId } from '../core/languages/types';
import type { IndexSettings } from '../core/settings';
import { MEMORY_EXPORT_TARGETS, parseExportTargets } from '../core/services/memories';

export const WORKSPACE_OPTIONS = {
  workspace: { type: 'string', multiple: true, short: 'w' },
  db: { type: 'string' },
  exclude: { type: 'string', multiple: true },
  'max-file-bytes': { type: 'string' },
  languages: { type: 'string' },
  'no-text-files': { type: 'boolean' },
  threads: { type: 'string' },
  'allow-reference-providers': { type: 'boolean' },
  'export-memories': { type: 'string' },
  'untrusted-workspace': { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

export class UsageError extends Error {}

export function parse<O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** A non-negative integer option (`--threads 2`), or undefined when absent. */
export function intOption(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a non-negative integer, got ${v}`);
  return n;
}

export interface WorkspaceValues {
  workspace?: string[]; db?: string; exclude?: string[]; 'max-file-bytes'?: string; languages?: string; 'no-text-files'?: boolean; threads?: string;
  'allow-reference-providers'?: boolean; 'export-memories'?: string; 'untrusted-workspace'?: boolean;
}

/** Opens the engine for the roots given (or those recorded in --db, or the current folder). */
export async function openEngine(values: WorkspaceValues, extraRoots: string[] = [], log?: (l: 'info' | 'warn' | 'error', m: string) => void): Promise<Engine> {
  let roots = [...extraRoots, ...(values.workspace ?? [])].map(r => resolve(r));
  const db = values.db ? resolve(values.db) : undefined;
  // `--db FILE` alone: the engine takes the roots the index records (else the current folder) from its one load
  if (!roots.length && !db) roots = [process.cwd()];
  const settings: Partial<IndexSettings> = {};
  if (values.exclude) settings.excludes = values.exclude;
  const max = intOption(values['max-file-bytes'], 'max-file-bytes');
  if (max !== undefined) settings.max_file_bytes = max;
  if (values.languages) {
    const langs = values.languages.split(',').map(s => s.trim()).filter(Boolean);
    const bad = langs.filter(l => !(LANGUAGE_IDS as readonly string[]).includes(l));
    if (bad.length) throw new UsageError(`unknown language(s) ${bad.join(', ')}; supported: ${LANGUAGE_IDS.join(', ')}`);
    settings.languages = langs as LanguageId[];
  }
  if (values['no-text-files']) settings.text_files = false;
  // --export-memories agents,copilot (or agents_md,copilot_instructions): off unless given
  const exp = parseExportTargets(values['export-memories'] ?? '');
  if (exp.unknown.length) throw new UsageError(`unknown --export-memories target(s) ${exp.unknown.join(', ')}; supported: agents, copilot (${MEMORY_EXPORT_TARGETS.join(', ')})`);
  // the editor's `sightline.adapters` settings come in the environment (they may name headers), never argv
  let adapterSettings: Record<string, unknown> | undefined;
  const rawAdapters = process.env.SIGHTLINE_ADAPTERS_SETTINGS;
  if (rawAdapters) {
    try { adapterSettings = JSON.parse(rawAdapters) as Record<string, unknown>; } catch (e) { throw new UsageError(`SIGHTLINE_ADAPTERS_SETTINGS is not valid JSON: ${(e as Error).message}`); }
    // read once: the processes adapters start (another Sightline server among them) must not inherit it
    delete process.env.SIGHTLINE_ADAPTERS_SETTINGS;
  }
  // an untrusted workspace runs nothing a repository or a caller declares: untrusted wins over the allow flag
  const untrusted = !!values['untrusted-workspace'];
  if (untrusted && values['allow-reference-providers']) log?.('warn', '--allow-reference-providers is ignored: the workspace is untrusted (--untrusted-workspace)');
  try {
    return await Engine.open({
      roots, fallbackRoots: [process.cwd()], dbPath: db, settings, threads: intOption(values.threads, 'threads'), log,
      allowReferenceProviders: !!values['allow-reference-providers'] && !untrusted,
      memoriesExport: exp.targets, adapters: { settings: adapterSettings, workspaceTrusted: !values['untrusted-workspace'] },
    });
  } catch (e) {
    if (e instanceof SightlineError && e.code === 'not_found') throw new UsageError(e.message);
    throw e;
  }
}
