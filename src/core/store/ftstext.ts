/**
 * The token text a file fed to the full-text index, kept (deflated) so that FTS4 can delete a chunk's
 * terms later (see file_text in schema.ts). Layout: path tokens, then name and body tokens of each
 * chunk in order, NUL-separated (tokens never contain NUL).
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';

export function packFtsText(path: string, chunks: readonly { fts_name: string; fts_body: string }[]): Uint8Array {
  const parts = [path];
  for (const c of chunks) parts.push(c.fts_name, c.fts_body);
  return deflateRawSync(Buffer.from(parts.join('\0'), 'utf8'), { level: 1 });
}

export function unpackFtsText(data: Uint8Array): string[] {
  return inflateRawSync(data).toString('utf8').split('\0');
}
