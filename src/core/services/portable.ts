/**
 * The index as a portable artifact: one machine (a CI job) builds it, another adopts it for its own
 * checkout of the same or a nearby commit, re-parsing only the files whose content differs.
 *
 * An artifact is gzip over: the magic line `SIGHTLINE-INDEX\n`, a u32 (big-endian) manifest length, the
 * manifest (JSON), then the SQLite image. The manifest names each root by a placeholder (`@@repoN@@` for
 * its repo_id, `@@rootN@@` for its absolute path, both rewritten in every text column on export) and
 * carries the image's SHA-256; gzip's CRC guards the rest. Nothing of the building machine stays in it:
 * no absolute path (checked byte for byte before it is written), no git top folder, and no user data —
 * memories, trust decisions and adapter state live in the durable store, never in the index.
 *
 * Import maps the artifact's roots to the workspace's (one root each: the one; otherwise by folder name),
 * drops the roots it has no folder for, rewrites the placeholders to this machine's repo_ids and paths,
 * and adopts the image (indexfile.ts `adopt`). The index run that follows stats every file: a file whose
 * size or time differs is hashed, and one whose content hash matches keeps its rows (no parse).
 */
import { createHash } from 'node:crypto';
import { gzipSync, createGunzip } from 'node:zlib';
import { homedir } from 'node:os';
import { Store } from '../store/store';
import { atomicWrite } from '../store/persist';
import { SCHEMA_VERSION } from '../store/schema';
import { VERSION } from '../version';
import { SightlineError } from '../errors';
import type { Root } from '../workspace';
import { verifyKey } from '../pipeline/phases/scan';

const MAGIC = Buffer.from('SIGHTLINE-INDEX\n', 'latin1');
export const ARTIFACT_FORMAT = 1;

export interface ArtifactRoot {
  /** the root's folder name where it was built (how a multi-root workspace matches roots) */
  name: string;
  /** placeholders the root's repo_id and absolute path were rewritten to */
  repo_token: string;
  root_token: string;
  files: number;
  indexed_commit: string | null;
  branch: string | null;
}

export interface ArtifactManifest {
  format: number;
  schema_version: number;
  sightline_version: string;
  created_at: string;
  roots: ArtifactRoot[];
  image_bytes: number;
  image_sha256: string;
}

export interface ImportedRoot { artifact_root: string; root: string; repo_id: string; files: number; indexed_commit: string | null }
export interface ImportReport { manifest: ArtifactManifest; adopted: ImportedRoot[]; dropped: string[]; not_in_artifact: string[] }

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const invalid = (message: string, details?: Record<string, unknown>) => new SightlineError('invalid_arguments', message, details);

/** Writes the current index as an artifact (bytes to write to a file) and says what it holds. */
export async function exportArtifact(image: Uint8Array, roots: readonly Root[]): Promise<{ bytes: Buffer; manifest: ArtifactManifest; warnings: string[] }> {
  const { store, problem, rebuilt } = await Store.fromBytes(image);
  try {
    if (problem || rebuilt) throw new SightlineError('index_corrupt', `the index cannot be exported: ${problem?.reason ?? 'another schema version'}`);
    const rows = store.meta.repos();
    const indexed = roots.map((r, i) => ({ r, i, row: rows.find(x => x.repo_id === r.repo_id) })).filter(x => x.row);
    if (!indexed.length) throw new SightlineError('index_empty', 'nothing to export: no root of this workspace is indexed yet (run index first)');
    // rows of folders that are no longer roots of this workspace do not travel
    for (const row of rows) if (!roots.some(r => r.repo_id === row.repo_id)) store.deleteRepo(row.repo_id);
    const out: ArtifactRoot[] = [];
    const pairs: [string, string][] = [];
    // the longest root first: a root inside another is rewritten before its parent's prefix is
    for (const { r, i, row } of [...indexed].sort((a, b) => b.r.root.length - a.r.root.length)) {
      pairs.push([r.root, `@@root${i}@@`]);
      out.push({ name: r.name, repo_token: `@@repo${i}@@`, root_token: `@@root${i}@@`, files: store.files.counts(r.repo_id).files,
        indexed_commit: row!.indexed_commit ?? null, branch: row!.branch ?? null });
    }
    for (const { r, i } of indexed) pairs.push([r.repo_id, `@@repo${i}@@`]);
    store.relocate(pairs);
    // where git's top folder was on the building machine: found again on import (three git calls)
    store.history.forgetTops();
    store.vacuum();
    const bytes = store.export();
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const leaks = roots.map(r => r.root).filter(p => buf.includes(Buffer.from(p, 'utf8')));
    if (leaks.length) throw new SightlineError('internal_error', `the export still names ${leaks.join(', ')}; nothing was written`, { paths: leaks });
    // the home folder may be named by the code itself (a snippet); said, not refused
    const home = homedir();
    const warnings = home.split('/').filter(Boolean).length >= 2 && buf.includes(Buffer.from(home, 'utf8')) ? [`the index names the home folder ${home} (in a snippet of code or a message)`] : [];
    const manifest: ArtifactManifest = {
      format: ARTIFACT_FORMAT, schema_version: SCHEMA_VERSION, sightline_version: VERSION, created_at: new Date().toISOString(),
      roots: out.sort((a, b) => a.root_token.localeCompare(b.root_token)), image_bytes: bytes.length, image_sha256: sha256(bytes),
    };
    const head = Buffer.from(JSON.stringify(manifest), 'utf8');
    const len = Buffer.alloc(4); len.writeUInt32BE(head.length);
    return { bytes: gzipSync(Buffer.concat([MAGIC, len, head, buf]), { level: 6 }), manifest, warnings };
  } finally { store.close(); }
}

/** The largest manifest an artifact may carry (it names roots and a checksum: a few hundred bytes). */
const MAX_MANIFEST_BYTES = 1 << 20;

/**
 * Inflates an artifact without trusting its size: the manifest must come within MAX_MANIFEST_BYTES, and
 * then the whole stream within the length the manifest declares. A small file that inflates to gigabytes
 * is refused as soon as it outgrows that, holding no more than it in memory.
 */
export function inflateArtifact(bytes: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const gunzip = createGunzip();
    const parts: Buffer[] = [];
    let size = 0;
    let limit = MAGIC.length + 4 + MAX_MANIFEST_BYTES;
    let declared = false;
    const fail = (e: Error) => { gunzip.destroy(); reject(e); };
    gunzip.on('data', (chunk: Buffer) => {
      parts.push(chunk);
      size += chunk.length;
      if (!declared && size >= MAGIC.length + 4) {
        const head = Buffer.concat(parts);
        const n = head.readUInt32BE(MAGIC.length);
        if (!head.subarray(0, MAGIC.length).equals(MAGIC)) return fail(invalid('not a Sightline index artifact (no SIGHTLINE-INDEX header)'));
        if (n > MAX_MANIFEST_BYTES) return fail(invalid(`the artifact's manifest claims ${n} bytes; a manifest is at most ${MAX_MANIFEST_BYTES}`));
        if (size >= MAGIC.length + 4 + n) {
          declared = true;
          const m = parseManifest(head.subarray(MAGIC.length + 4, MAGIC.length + 4 + n));
          if (m instanceof Error) return fail(m);
          limit = MAGIC.length + 4 + n + m.image_bytes;
        }
      }
      if (size > limit) fail(invalid(`the artifact inflates beyond the ${limit} bytes its manifest declares: refused`, { declared_bytes: limit }));
    });
    gunzip.on('error', e => reject(invalid(`not a Sightline index artifact: ${e.message}`)));
    gunzip.on('end', () => resolve(Buffer.concat(parts, size)));
    gunzip.end(bytes);
  });
}

function parseManifest(bytes: Buffer): ArtifactManifest | SightlineError {
  try {
    const m = JSON.parse(bytes.toString('utf8')) as ArtifactManifest;
    if (!Number.isSafeInteger(m.image_bytes) || m.image_bytes < 0) return invalid('the artifact\'s manifest has no valid image_bytes');
    return m;
  } catch (e) { return invalid(`the artifact's manifest is not readable: ${(e as Error).message}`); }
}

/** Reads and checks an artifact: its manifest and the SQLite image it carries (inflated within what it declares). */
export async function readArtifact(bytes: Uint8Array): Promise<{ manifest: ArtifactManifest; image: Uint8Array }> {
  const raw = await inflateArtifact(bytes);
  if (raw.length < MAGIC.length + 4 || !raw.subarray(0, MAGIC.length).equals(MAGIC)) throw invalid('not a Sightline index artifact (no SIGHTLINE-INDEX header)');
  const n = raw.readUInt32BE(MAGIC.length);
  const manifest = parseManifest(raw.subarray(MAGIC.length + 4, MAGIC.length + 4 + n));
  if (manifest instanceof Error) throw manifest;
  if (manifest.format !== ARTIFACT_FORMAT) throw invalid(`artifact format ${manifest.format}; this version of Sightline reads format ${ARTIFACT_FORMAT}`);
  if (manifest.schema_version !== SCHEMA_VERSION) {
    throw invalid(`the artifact was built by Sightline ${manifest.sightline_version} (index schema ${manifest.schema_version}); this version uses schema ${SCHEMA_VERSION}: rebuild it with this version`,
      { artifact_schema_version: manifest.schema_version, schema_version: SCHEMA_VERSION });
  }
  const image = raw.subarray(MAGIC.length + 4 + n);
  if (image.length !== manifest.image_bytes || sha256(image) !== manifest.image_sha256) throw invalid('the artifact is damaged: its index does not match the checksum in its manifest');
  return { manifest, image };
}

/** Which artifact root each workspace root takes: the only one, or the one of the same folder name. */
function matchRoots(manifest: ArtifactManifest, roots: readonly Root[]): Map<ArtifactRoot, Root> {
  const out = new Map<ArtifactRoot, Root>();
  if (manifest.roots.length === 1 && roots.length === 1) { out.set(manifest.roots[0]!, roots[0]!); return out; }
  const taken = new Set<Root>();
  for (const a of manifest.roots) {
    const r = roots.find(x => !taken.has(x) && x.name === a.name);
    if (r) { out.set(a, r); taken.add(r); }
  }
  return out;
}

/** The index to adopt for this workspace's roots (a store the caller owns), and what it holds for them. */
export async function relocateArtifact(bytes: Uint8Array, roots: readonly Root[]): Promise<{ store: Store; report: ImportReport }> {
  const { manifest, image } = await readArtifact(bytes);
  const match = matchRoots(manifest, roots);
  if (!match.size) {
    throw invalid(`the artifact holds ${manifest.roots.map(r => r.name).join(', ')}; no root of this workspace (${roots.map(r => r.name).join(', ')}) matches by folder name`);
  }
  const { store, problem, rebuilt } = await Store.fromBytes(image);
  try {
    if (problem || rebuilt) throw invalid(`the artifact's index is not readable: ${problem?.reason ?? 'another schema version'}`);
    const dropped = manifest.roots.filter(a => !match.has(a));
    for (const a of dropped) store.deleteRepo(a.repo_token);
    const pairs: [string, string][] = [];
    for (const [a, r] of match) pairs.push([a.root_token, r.root], [a.repo_token, r.repo_id]);
    store.relocate(pairs, false); // the export rewrote code snippets too; what they name stays a placeholder
    for (const [, r] of match) { const row = store.meta.repo(r.repo_id); if (row) store.meta.upsertRepo({ ...row, name: r.name }); }
    for (const [, r] of match) refuseEscapingPaths(store, r.repo_id);
    // the next whole index run checks every file's rows against its text before they are trusted
    for (const [, r] of match) store.meta.setMeta(verifyKey(r.repo_id), '1');
    const adopted = [...match].map(([a, r]) => ({ artifact_root: a.name, root: r.root, repo_id: r.repo_id, files: a.files, indexed_commit: a.indexed_commit }));
    const notIn = roots.filter(r => ![...match.values()].includes(r)).map(r => r.root);
    return { store, report: { manifest, adopted, dropped: dropped.map(a => a.name), not_in_artifact: notIn } };
  } catch (e) { store.close(); throw e; }
}

/** A stored path must stay inside its root: relative, `/`-separated, no `..` segment, no NUL. */
export function safeRelativePath(path: string): boolean {
  if (!path || path.includes('\0') || path.includes('\\') || path.startsWith('/') || /^[A-Za-z]:/.test(path)) return false;
  return !path.split('/').some(seg => seg === '..' || seg === '');
}

/** An artifact whose file paths would leave the workspace is refused whole (nothing of it is adopted). */
function refuseEscapingPaths(store: Store, repoId: string): void {
  const bad = [...store.files.fileMetas(repoId).keys()].filter(p => !safeRelativePath(p));
  if (bad.length) {
    const shown = bad.slice(0, 3).map(p => JSON.stringify(p)).join(', ');
    throw invalid(`the artifact names ${bad.length} file path(s) outside their root (${shown}): refused`, { paths: bad.slice(0, 20) });
  }
}

/** Writes an artifact where the user asked, atomically (a reader never sees half of one). */
export function writeArtifact(path: string, bytes: Uint8Array): void { atomicWrite(path, bytes); }

/** Reads an artifact from a file path or, when the user configured one, an http(s) URL. */
export async function loadArtifact(source: string, readFile: (p: string) => Promise<Uint8Array>): Promise<Uint8Array> {
  if (!/^https?:\/\//i.test(source)) {
    try { return await readFile(source); } catch (e) { throw new SightlineError('not_found', `cannot read the index artifact ${source}: ${(e as Error).message}`); }
  }
  let res: Response;
  try { res = await fetch(source, { signal: AbortSignal.timeout(10 * 60_000) }); } catch (e) { throw new SightlineError('not_found', `cannot download the index artifact ${source}: ${(e as Error).message}`); }
  if (!res.ok) throw new SightlineError('not_found', `cannot download the index artifact ${source}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}
