/**
 * Modules for the repo map: folders, chosen so that a repository of any shape yields a readable number
 * of them. Start from each repository's root; repeatedly split the module holding the most files into
 * its sub-folders (its own files stay as the folder itself) while the count stays within `max`; a folder
 * that only wraps one sub-folder (`lib/` around `lib/pkg/`) is replaced by it. Small modules (at most
 * MIN_SPLIT files) are never split.
 */
import type { FileInfo } from './model';

export const MIN_SPLIT = 4;

/** `own`: the folder's own files only (its sub-folders are modules of their own). */
export interface ModuleGroup { repo_id: string; path: string; own: boolean; files: FileInfo[] }

interface Dir { path: string; direct: FileInfo[]; children: Map<string, Dir>; total: number }

function tree(files: FileInfo[]): Dir {
  const root: Dir = { path: '.', direct: [], children: new Map(), total: 0 };
  for (const f of files) {
    const parts = f.path.split('/'); parts.pop();
    let d = root; d.total++;
    let path = '';
    for (const p of parts) {
      path = path ? `${path}/${p}` : p;
      let c = d.children.get(p);
      if (!c) d.children.set(p, c = { path, direct: [], children: new Map(), total: 0 });
      d = c; d.total++;
    }
    d.direct.push(f);
  }
  return root;
}

const unwrap = (d: Dir): Dir => { while (!d.direct.length && d.children.size === 1) d = [...d.children.values()][0]!; return d; };
const allFiles = (d: Dir): FileInfo[] => [...d.direct, ...[...d.children.values()].flatMap(allFiles)];

/** Groups files into at most `max` modules (more only when there are more repositories), largest split first; modules of at most `minSplit` files stay whole. */
export function groupModules(files: readonly FileInfo[], max: number, minSplit = MIN_SPLIT): ModuleGroup[] {
  const byRepo = new Map<string, FileInfo[]>();
  for (const f of files) (byRepo.get(f.repo_id) ?? byRepo.set(f.repo_id, []).get(f.repo_id)!).push(f);
  // open: a folder standing for everything under it; closed: a folder standing for its own files only
  type Item = { repo_id: string; dir: Dir; open: boolean };
  const items: Item[] = [...byRepo].map(([repo_id, fs]) => ({ repo_id, dir: unwrap(tree(fs)), open: true }));
  for (;;) {
    const candidates = items.filter(it => it.open && it.dir.children.size > 0 && it.dir.total > minSplit).sort((a, b) => b.dir.total - a.dir.total);
    let split = false;
    for (const it of candidates) {
      const parts = it.dir.children.size + (it.dir.direct.length ? 1 : 0);
      if (items.length - 1 + parts > max) continue;
      items.splice(items.indexOf(it), 1,
        ...(it.dir.direct.length ? [{ repo_id: it.repo_id, dir: it.dir, open: false }] : []),
        ...[...it.dir.children.values()].map(c => ({ repo_id: it.repo_id, dir: unwrap(c), open: true })));
      split = true;
      break;
    }
    if (!split) break;
  }
  return items.map(it => ({ repo_id: it.repo_id, path: it.dir.path, own: !it.open, files: it.open ? allFiles(it.dir) : it.dir.direct }))
    .sort((a, b) => b.files.length - a.files.length || a.path.localeCompare(b.path));
}
