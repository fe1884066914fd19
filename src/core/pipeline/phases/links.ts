/**
 * Phase "links": after the scan, the config files the walk reported (.env, YAML, JSON, TOML,
 * .properties; links/rules.ts `isConfigFile`, links/config.ts) whose size or mtime changed are read and their sites
 * stored; then the match groups whose sites changed (store `link_dirty`: a code file parsed or deleted —
 * its sites came from the parser worker with it —, a config file read or gone) are matched again
 * (links/match.ts `siteGroups`): only the sites of those groups are read, and only their links are
 * replaced. Any HTTP group brings the routes that match every last segment (`WILD_ROUTES`) and the
 * mounts; a changed mount or wild route re-matches all HTTP groups; a repository whose definitions changed re-resolves
 * the routes that name their handler by identifier (`handler:<repo>`). The first run, a forced one, or
 * an index without links matches everything. A run that changed nothing reads no file and writes nothing.
 */
import { readContainedSync } from '../../util/contained';
import { symbolId, fileNodeId } from '../../util/ids';
import { extractConfigSites } from '../../links/config';
import { matchSites, primaryGroup, handlerGroup, WILD_ROUTES, MOUNTS, type PlacedSite, type MatchScope } from '../../links/match';
import { phase } from '../runner';
import type { IndexEnv } from '../env';
import { scanPhase } from './scan';

export interface LinksPhaseOutput { config_files_read: number; sites: number; links: number | null; groups: number | 'all' }

export const linksPhase = phase({
  name: 'links', deps: [scanPhase],
  run({ scan }, env: IndexEnv, ctx): LinksPhaseOutput {
    const store = env.indexFile.store;
    let read = 0; const all = !store.links.linksBuilt() || scan.repos.some(r => r.report.forced);
    store.transaction(() => {
      for (const { report, config_files } of scan.repos) {
        const stored = store.links.configFiles(report.repo_id);
        for (const f of config_files) {
          const prev = stored.get(f.path); stored.delete(f.path);
          if (prev && prev.size === f.size && prev.mtime_ms === f.mtime_ms) continue;
          const r = readContainedSync(report.root, f.path, env.settings.max_file_bytes);
          const sites = r.ok ? extractConfigSites(f.path, Buffer.from(r.bytes).toString('utf8')) : [];
          store.links.writeConfigFile({ repo_id: report.repo_id, path: f.path, size: f.size, mtime_ms: f.mtime_ms }, sites);
          read++;
        }
        for (const gone of stored.keys()) store.links.deleteConfigFile(report.repo_id, gone);
      }
    });
    // a route handler named by identifier and defined in another file: the repository's only definition of that name, or the nearest
    const handlers = new Map<string, string | null>();
    const ids = (s: PlacedSite) => {
      if (s.handler) {
        const k = `${s.repo_id}\0${s.handler}`;
        let h = handlers.get(k);
        if (h === undefined) {
          // several definitions of the name (a Redux action named like the controller): the one nearest the
          // route's file in the folder tree, when one is nearest
          const found = store.symbols.findSymbols({ repo_id: s.repo_id, name: s.handler }, 20);
          const near = (p: string) => { const a = p.split('/'); const b = s.path.split('/'); let i = 0; while (i < a.length - 1 && i < b.length - 1 && a[i] === b[i]) i++; return i; };
          const best = found.length > 1 ? Math.max(...found.map(f => near(f.path))) : 0;
          const pick = found.length === 1 ? found : found.filter(f => near(f.path) === best);
          h = pick.length === 1 ? symbolId(pick[0]!.repo_id, pick[0]!.path, pick[0]!.symbol_path!) : null;
          handlers.set(k, h);
        }
        if (h) return h;
      }
      return s.symbol_path ? symbolId(s.repo_id, s.path, s.symbol_path) : fileNodeId(s.repo_id, s.path);
    };
    const dirty = store.links.dirtyGroups();
    // definitions added or removed in a repository: a route naming its handler elsewhere whose handler
    // now resolves to another node is matched again
    if (!all) for (const { report, reshaped } of scan.repos) if (report.graph_update === 'full' || reshaped.length) {
      for (const s of store.links.sitesOfGroups([handlerGroup(report.repo_id)], s => !!s.handler && s.role === 'provider')) {
        const g = primaryGroup(s);
        if (!dirty.has(g) && store.links.providerIds(s).some(id => id !== ids(s))) dirty.add(g);
      }
    }
    if (!all && !dirty.size) return { config_files_read: read, sites: 0, links: null, groups: 0 };
    ctx.progress('links', env.roots[0]!.repo_id, 0, 1);
    let scope: MatchScope | undefined; let sites: PlacedSite[];
    if (all) sites = store.links.allSites();
    else {
      const groups = new Set(dirty);
      if ([...groups].some(g => g.startsWith('http:'))) {
        // a changed wild route or mount may match, or have matched, a client of any HTTP group
        if (groups.has(MOUNTS) || groups.has(WILD_ROUTES)) for (const g of store.links.groupsWithPrefix('http:')) groups.add(g);
        groups.add(WILD_ROUTES);
      }
      const load = new Set(groups); if (groups.has(WILD_ROUTES)) load.add(MOUNTS);
      sites = store.links.sitesOfGroups(load, s => load.has(primaryGroup(s)));
      scope = { groups, usedOutside: p => store.links.matchedOutside(p, groups) };
    }
    const links = matchSites(sites, ids, scope);
    store.transaction(() => { store.links.replaceLinks(links, scope?.groups); store.links.clearDirty(); store.links.setLinksBuilt(); });
    env.indexFile.markUnsaved();
    env.log('info', `links: matched ${scope ? `${scope.groups.size} group(s)` : 'every group'}, ${sites.length} site(s), ${links.length} link(s)`);
    return { config_files_read: read, sites: sites.length, links: links.length, groups: scope ? scope.groups.size : 'all' };
  },
});
