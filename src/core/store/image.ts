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
