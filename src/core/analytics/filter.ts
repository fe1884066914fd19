/** The `path` argument of analytics: a folder or file prefix, or a glob (picomatch) when it has glob characters. */
import picomatch from 'picomatch';

export function pathMatcher(path?: string): (p: string) => boolean {
  if (!path) return () => true;
  const clean = path.replace(/^\.\/+/, '').replace(/\/+$/, '');
  if (/[*?[\]{}()!]/.test(clean)) { const m = picomatch(clean, { dot: true }); return p => m(p); }
  return p => p === clean || p.startsWith(`${clean}/`) || (clean === '' || clean === '.');
}

/** The folder of a path ('.' at the top). */
export const folderOf = (p: string): string => { const i = p.lastIndexOf('/'); return i < 0 ? '.' : p.slice(0, i); };
