/**
 * The index on disk: a snapshot (an ordinary SQLite file, `<index>`) and a change log of pages beside it
 * (`<index>.changes`), so that a save costs what changed, not the whole database.
 *
 * sql.js keeps the database in memory, in a buffer of ours (image.ts). A save compares the database image
 * (a view of that buffer, or sql.js's copy of it) with the last one persisted, page by page (64-bit xxHash
 * of each page, kept in memory): the pages SQLite wrote since the last save when the buffer knows them,
 * else all; and appends the pages that differ as one record to the log. Opening replays the log's records
 * over the snapshot (a large snapshot is read as SQLite asks for its pages: image.ts, PagedBuffer). When the log would outgrow a share of the snapshot (COMPACT_RATIO), or one save changes most
 * of the pages, the image is written as a new snapshot instead and the log starts again.
 *
 * Log layout (little-endian):
 *   header  64 bytes: magic "SLPAGES1", format u32, page size u32, snapshot size f64,
 *           xxh64 of the snapshot's first page and of its last page (binds the log to that snapshot)
 *   record  magic u32 "SLPR", sequence u32, page count n u32, image size after it f64,
 *           n page numbers u32 (0-based), n pages, xxh64 of everything before it in the record
 *
 * Crash safety: a record is appended at the end of the last valid record (a torn tail is cut first) and
 * fsynced; a record that is cut short or fails its checksum ends the replay there, so the index is the
 * state of the last complete save. A new snapshot is written atomically (temp file, fsync, rename), then
 * a new log bound to it; a log bound to another snapshot (a crash between the two) is ignored, which is
 * right, since the new snapshot already holds every record of the old log.
 */
import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import xxhash from 'xxhash-wasm';
import { atomicWrite, fileStamp } from './persist';
import { LAZY_MIN_BYTES, PagedBuffer, declaredPageSize } from './image';

/**
 * Write a new snapshot when the log would pass this share of the image's size. Opening reads and checks
 * the whole log (a 227 MB log took 1.3–1.8 s at 5M lines): a quarter keeps that bounded, at the cost of
 * a whole snapshot every few hundred to few thousand edits.
 */
export const COMPACT_RATIO = 0.25;
/** Write a new snapshot when one save changes more than this share of the image (a graph rebuild changes ~17% at 5M lines: kept out of the log). */
export const SNAPSHOT_CHANGED_RATIO = 0.1;

const LOG_MAGIC = Buffer.from('SLPAGES1', 'latin1');
const FORMAT = 1;
const HEADER_BYTES = 64;
const RECORD_MAGIC = 0x52504c53; // "SLPR"
const RECORD_HEAD = 20;

type Hasher = Awaited<ReturnType<typeof xxhash>>;
let hasherPromise: Promise<Hasher> | undefined;
let hasher: Hasher | undefined;
/** Loads the hash function (WebAssembly, once per process); every other call here is synchronous. */
export async function initPageLog(): Promise<void> { hasher ??= await (hasherPromise ??= xxhash()); }
function h64(bytes: Uint8Array): bigint {
  if (!hasher) throw new Error('initPageLog() was not awaited');
  return hasher.h64Raw(bytes);
}

export function changesPath(dbPath: string): string { return `${dbPath}.changes`; }
/** The page hashes of the last save, beside the index: a new process's first save need not read the index again. */
export function hashesPath(dbPath: string): string { return `${dbPath}.pagehash`; }
const HASHES_MAGIC = Buffer.from('SLPHASH1', 'latin1');

/** Identity of the persisted state: changes whenever a save renames a snapshot or appends a record. */
export function diskStamp(dbPath: string): string | null {
  const s = fileStamp(dbPath);
  return s === null ? null : `${s}|${fileStamp(changesPath(dbPath)) ?? '-'}`;
}

const view = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

function binding(snapshot: Uint8Array, pageSize: number): [bigint, bigint] {
  return [h64(snapshot.subarray(0, pageSize)), h64(snapshot.subarray(snapshot.length - pageSize))];
}

function logHeader(snapshot: Uint8Array, pageSize: number): Buffer {
  const h = Buffer.alloc(HEADER_BYTES);
  LOG_MAGIC.copy(h, 0);
  h.writeUInt32LE(FORMAT, 8);
  h.writeUInt32LE(pageSize, 12);
  h.writeDoubleLE(snapshot.length, 16);
  const [first, last] = binding(snapshot, pageSize);
  h.writeBigUInt64LE(first, 24);
  h.writeBigUInt64LE(last, 32);
  return h;
}

/** What a read of the index found. */
export interface DiskImage {
  /** the database image (snapshot with the log replayed); null: no index file */
  bytes: Uint8Array | null;
  /** the buffer `bytes` starts (with room beyond them, when a capacity was asked for); null: no index file */
  backing: Buffer | null;
  /** that buffer, watched (image.ts); with `lazy`, pages of the snapshot not read yet are zeros in `bytes` until asked for */
  paged: PagedBuffer | null;
  /** records replayed, and where the valid log ends (0: no usable log) */
  records: number; log_end: number; next_seq: number;
  /** why the log (or its tail) was not used, when it was not */
  ignored: string | null;
}

interface Record { seq: number; pages: number[]; size: number; dataAt: number }

function readAt(fd: number, buf: Uint8Array, at: number, length: number): number {
  let off = 0;
  while (off < length) { const n = readSync(fd, buf, off, length - off, at + off); if (n === 0) break; off += n; }
  return off;
}

/**
 * Reads the snapshot and replays the log bound to it (records up to the first incomplete or damaged one),
 * into one zero-filled buffer of `capacity(size)` bytes, which then holds the image. `lazy`: a large
 * snapshot (LAZY_MIN_BYTES) is not read whole; its pages are read as SQLite asks for them (PagedBuffer,
 * which keeps the file open until every block is read or the database is closed). Not on Windows, where an
 * open file cannot be replaced by the next snapshot.
 */
export function readImage(dbPath: string, capacity: (size: number) => number = s => s, opts: { lazy?: boolean; lazyMinBytes?: number } = {}): DiskImage {
  if (!existsSync(dbPath)) return { bytes: null, backing: null, paged: null, records: 0, log_end: 0, next_seq: 0, ignored: null };
  let fd: number | null = openSync(dbPath, 'r');
  try {
    const fileSize = fstatSync(fd).size;
    const head = Buffer.alloc(Math.min(fileSize, 100));
    readAt(fd, head, 0, head.length);
    const pageSize = fileSize >= 100 ? declaredPageSize(head) : 0;
    const snapshotPage = (at: number) => { const b = Buffer.alloc(pageSize); readAt(fd!, b, at, pageSize); return b; };
    // the log first: the buffer is sized once for the largest state it reaches
    const { records, ignored, log_end, log } = readLog(dbPath, fileSize, pageSize, snapshotPage);
    const maxSize = Math.max(fileSize, ...records.map(r => r.size));
    const buf = Buffer.alloc(Math.max(maxSize, capacity(maxSize)));
    const lazy = !!opts.lazy && pageSize > 0 && fileSize >= (opts.lazyMinBytes ?? LAZY_MIN_BYTES) && process.platform !== 'win32';
    let paged: PagedBuffer;
    if (lazy) { paged = new PagedBuffer(buf, pageSize, true, { fd, size: fileSize }); fd = null; }
    else { readAt(fd, buf, 0, fileSize); paged = new PagedBuffer(buf, pageSize || 4096, true); }
    let size = fileSize;
    for (const r of records) {
      if (r.size > size) paged.zero(size, r.size);
      size = r.size;
      r.pages.forEach((p, i) => paged.place(log!.subarray(r.dataAt + i * pageSize, r.dataAt + (i + 1) * pageSize), p * pageSize));
    }
    const last = records[records.length - 1];
    return { bytes: buf.subarray(0, size), backing: buf, paged, records: records.length, log_end, next_seq: last ? last.seq + 1 : 0, ignored };
  } finally { if (fd !== null) closeSync(fd); }
}

/** The records of the change log bound to a snapshot of `snapshotSize` bytes, up to the first incomplete or damaged one. */
function readLog(dbPath: string, snapshotSize: number, pageSize: number, snapshotPage: (at: number) => Buffer): { records: Record[]; ignored: string | null; log_end: number; log: Buffer | null } {
  const path = changesPath(dbPath);
  const none = (ignored: string | null) => ({ records: [], ignored, log_end: 0, log: null });
  if (!existsSync(path)) return none(null);
  const log = readFileSync(path);
  if (log.length < HEADER_BYTES || !log.subarray(0, 8).equals(LOG_MAGIC)) return none('the change log has no valid header');
  if (log.readUInt32LE(8) !== FORMAT || log.readUInt32LE(12) !== pageSize || !pageSize || snapshotSize < pageSize) return none('the change log is of another format or page size');
  if (log.readDoubleLE(16) !== snapshotSize || log.readBigUInt64LE(24) !== h64(snapshotPage(0)) || log.readBigUInt64LE(32) !== h64(snapshotPage(snapshotSize - pageSize))) {
    return none('the change log belongs to another snapshot');
  }
  const records: Record[] = [];
  let at = HEADER_BYTES; let ignored: string | null = null;
  while (at < log.length) {
    if (at + RECORD_HEAD > log.length || log.readUInt32LE(at) !== RECORD_MAGIC) { ignored = `the change log's tail (${log.length - at} bytes) is not a complete record`; break; }
    const seq = log.readUInt32LE(at + 4), n = log.readUInt32LE(at + 8), size = log.readDoubleLE(at + 12);
    const end = at + RECORD_HEAD + n * 4 + n * pageSize + 8;
    if (!Number.isInteger(size) || size % pageSize !== 0 || end > log.length) { ignored = `the change log's last record (${log.length - at} bytes) is incomplete`; break; }
    if (h64(log.subarray(at, end - 8)) !== log.readBigUInt64LE(end - 8)) { ignored = `record ${seq} of the change log fails its checksum`; break; }
    const pages: number[] = [];
    for (let i = 0; i < n; i++) pages.push(log.readUInt32LE(at + RECORD_HEAD + i * 4));
    if (pages.some(p => (p + 1) * pageSize > size)) { ignored = `record ${seq} of the change log names a page beyond its size`; break; }
    records.push({ seq, pages, size, dataAt: at + RECORD_HEAD + n * 4 });
    at = end;
  }
  return { records, ignored, log_end: at, log };
}

function pageHashes(image: Uint8Array, pageSize: number): BigUint64Array {
  const n = Math.floor(image.length / pageSize);
  const out = new BigUint64Array(n);
  for (let i = 0; i < n; i++) out[i] = h64(image.subarray(i * pageSize, (i + 1) * pageSize));
  return out;
}

/**
 * A database image to persist. `bytes` may not hold every page yet (a lazily read index, image.ts):
 * `load(start, end)` makes a range of it valid. `written`: the pages written since the last save, when
 * known (only those are hashed and compared); null: every page is.
 */
export interface SaveImage { bytes: Uint8Array; written: readonly number[] | null; load(start: number, end: number): void }

/** What one save wrote. */
export interface CommitReport { mode: 'record' | 'snapshot' | 'none'; pages: number; bytes_written: number; image_bytes: number }

/**
 * The persisted state of one index file as this process last read or wrote it. `commit` must be called
 * under the writer lock; `reset` when the files were replaced by someone else (a reload).
 */
export class PageLog {
  private hashes: BigUint64Array | null = null;
  private pageSize = 0;
  private logEnd = 0;
  private nextSeq = 0;
  private logBytes = 0;

  constructor(readonly dbPath: string) {}

  /** Forget what is known of the files (they were read again, or replaced): the next commit re-reads them. */
  reset(): void { this.hashes = null; }

  /** Adopts a state just read (the bytes of `readImage`), so the next commit needs no re-read. */
  adopt(image: DiskImage): void {
    if (!image.bytes) { this.hashes = null; return; }
    this.pageSize = declaredPageSize(image.bytes);
    this.hashes = this.pageSize ? pageHashes(image.bytes, this.pageSize) : null;
    this.logEnd = image.log_end; this.nextSeq = image.next_seq;
    this.logBytes = image.log_end ? image.log_end - HEADER_BYTES : 0;
  }

  /** Persists a database image (whole, or with its written pages named): the changed pages as a record, or a new snapshot. */
  commit(image: Uint8Array | SaveImage): CommitReport {
    const img: SaveImage = image instanceof Uint8Array ? { bytes: image, written: null, load: () => undefined } : image;
    const pageSize = declaredPageSize(img.bytes);
    if (!pageSize || img.bytes.length % pageSize !== 0) throw new Error(`not a database image (${img.bytes.length} bytes, page size ${pageSize})`);
    if (!this.hashes && !this.loadHashes()) this.adopt(readImage(this.dbPath));
    const report = this.write(img, pageSize);
    if (report.mode !== 'none') this.saveHashes();
    return report;
  }

  /** The hashes the last save left beside the index, when the index is still the state they describe. */
  private loadHashes(): boolean {
    let b: Buffer;
    try { b = readFileSync(hashesPath(this.dbPath)); } catch { return false; }
    if (b.length < 32 || !b.subarray(0, 8).equals(HASHES_MAGIC) || h64(b.subarray(0, b.length - 8)) !== b.readBigUInt64LE(b.length - 8)) return false;
    const stampLen = b.readUInt32LE(8); const pageSize = b.readUInt32LE(12); const logEnd = b.readDoubleLE(16); const nextSeq = b.readUInt32LE(24);
    const stamp = b.subarray(28, 28 + stampLen).toString('utf8');
    if (stamp !== diskStamp(this.dbPath)) return false;
    const at = 28 + stampLen; const n = (b.length - 8 - at) / 8;
    if (!Number.isInteger(n)) return false;
    const hashes = new BigUint64Array(n);
    for (let i = 0; i < n; i++) hashes[i] = b.readBigUInt64LE(at + i * 8);
    this.hashes = hashes; this.pageSize = pageSize; this.logEnd = logEnd; this.nextSeq = nextSeq; this.logBytes = logEnd ? logEnd - HEADER_BYTES : 0;
    return true;
  }

  /** Best effort (a cache of a cache): a missing or stale file only means the next process reads the index again. */
  private saveHashes(): void {
    if (!this.hashes) return;
    const stamp = Buffer.from(diskStamp(this.dbPath) ?? '', 'utf8');
    const b = Buffer.alloc(28 + stamp.length + this.hashes.length * 8 + 8);
    HASHES_MAGIC.copy(b, 0);
    b.writeUInt32LE(stamp.length, 8); b.writeUInt32LE(this.pageSize, 12); b.writeDoubleLE(this.logEnd, 16); b.writeUInt32LE(this.nextSeq >>> 0, 24);
    stamp.copy(b, 28);
    Buffer.from(this.hashes.buffer, this.hashes.byteOffset, this.hashes.byteLength).copy(b, 28 + stamp.length);
    b.writeBigUInt64LE(h64(b.subarray(0, b.length - 8)), b.length - 8);
    try { atomicWrite(hashesPath(this.dbPath), b); } catch { /* the next process reads the index instead */ }
  }

  /** Pages hashed by the last commit (all of them, or the written ones): what a save's cost follows. */
  lastHashed = 0;

  private write(img: SaveImage, pageSize: number): CommitReport {
    const image = img.bytes;
    const whole = () => { img.load(0, image.length); return image; };
    const old = this.hashes;
    if (!old || !this.logEnd || this.pageSize !== pageSize) { this.lastHashed = image.length / pageSize; return this.snapshot(whole(), pageHashes(whole(), pageSize), pageSize); }
    const n = image.length / pageSize;
    const changed: number[] = [];
    let hashes: BigUint64Array;
    if (img.written) {
      // only the pages SQLite wrote since the last save (and any the database grew by) can differ
      hashes = new BigUint64Array(n);
      hashes.set(old.subarray(0, Math.min(n, old.length)));
      const check = img.written.filter(p => p < n && p < old.length);
      for (let p = old.length; p < n; p++) check.push(p);
      for (const p of check) {
        img.load(p * pageSize, (p + 1) * pageSize);
        const h = h64(image.subarray(p * pageSize, (p + 1) * pageSize));
        hashes[p] = h;
        if (p >= old.length || old[p] !== h) changed.push(p);
      }
      this.lastHashed = check.length;
    } else {
      hashes = pageHashes(whole(), pageSize);
      for (let i = 0; i < hashes.length; i++) if (i >= old.length || old[i] !== hashes[i]) changed.push(i);
      this.lastHashed = n;
    }
    if (!changed.length && hashes.length === old.length) return { mode: 'none', pages: 0, bytes_written: 0, image_bytes: image.length };
    const recordBytes = RECORD_HEAD + changed.length * (4 + pageSize) + 8;
    if (changed.length * pageSize > SNAPSHOT_CHANGED_RATIO * image.length || this.logBytes + recordBytes > COMPACT_RATIO * image.length) {
      return this.snapshot(whole(), hashes, pageSize);
    }
    const rec = Buffer.allocUnsafe(recordBytes);
    rec.writeUInt32LE(RECORD_MAGIC, 0);
    rec.writeUInt32LE(this.nextSeq >>> 0, 4);
    rec.writeUInt32LE(changed.length, 8);
    rec.writeDoubleLE(image.length, 12);
    const src = view(image);
    changed.forEach((p, i) => {
      rec.writeUInt32LE(p, RECORD_HEAD + i * 4);
      src.copy(rec, RECORD_HEAD + changed.length * 4 + i * pageSize, p * pageSize, (p + 1) * pageSize);
    });
    rec.writeBigUInt64LE(h64(rec.subarray(0, recordBytes - 8)), recordBytes - 8);
    const fd = openSync(changesPath(this.dbPath), 'r+');
    try {
      // a torn record of a crashed save is cut before this one is written
      if (fstatSync(fd).size !== this.logEnd) ftruncateSync(fd, this.logEnd);
      let off = 0;
      while (off < rec.length) off += writeSync(fd, rec, off, rec.length - off, this.logEnd + off);
      fsyncSync(fd);
    } finally { closeSync(fd); }
    this.logEnd += recordBytes; this.logBytes += recordBytes; this.nextSeq++;
    this.hashes = hashes;
    return { mode: 'record', pages: changed.length, bytes_written: recordBytes, image_bytes: image.length };
  }

  private snapshot(image: Uint8Array, hashes: BigUint64Array, pageSize: number): CommitReport {
    atomicWrite(this.dbPath, image);
    const header = logHeader(image, pageSize);
    atomicWrite(changesPath(this.dbPath), header);
    this.hashes = hashes; this.pageSize = pageSize;
    this.logEnd = HEADER_BYTES; this.logBytes = 0; this.nextSeq = 0;
    return { mode: 'snapshot', pages: hashes.length, bytes_written: image.length + HEADER_BYTES, image_bytes: image.length };
  }
}
