/**
 * Code embedded in another file: the `<script>` blocks of a single-file component (Vue, Svelte). The
 * rest of the file is blanked (every character but line breaks becomes a space), so the copy has the
 * file's length and lines, a tree parsed from it has the file's own positions, and node text read from
 * the original is the same.
 */
const SCRIPT_BLOCK = /(<script\b[^>]*>)([\s\S]*?)(<\/script\s*>)/gi;

export function scriptBlocksOnly(source: string): string {
  const out = source.replace(/[^\n]/g, ' ').split('');
  for (const m of source.matchAll(SCRIPT_BLOCK)) {
    const start = m.index + m[1]!.length;
    for (let i = start; i < start + m[2]!.length; i++) out[i] = source[i]!;
  }
  return out.join('');
}
