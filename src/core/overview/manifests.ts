/**
 * Package manifests as entry-point declarations: package.json (`bin`, `main`/`module`/`exports`),
 * pyproject.toml (`[project.scripts]`, `[project.gui-scripts]`, `[tool.poetry.scripts]`), Cargo.toml
 * (`[[bin]]`, `[lib]`, the default src/main.rs and src/lib.rs) and go.mod (the module's root package).
 * TOML is read with smol-toml. Manifests are not indexed (no language of the table): they are read from
 * the workspace under the containment rules, by the caller's `read`.
 */
import { parse as parseToml } from 'smol-toml';
import { posix } from 'node:path';

export const MANIFEST_NAMES = ['package.json', 'pyproject.toml', 'Cargo.toml', 'go.mod'] as const;
export type ManifestName = (typeof MANIFEST_NAMES)[number];

/** One thing a manifest declares: a command (cli) or a library's root (package_root). */
export interface Declared {
  kind: 'cli' | 'package_root';
  /** the command or package name */
  name: string;
  /** the manifest, repository-relative */
  manifest: string;
  /** a file, repository-relative, as declared (may be a build output: the caller maps it to a source) */
  path?: string;
  /** a Python module (dotted) and attribute, for [project.scripts] */
  module?: string; attr?: string;
  /** a default the manifest does not spell out (src/main.rs, src/lib.rs): dropped quietly when no such file is indexed */
  implicit?: boolean;
}

export interface ParsedManifest { declared: Declared[]; error: string | null }

const join = (dir: string, rel: string) => posix.normalize(dir === '.' ? rel : `${dir}/${rel}`).replace(/^\.\//, '');
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What a manifest at `dir/<name>` declares; `text` is its content. Never throws: a broken manifest is an error string. */
export function parseManifest(name: ManifestName, dir: string, text: string): ParsedManifest {
  const manifest = join(dir, name);
  const out: Declared[] = [];
  try {
    if (name === 'package.json') {
      const pkg = JSON.parse(text) as Record<string, unknown>;
      const pkgName = typeof pkg.name === 'string' ? pkg.name : posix.basename(dir === '.' ? manifest : dir);
      if (typeof pkg.bin === 'string') out.push({ kind: 'cli', name: pkgName.replace(/^@[^/]+\//, ''), manifest, path: join(dir, pkg.bin) });
      else if (isObj(pkg.bin)) for (const [cmd, target] of Object.entries(pkg.bin)) if (typeof target === 'string') out.push({ kind: 'cli', name: cmd, manifest, path: join(dir, target) });
      const roots = new Set<string>();
      const exp = pkg.exports;
      const firstString = (v: unknown): string | undefined => {
        if (typeof v === 'string') return v;
        if (Array.isArray(v)) return v.map(firstString).find(Boolean);
        if (isObj(v)) for (const k of ['source', 'types', 'import', 'require', 'default', 'node']) { const s = firstString(v[k]); if (s) return s; }
        return undefined;
      };
      const dot = isObj(exp) && Object.keys(exp).some(k => k.startsWith('.')) ? exp['.'] : exp;
      for (const v of [firstString(dot), pkg.source, pkg.module, pkg.main, pkg.types]) if (typeof v === 'string' && v) roots.add(join(dir, v));
      out.push({ kind: 'package_root', name: pkgName, manifest, ...(roots.size ? { path: [...roots][0] } : { implicit: true }) });
      for (const r of [...roots].slice(1)) out.push({ kind: 'package_root', name: pkgName, manifest, path: r });
    } else if (name === 'pyproject.toml') {
      const t = parseToml(text) as Record<string, unknown>;
      const project = isObj(t.project) ? t.project : {};
      const poetry = isObj(t.tool) && isObj(t.tool.poetry) ? t.tool.poetry : {};
      for (const table of [project.scripts, project['gui-scripts'], poetry.scripts]) {
        if (!isObj(table)) continue;
        for (const [cmd, ref] of Object.entries(table)) {
          const spec = typeof ref === 'string' ? ref : isObj(ref) && typeof ref.reference === 'string' ? ref.reference : null;
          const m = spec ? /^\s*([\w.]+)\s*(?::\s*([\w.]+))?/.exec(spec) : null;
          if (m) out.push({ kind: 'cli', name: cmd, manifest, module: m[1]!, ...(m[2] ? { attr: m[2] } : {}) });
        }
      }
      const pkgName = typeof project.name === 'string' ? project.name : typeof poetry.name === 'string' ? poetry.name : null;
      if (pkgName) out.push({ kind: 'package_root', name: pkgName, manifest, module: pkgName.replace(/-/g, '_'), implicit: true });
    } else if (name === 'Cargo.toml') {
      const t = parseToml(text) as Record<string, unknown>;
      const pkg = isObj(t.package) ? t.package : null;
      const crate = typeof pkg?.name === 'string' ? pkg.name : null;
      const bins = Array.isArray(t.bin) ? t.bin.filter(isObj) : [];
      for (const b of bins) {
        const bName = typeof b.name === 'string' ? b.name : crate;
        if (!bName) continue;
        out.push({ kind: 'cli', name: bName, manifest, path: join(dir, typeof b.path === 'string' ? b.path : bName === crate ? 'src/main.rs' : `src/bin/${bName}.rs`) });
      }
      // the default binary (src/main.rs) and library (src/lib.rs) when the manifest has a [package]
      if (crate && !bins.some(b => b.path === 'src/main.rs' || (b.name === crate && b.path === undefined))) out.push({ kind: 'cli', name: crate, manifest, path: join(dir, 'src/main.rs'), implicit: true });
      if (crate) {
        const lib = isObj(t.lib) ? t.lib : {};
        out.push({ kind: 'package_root', name: typeof lib.name === 'string' ? lib.name : crate, manifest, path: join(dir, typeof lib.path === 'string' ? lib.path : 'src/lib.rs'), ...(typeof lib.path === 'string' ? {} : { implicit: true }) });
      }
    } else if (name === 'go.mod') {
      const m = /^\s*module\s+("?)([^\s"]+)\1/m.exec(text);
      if (m) out.push({ kind: 'package_root', name: m[2]!, manifest, path: dir });
    }
    return { declared: out, error: null };
  } catch (e) {
    return { declared: out, error: `${manifest}: ${(e as Error).message.split('\n')[0]}` };
  }
}
