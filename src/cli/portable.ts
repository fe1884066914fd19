/**
 * `sightline export --out FILE` and `sightline import FILE|URL`: the index as a portable artifact
 * (core/services/portable.ts). Both bring the index up to date with an index run (export before, import
 * after: the run re-parses only the files whose content differs from the artifact's).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Engine } from '../core/engine';
import { findTool } from '../core/tools/registry';
import { invokeTool } from '../core/tools/contract';
import { loadArtifact, writeArtifact } from '../core/services/portable';
import { UsageError } from '../surface/options';

type Out = (line: string) => void;

interface RunTotals { files_seen: number; files_parsed: number; files_unchanged: number; files_deleted: number }

/** An index run through the tool (the same report every surface gets); null when it failed (said on stderr). */
async function indexRun(engine: Engine, progress: Out): Promise<{ totals: RunTotals; ms: number } | { error: string }> {
  let last = 0;
  const outcome = await invokeTool(findTool('index_repo')!, {}, { engine, onProgress: m => { const now = Date.now(); if (now - last > 2000) { last = now; progress(m); } } });
  if (!outcome.ok) return { error: `${outcome.error.message} (${outcome.error.code})` };
  const d = outcome.data as { totals: RunTotals; timings: { total_ms: number } };
  return { totals: d.totals, ms: d.timings.total_ms };
}

export async function runExport(engine: Engine, values: { out?: string; 'no-index'?: boolean; json?: boolean }, out: Out, err: Out): Promise<number> {
  if (!values.out) throw new UsageError('export needs --out FILE');
  const target = resolve(values.out);
  if (!values['no-index']) {
    const run = await indexRun(engine, err);
    if ('error' in run) { err(`sightline: the index run before the export failed: ${run.error}`); return 1; }
  }
  const t0 = Date.now();
  const { bytes, manifest, warnings } = await engine.exportIndex();
  writeArtifact(target, bytes);
  for (const w of warnings) err(`sightline: warning: ${w}`);
  const summary = { out: target, bytes: bytes.length, image_bytes: manifest.image_bytes, image_sha256: manifest.image_sha256, roots: manifest.roots, export_ms: Date.now() - t0 };
  if (values.json) out(JSON.stringify(summary, null, 2));
  else out(`wrote ${target}: ${(bytes.length / 1e6).toFixed(1)} MB (index ${(manifest.image_bytes / 1e6).toFixed(1)} MB), `
    + manifest.roots.map(r => `${r.name} ${r.files} files${r.indexed_commit ? ` at ${r.indexed_commit.slice(0, 12)}` : ''}`).join('; '));
  return 0;
}

export async function runImport(engine: Engine, source: string | undefined, values: { 'no-index'?: boolean; json?: boolean }, out: Out, err: Out): Promise<number> {
  if (!source) throw new UsageError('import needs one FILE or http(s) URL');
  const t0 = Date.now();
  const artifact = await loadArtifact(source, p => readFile(resolve(p)));
  const report = await engine.importIndex(artifact);
  const importMs = Date.now() - t0;
  const run = values['no-index'] ? null : await indexRun(engine, err);
  if (run && 'error' in run) { err(`sightline: the artifact was adopted; the index run after it failed: ${run.error}`); return 1; }
  const summary = { ...report, import_ms: importMs, index: run };
  if (values.json) { out(JSON.stringify(summary, null, 2)); return 0; }
  for (const a of report.adopted) out(`adopted ${a.artifact_root} (${a.files} files${a.indexed_commit ? ` at ${a.indexed_commit.slice(0, 12)}` : ''}) for ${a.root}`);
  if (report.dropped.length) out(`left out (no root of this workspace by that name): ${report.dropped.join(', ')}`);
  if (report.not_in_artifact.length) out(`not in the artifact, indexed from scratch: ${report.not_in_artifact.join(', ')}`);
  if (run) out(`index run: ${run.totals.files_unchanged} files unchanged, ${run.totals.files_parsed} parsed, ${run.totals.files_deleted} deleted (${run.ms} ms; import ${importMs} ms)`);
  return 0;
}
