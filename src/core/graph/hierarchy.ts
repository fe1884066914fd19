/**
 * One method and its overrides: when every definition of a method name belongs to one class hierarchy
 * (`Expr.as_const` and the thirty node classes that override it), a call of that name on a receiver of
 * unknown type is a call of the hierarchy's root method, and base-class dispatch (dispatch.ts) reaches
 * the overrides. Names shared by unrelated classes have many roots (2–3 are bound as ambiguous).
 */
import { symbolKey, type GSymbol, type RepoTables } from './tables';

/** The classes `cls` derives from (bases resolved on demand), nearest first. */
export function ancestors(t: RepoTables, cls: GSymbol): GSymbol[] {
  const out: GSymbol[] = [];
  const seen = new Set<number>([cls.id]);
  for (let frontier = [cls]; frontier.length;) {
    const next: GSymbol[] = [];
    for (const c of frontier) {
      for (const key of t.basesFor(c) ?? []) {
        const b = t.byFilePath.get(key);
        if (b && !seen.has(b.id)) { seen.add(b.id); out.push(b); next.push(b); }
      }
    }
    frontier = next;
  }
  return out;
}

/**
 * The methods among `methods` (all named alike) that override none of the others: one when they form a
 * single hierarchy; empty when some method belongs to no class.
 */
export function hierarchyRoots(t: RepoTables, methods: readonly GSymbol[]): GSymbol[] {
  const key = `roots\0${methods.map(m => m.id).join(',')}`;
  if (t.passMemo.has(key)) return t.passMemo.get(key) as GSymbol[];
  const owner = (m: GSymbol) => (m.parent ? t.byFilePath.get(symbolKey(m.fileId, m.parent)) : undefined);
  const owners = new Map(methods.map(m => [m.id, owner(m)]));
  const byOwner = new Map([...owners].filter(([, o]) => o).map(([id, o]) => [o!.id, id]));
  const roots = methods.filter(m => {
    const o = owners.get(m.id);
    return o !== undefined && !ancestors(t, o).some(a => byOwner.has(a.id));
  });
  const out = [...owners.values()].every(Boolean) ? roots : [];
  t.passMemo.set(key, out);
  return out;
}
