/**
 * The database file in a buffer Sightline owns, so that a save reads the pages where SQLite wrote them
 * instead of asking sql.js for a copy of the whole database.
 *
 * sql.js keeps its database file in Emscripten's in-memory file system. A file created from a Node
 * `Buffer` is a view of that buffer (the file system slices what it is given, and a Buffer's slice shares
 * its memory), and SQLite's writes land in it for as long as the file does not outgrow it. So the buffer
 * is made larger than the database (its tail is zeros, which cost no memory until written where the
 * runtime maps a large zero-filled allocation lazily, as Node does on Linux), the file is that whole buffer, and SQLite, which trusts the
 * page count in the database header over the file's size, grows the database into the tail.
 *
 * Two things make the file system let go of the buffer: the database growing past its end, and a
 * truncation (a rolled-back transaction that grew the file, VACUUM). Neither is assumed away: a save
 * first commits one write (the save time) and checks that SQLite's file change counter, which every
 * commit advances on page 1, advanced in the buffer. If it did not, the buffer is no longer the file and
 * the save takes sql.js's copy (`export()`), as it always did; the store then serves the database from a
 * new buffer (`Db.rebase`). Before the database fills its buffer, `Store.keepRoom` moves it to one twice
 * its size, between writes; a cold index grows through a handful of these instead of the file system's
 * many small reallocations (each a copy of the whole file).
 */
import { constants } from 'node:buffer';
import { closeSync, readSync } from 'node:fs';

/** The smallest buffer a database gets (a new index starts in it). */
export const MIN_CAPACITY = 16 * 1024 * 1024;
/** The largest: beyond it the file system's own growth takes over (and saves copy the database). */
export const MAX_CAPACITY = Math.min(constants.MAX_LENGTH, 2 ** 31) - 65536;
/** Move to a larger buffer once the database fills this share of its buffer. */
export const FULL_SHARE = 0.8;

/** The buffer size for a database of `bytes`: twice that (room to grow), at least MIN_CAPACITY. */
export function capacityFor(bytes: number): number {
  return Math.max(bytes, Math.min(MAX_CAPACITY, Math.max(MIN_CAPACITY, 2 * bytes)));
}

/** A zero-filled buffer of `capacity` bytes starting with `image`. */
export function reserved(image: Uint8Array, capacity: number): Buffer {
  const buf = Buffer.alloc(Math.max(capacity, image.length));
  buf.set(image, 0);
  return buf;
}

/** SQLite's file change counter (header offset 24): every commit of a rollback-journal database advances it. */
export function changeCounter(buf: Uint8Array): number {
  return ((buf[24]! << 24) | (buf[25]! << 16) | (buf[26]! << 8) | buf[27]!) >>> 0;
}

/** The page size an SQLite image's header declares; 0 when it is too short or declares none (not a database). */
export function declaredPageSize(image: Uint8Array): number {
  if (image.length < 100) return 0;
  const raw = (image[16]! << 8) | image[17]!;
  return raw === 1 ? 65536 : raw;
}

/** Pages are read from the index file in blocks of this many bytes (SQLite's smallest usual page size; a larger page is a run of blocks). */
export const LOAD_BLOCK = 4096;
/** Reads that follow on from the last one grow up to this many blocks (a table scan reads ahead; a lookup reads its page). */
export const MAX_READ_AHEAD = 256;
/** Index files at least this large are read as SQLite asks for their pages, not whole at open (see PagedBuffer). */
export const LAZY_MIN_BYTES = 32 * 1024 * 1024;

/**
 * The buffer a database file lives in (see above), watched: every write SQLite makes to the file is
 * recorded by page, so a save hashes and compares the pages written since the last save instead of all
 * of them; and, when given the index file to read from, the buffer is filled as SQLite reads it (blocks of
 * LOAD_BLOCK), so a new process that touches a few thousand pages of a 400 MB index reads those, not the
 * whole file.
 *
 * Both ride on how the in-memory file system handles the file: it keeps the array it is given (through
 * `slice`), reads with `subarray` and writes with `set`. The file handed to sql.js (`file`) is a typed
 * array of a class whose three methods report to this object first. Anything else the file system might do
 * with the file (grow or truncate it) replaces the array; the store notices that (changeCounter) and
 * stops trusting this buffer, and with it the written pages (`written` is then null).
 *
 * Pages not read yet hold zeros in `buf`: code that reads `buf` directly asks for the range first
 * (`load`, `loadAll`). Page 1 (the header) is always read.
 */
export class PagedBuffer {
  /** the view of `buf` the file system holds as the file */
  readonly file: Uint8Array;
  private readonly written: Uint8Array;
  private writtenList: number[] = [];
  /** written pages are not known (the buffer did not start as the saved index, or was let go) */
  private unknown: boolean;
  /** per LOAD_BLOCK: 1 once `buf` holds it; null when every block is held */
  private loaded: Uint8Array | null = null;
  private missing = 0;
  private fd: number | null = null;
  private fileSize = 0;
  /** bytes read from the index file after open (the lazy reads), and in how many reads */
  lazyBytes = 0;
  lazyReads = 0;
  private lastEnd = -1;
  private ahead = 1;

  /**
   * `clean`: the buffer holds the saved index (nothing is written yet); otherwise the first save
   * compares every page. `source`: the index file's descriptor and size, when `buf` is filled lazily
   * (only its header is held yet); this object owns the descriptor from now on.
   */
  constructor(readonly buf: Buffer, readonly pageSize: number, clean: boolean, source?: { fd: number; size: number }) {
    this.written = new Uint8Array(Math.ceil(buf.length / pageSize));
    this.unknown = !clean;
    if (source) {
      this.fd = source.fd; this.fileSize = Math.min(source.size, buf.length);
      const blocks = Math.ceil(this.fileSize / LOAD_BLOCK);
      this.loaded = new Uint8Array(blocks); this.missing = blocks;
      this.load(0, Math.min(this.fileSize, pageSize));
    }
    this.file = fileView(this);
  }

  /** Makes `buf` hold the bytes [start, end) of the file (reading the blocks not read yet). */
  load(start: number, end: number): void {
    const loaded = this.loaded;
    if (!loaded || end <= start) return;
    const last = Math.min(Math.ceil(Math.min(end, this.fileSize) / LOAD_BLOCK), loaded.length);
    for (let b = Math.floor(start / LOAD_BLOCK); b < last; b++) {
      if (loaded[b]) continue;
      // one read for the run of blocks asked for and not held yet; a read that follows on from the last
      // one reads ahead (doubling, up to MAX_READ_AHEAD blocks), as a scan of a table goes on
      this.ahead = b === this.lastEnd ? Math.min(this.ahead * 2, MAX_READ_AHEAD) : 1;
      const limit = Math.min(Math.max(last, b + this.ahead), loaded.length);
      let n = b + 1;
      while (n < limit && !loaded[n]) n++;
      const from = b * LOAD_BLOCK; const to = Math.min(n * LOAD_BLOCK, this.fileSize);
      let off = from;
      while (off < to) { const got = readSync(this.fd!, this.buf, off, to - off, off); if (got === 0) break; off += got; }
      this.lazyBytes += off - from; this.lazyReads++;
      loaded.fill(1, b, n); this.missing -= n - b; this.lastEnd = n; b = n - 1;
    }
    if (this.missing === 0) this.release();
  }


  /** Reads every block not read yet (before `buf` is copied or written out whole). */
  loadAll(): void { if (this.loaded) this.load(0, this.fileSize); }

  /** Marks [start, end) as held without reading it (about to be overwritten); a block only partly overwritten is read first. */
  private cover(start: number, end: number): void {
    for (let b = Math.floor(start / LOAD_BLOCK), last = Math.floor((end - 1) / LOAD_BLOCK); b <= last; b++) {
      const loaded = this.loaded;
      if (!loaded || b >= loaded.length) return;
      if (loaded[b]) continue;
      if (start <= b * LOAD_BLOCK && end >= Math.min((b + 1) * LOAD_BLOCK, this.fileSize)) {
        loaded[b] = 1;
        if (--this.missing === 0) this.release();
      } else this.load(b * LOAD_BLOCK, b * LOAD_BLOCK + 1);
    }
  }

  /** SQLite reads [start, end) of the file. */
  reading(start: number, end: number): void { if (this.loaded) this.load(start, end); }

  /** SQLite writes [start, start + length) of the file. */
  writing(start: number, length: number): void {
    if (length <= 0) return;
    this.cover(start, start + length);
    const ps = this.pageSize;
    for (let p = Math.floor(start / ps), last = Math.floor((start + length - 1) / ps); p <= last && p < this.written.length; p++) {
      if (!this.written[p]) { this.written[p] = 1; this.writtenList.push(p); }
    }
  }

  /** Copies `bytes` (pages of the change log, already saved) into the buffer at `at`: held, not written. */
  place(bytes: Uint8Array, at: number): void { this.cover(at, at + bytes.length); this.buf.set(bytes, at); }

  /** Zeros [start, end) (a replayed record grew the database over what a smaller one left): held, not written. */
  zero(start: number, end: number): void { this.cover(start, end); this.buf.fill(0, start, end); }

  /** The pages written since the last `saved()`, in order; null when they are not known (every page must be compared). */
  writtenPages(): number[] | null { return this.unknown ? null : [...this.writtenList].sort((a, b) => a - b); }

  /** The state of the buffer was persisted: nothing is written since. */
  saved(): void {
    for (const p of this.writtenList) this.written[p] = 0;
    this.writtenList = [];
    this.unknown = false;
  }

  /** The file system let go of the buffer: what SQLite writes now is not seen here. */
  lost(): void { this.unknown = true; }

  /** A new buffer of `capacity` bytes holding this one's database (`size` bytes), with its written pages. */
  moved(size: number, capacity: number): PagedBuffer {
    this.loadAll();
    const next = new PagedBuffer(reserved(this.buf.subarray(0, size), capacity), this.pageSize, !this.unknown);
    for (const p of this.writtenList) if (p < next.written.length) { next.written[p] = 1; next.writtenList.push(p); }
    return next;
  }

  /** Closes the index file (every block held, or the database closed). */
  release(): void {
    if (this.fd !== null) { try { closeSync(this.fd); } catch { /* already closed */ } }
    this.fd = null; this.loaded = null; this.missing = 0;
  }
}

/** The typed array the file system holds as the file: reads and writes through it are reported to `owner`. */
function fileView(owner: PagedBuffer): Uint8Array {
  const base = owner.buf.byteOffset;
  class FileView extends Uint8Array<ArrayBuffer> {
    static get [Symbol.species]() { return FileView; }
    override subarray(begin = 0, end = this.length): Uint8Array<ArrayBuffer> {
      const at = this.byteOffset - base;
      const b = begin < 0 ? Math.max(this.length + begin, 0) : Math.min(begin, this.length);
      const e = end < 0 ? Math.max(this.length + end, 0) : Math.min(end, this.length);
      if (e > b) owner.reading(at + b, at + e);
      return super.subarray(begin, end);
    }
    // the file system takes the array it is given through slice (a view, not a copy, and nothing read yet)
    override slice(begin?: number, end?: number): Uint8Array<ArrayBuffer> { return super.subarray(begin, end); }
    override set(source: ArrayLike<number>, offset = 0): void {
      owner.writing(this.byteOffset - base + offset, source.length);
      super.set(source, offset);
    }
  }
  return new FileView(owner.buf.buffer as ArrayBuffer, owner.buf.byteOffset, owner.buf.length);
}
