/**
 * Phase "links": after the scan, the config files the walk reported (.env, YAML, JSON, TOML,
 * .properties; links/rules.ts `isConfigFile`) whose size or mtime changed are read and their sites
 * stored; then, when any site of the workspace changed (a code file parsed or deleted — its sites came
 * from the parser worker with it —, a config file read or gone, a forced run), every site of every
 * repository is matched into links again (links/match.ts) and the links table replaced. A run that
 * changed nothing reads no file and writes nothing.
 */
import { readContainedSync } from '../../util/contained';
import { symbolId, fileNodeId } from '../../util/ids';
import { extractConfigSites } from '../../links/extract';
import { matchSites, type PlacedSite } from '../../links/match';
import { phase } from '../runner';
import type { IndexEnv } from '../env';
import { scanPhase } from './scan';

export interface LinksPhaseOutput { config_files_read: number; sites: number; links: number | null }

export const linksPhase = phase({
  name: 'links', deps: [scanPhase],
  run({ scan }, env: IndexEnv, ctx): LinksPhaseOutput {
    const store = env.indexFile.store;
    let read = 0; let changed = !store.links.linksBuilt();
    store.transaction(() => {
      for (const { report, config_files } of scan.repos) {
        if (report.forced || report.files_parsed || report.files_deleted || report.files_skipped) changed = true;
        const stored = store.links.configFiles(report.repo_id);
        for (const f of config_files) {
          const prev = stored.get(f.path); stored.delete(f.path);
          if (prev && prev.size === f.size && prev.mtime_ms === f.mtime_ms) continue;
          const r = readContainedSync(report.root, f.path, env.settings.max_file_bytes);
          const sites = r.ok ? extractConfigSites(f.path, Buffer.from(r.bytes).toString('utf8')) : [];
          store.links.writeConfigFile({ repo_id: report.repo_id, path: f.path, size: f.size, mtime_ms: f.mtime_ms }, sites);
          read++; changed = true;
        }
        for (const gone of stored.keys()) { store.links.deleteConfigFile(report.repo_id, gone); changed = true; }
      }
    });
    if (!changed) return { config_files_read: 0, sites: 0, links: null };
    ctx.progress('links', env.roots[0]!.repo_id, 0, 1);
    const sites = store.links.allSites();
    // a route handler named by identifier and defined in another file: the repository's only definition of that name
    const handlers = new Map<string, string | null>();
    const ids = (s: PlacedSite) => {
      if (s.handler) {
        const k = `${s.repo_id}\0${s.handler}`;
        let h = handlers.get(k);
        if (h === undefined) {
          const found = store.symbols.findSymbols({ repo_id: s.repo_id, name: s.handler }, 2);
          h = found.length === 1 ? symbolId(found[0]!.repo_id, found[0]!.path, found[0]!.symbol_path!) : null;
          handlers.set(k, h);
        }
        if (h) return h;
      }
      return s.symbol_path ? symbolId(s.repo_id, s.path, s.symbol_path) : fileNodeId(s.repo_id, s.path);
    };
    const links = matchSites(sites, ids);
    store.transaction(() => { store.links.replaceLinks(links); store.links.setLinksBuilt(); });
    env.indexFile.markUnsaved();
    return { config_files_read: read, sites: sites.length, links: links.length };
  },
});
