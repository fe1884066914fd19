/**
 * Matching link sites into links, across every repository of the workspace. Pure: sites in, links out.
 *
 * A link goes from the consumer (a client call, a reader, a query, a subscriber, a flag check) to the
 * provider (a route's handler, a .env line or config key, a model or DDL, a producer, a flag's config
 * key). A site with no counterpart is kept as a link to its key node (`route:GET /users/{id}`,
 * `env:X`, `table:t`, `topic:kafka:t`, `flag:f`) with matched=false (at most 0.5): an unmatched client
 * call is reported, never dropped — except listeners of emitter events nothing in the workspace emits
 * (a stream's 'data', a socket's 'connect': library events, not links).
 *
 * Confidence (the one scoring concept; exact ≥ 0.9): the lower of the two sites' extraction
 * confidences, times how exactly the keys match — HTTP: method and path equal 1, a route placeholder
 * against a literal segment 0.9 each, either method unspecified (`*`) 0.9, a client path with a host
 * 0.95 or a base it did not spell 0.9, a client path that only ends with the route (or the route with
 * the client path: an unseen mount prefix) 0.75, never when the shorter side is placeholders only; config: a key path that ends with the read key 0.8;
 * several equally good providers: at most 0.6.
 *
 * Readers of one key in different files (two readers of `SHOP_PAYMENT_KEY`, in two languages; two queries
 * of table `orders`; a topic's consumers) are linked through the key node even when nothing in the
 * workspace defines it: matched, to the key node, at most SHARED_KEY_MAX (the key may be set elsewhere,
 * but these sites change together). HTTP calls are not: a shared URL says nothing about the server.
 */
import type { LinkKind, LinkSite } from './types';
import { MOUNT } from './rules';
import { normalisePath, joinRoute } from './paths';

/** The confidence of a link between readers of one key that nothing in the workspace defines. */
export const SHARED_KEY_MAX = 0.7;

export interface PlacedSite extends LinkSite { repo_id: string; path: string }

export interface LinkRow {
  /** the match group the row belongs to (`siteGroups`): the consumer's, or an unmatched provider's */
  grp: string;
  kind: LinkKind; key: string; from_id: string; to_id: string; matched: boolean; confidence: number; evidence: string;
  repo_id: string; path: string; line: number; col: number; end_line: number; end_col: number;
  to_repo_id: string | null; to_path: string | null; to_line: number | null; to_col: number | null; to_end_line: number | null; to_end_col: number | null;
}

const KEY_NODE: Record<LinkKind, string> = { http: 'route', env: 'env', config: 'config', sql: 'table', topic: 'topic', flag: 'flag' };
export const keyNode = (kind: LinkKind, label: string) => `${KEY_NODE[kind]}:${label}`;
export const KEY_NODE_PREFIXES = Object.values(KEY_NODE);

const MAX_PROVIDERS = 5;
const UNMATCHED_MAX = 0.5;
const round = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Match groups: a site can only ever match sites of its own group, so a change re-matches just the
 * groups its old and new sites were in (the links phase). HTTP: the last path segment (a match, whole or
 * by suffix, needs equal last segments); routes ending in a placeholder, or with none, match any last
 * segment: they are all in `WILD_ROUTES`, matched with every HTTP group; mounts (`MOUNTS`) change routes'
 * prefixes, so a changed mount re-matches every HTTP group. Config: the key's last dotted component
 * (`a.b.c` answers `b.c` and `c`). The other kinds: the key. A provider naming its handler by identifier
 * is also in `handler:<repo>`: a change of the repository's definitions resolves it again.
 */
export const WILD_ROUTES = 'http:*';
export const MOUNTS = 'http:mount';
export const handlerGroup = (repoId: string) => `handler:${repoId}`;
export function primaryGroup(s: LinkSite): string {
  if (s.kind === 'http') {
    if (s.key.startsWith(MOUNT)) return MOUNTS;
    const last = segs(split(s.key)[1]).at(-1);
    if (s.role === 'provider' && (last === undefined || last.includes('{}'))) return WILD_ROUTES;
    return `http:${last ?? ''}`;
  }
  if (s.kind === 'config') return `config:${s.key.split('.').at(-1)}`;
  return `${s.kind}:${s.key}`;
}
export function siteGroups(s: LinkSite, repoId: string): string[] {
  const g = primaryGroup(s);
  return s.handler && s.role === 'provider' ? [g, handlerGroup(repoId)] : [g];
}

/** Which groups a match covers (all when absent), and whether a wild route is matched by a consumer outside them. */
export interface MatchScope { groups: ReadonlySet<string>; usedOutside: (provider: PlacedSite) => boolean }

/** How well a client path matches a route path (segments), 0 when they do not. */
function pathScore(client: string[], route: string[]): number {
  if (client.length !== route.length) return 0;
  let s = 1;
  for (let i = 0; i < client.length; i++) {
    const c = client[i]!; const r = route[i]!;
    if (c === r) continue;
    if (r === '{}' || (r.includes('{}') && new RegExp(`^${r.split('{}').map(x => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}$`).test(c))) { s *= c === '{}' ? 1 : 0.9; continue; }
    return 0;
  }
  return s;
}

/** A site's method and path segments, computed once per site. */
const parsed = new WeakMap<PlacedSite, { method: string; segs: string[] }>();
function parts(s: PlacedSite): { method: string; segs: string[] } {
  let p = parsed.get(s);
  if (!p) { const [m, path] = split(s.key); p = { method: m, segs: segs(path) }; parsed.set(s, p); }
  return p;
}

function httpScore(c: PlacedSite, r: PlacedSite): { score: number; how: string } {
  const { method: cm, segs: cs } = parts(c); const { method: rm, segs: rs } = parts(r);
  if (cm !== rm && cm !== '*' && rm !== '*') return { score: 0, how: '' };
  let method = cm === rm ? 1 : 0.9;
  let score = pathScore(cs, rs); let how = 'method and path';
  // a suffix match needs a literal segment in the shorter side: `/:id` or a catch-all `*` alone would
  // bind every client path of that length (GET /api/orders to an SPA's `app.get('*')`)
  const literal = (x: string[]) => x.some(s => s !== '{}');
  if (!score && cs.length > rs.length && rs.length && literal(rs)) { score = pathScore(cs.slice(cs.length - rs.length), rs) * 0.75; how = `path ends with the route (prefix /${cs.slice(0, cs.length - rs.length).join('/')} not seen on the server)`; }
  if (!score && rs.length > cs.length && cs.length && literal(cs)) { score = pathScore(cs, rs.slice(rs.length - cs.length)) * 0.75; how = `route ends with the path (base /${rs.slice(0, rs.length - cs.length).join('/')} not in the call)`; }
  if (!score) return { score: 0, how: '' };
  if (c.base === 'host') { method *= 0.95; how += ', host stripped'; }
  if (c.base === 'dynamic') { method *= 0.9; how += ', after a base URL the call does not spell'; }
  return { score: score * method, how };
}
const split = (k: string) => { const i = k.indexOf(' '); return [k.slice(0, i), k.slice(i + 1)] as const; };
const segs = (p: string) => p.split('/').filter(Boolean);

function configScore(c: PlacedSite, p: PlacedSite): { score: number; how: string } {
  if (c.key === p.key) return { score: 1, how: 'key path' };
  if (p.key.endsWith(`.${c.key}`)) return { score: 0.8, how: `key path under ${p.key.slice(0, -c.key.length - 1)}` };
  return { score: 0, how: '' };
}

/** The score of an environment variable defined outside the folders of the file that reads it. */
const ENV_ELSEWHERE = 0.75;
const folderOf = (path: string) => path.slice(0, path.lastIndexOf('/') + 1);

/** A config key defined in a file named like configuration (config.ts), not any YAML/JSON/TOML file. */
const isNamedConfigKey = (p: PlacedSite) => !p.rule.startsWith('keys-');

const where = (s: PlacedSite) => `${s.path}:${s.line}`;

/** A route picked among equally good ones because it is in the calling file: likely, not certain. */
const SAME_FILE_MAX = 0.8;
/**
 * Among equally good routes, the one the calling file serves itself (a test or an example starting its
 * own app and requesting it): the nearest at or above the call, else the nearest below. Null when no
 * route is in the calling file.
 */
function sameFileRoute<T extends { p: PlacedSite }>(c: PlacedSite, best: T[]): T | null {
  const here = best.filter(b => b.p.repo_id === c.repo_id && b.p.path === c.path);
  if (!here.length) return null;
  const above = here.filter(b => b.p.line <= c.line).sort((a, b) => b.p.line - a.p.line);
  return above[0] ?? here.sort((a, b) => a.p.line - b.p.line)[0]!;
}

/**
 * Routes of a router that another file mounts under a literal prefix (`include_router(users.router,
 * prefix='/users')`, `app.use('/api/users', userRoutes)`) get that prefix; the mount sites themselves are
 * not routes. The mount names the router by module and variable: `users.router` is the `router` of a
 * `users.py` of the same repository; an Express mount names the module it imported (`userRoutes.js`),
 * whose routes on any router variable it mounts.
 */
function applyMounts(sites: readonly PlacedSite[], groupOf: Map<PlacedSite, string>): PlacedSite[] {
  const mounts = new Map<string, string>();
  for (const s of sites) if (s.kind === 'http' && s.key.startsWith(MOUNT)) mounts.set(`${s.repo_id}\0${s.key.slice(MOUNT.length)}`, s.label);
  if (!mounts.size) return sites as PlacedSite[];
  const out: PlacedSite[] = [];
  for (const s of sites) {
    if (s.kind !== 'http') { out.push(s); continue; }
    if (s.key.startsWith(MOUNT)) continue;
    const mod = s.path.split('/').pop()!.replace(/\.\w+$/, '');
    // a Python mount names the router variable; an Express one mounts the module's (default) export: any router of it
    const prefix = s.receiver && s.role === 'provider' ? mounts.get(`${s.repo_id}\0${mod}:${s.receiver}`) ?? mounts.get(`${s.repo_id}\0${mod}:*`) : undefined;
    if (prefix === undefined) { out.push(s); continue; }
    const [method, label] = split(s.label);
    const p = normalisePath(joinRoute(prefix, label), true);
    const moved = p ? { ...s, key: `${method} ${p.key}`, label: `${method} ${p.label}` } : s;
    groupOf.set(moved, groupOf.get(s)!);
    out.push(moved);
  }
  return out;
}

/** Every link of the workspace's sites. `ids` gives a site's node id (its definition's symbol id, or its file's). */
export function matchSites(sites: readonly PlacedSite[], ids: (s: PlacedSite) => string, scope?: MatchScope): LinkRow[] {
  const out: LinkRow[] = [];
  const groupOf = new Map<PlacedSite, string>();
  for (const s of sites) groupOf.set(s, primaryGroup(s)); // before mounts (a mount keeps the last segment)
  sites = applyMounts(sites, groupOf);
  const byKind = new Map<LinkKind, { providers: PlacedSite[]; consumers: PlacedSite[] }>();
  for (const s of sites) {
    let g = byKind.get(s.kind); if (!g) byKind.set(s.kind, g = { providers: [], consumers: [] });
    (s.role === 'provider' ? g.providers : g.consumers).push(s);
  }
  const row = (kind: LinkKind, from: PlacedSite, to: PlacedSite | null, confidence: number, evidence: string, label: string): LinkRow => ({
    grp: groupOf.get(from) ?? primaryGroup(from), kind, key: label, from_id: ids(from), to_id: to ? ids(to) : keyNode(kind, label), matched: !!to, confidence: round(to ? confidence : Math.min(UNMATCHED_MAX, confidence)), evidence,
    repo_id: from.repo_id, path: from.path, line: from.line, col: from.col, end_line: from.end_line, end_col: from.end_col,
    to_repo_id: to?.repo_id ?? null, to_path: to?.path ?? null, to_line: to?.line ?? null, to_col: to?.col ?? null, to_end_line: to?.end_line ?? null, to_end_col: to?.end_col ?? null,
  });
  for (const [kind, { providers, consumers }] of byKind) {
    const byKey = new Map<string, PlacedSite[]>();
    for (const p of providers) { const l = byKey.get(p.key); if (l) l.push(p); else byKey.set(p.key, [p]); }
    // the sites that read (query, consume, check) each key: two of them in different files share it
    const readersByKey = new Map<string, PlacedSite[]>();
    for (const c of consumers) { const l = readersByKey.get(c.key); if (l) l.push(c); else readersByKey.set(c.key, [c]); }
    const used = new Set<PlacedSite>();
    const byLast = new Map<string, PlacedSite[]>(); const loose: PlacedSite[] = [];
    if (kind === 'http') for (const p of providers) {
      const last = parts(p).segs.at(-1) ?? '';
      if (last.includes('{}') && last !== '{}') loose.push(p);
      else { const l = byLast.get(last); if (l) l.push(p); else byLast.set(last, [p]); }
    }
    const routeCandidates = (c: PlacedSite): PlacedSite[] => {
      const last = parts(c).segs.at(-1) ?? '';
      return [...(byLast.get(last) ?? []), ...(last !== '{}' ? byLast.get('{}') ?? [] : []), ...loose];
    };
    for (const c of consumers) {
      if (scope && !scope.groups.has(groupOf.get(c)!)) continue;
      let best: { p: PlacedSite; score: number; how: string }[] = [];
      const consider = (p: PlacedSite, score: number, how: string) => {
        if (score <= 0) return;
        if (!best.length || score > best[0]!.score + 1e-9) best = [{ p, score, how }];
        else if (Math.abs(score - best[0]!.score) < 1e-9) best.push({ p, score, how });
      };
      // a match (whole or suffix) needs equal last segments, or a route placeholder there
      if (kind === 'http') for (const p of routeCandidates(c)) { const s = httpScore(c, p); consider(p, s.score, s.how); }
      else if (kind === 'config') {
        // files named like configuration first; any other YAML/JSON/TOML file only when none has the key
        for (const named of [true, false]) {
          if (best.length) break;
          const tier = (p: PlacedSite) => isNamedConfigKey(p) === named;
          for (const p of byKey.get(c.key) ?? []) if (tier(p)) consider(p, 1, 'key path');
          if (!best.length) for (const p of providers) if (tier(p)) { const s = configScore(c, p); consider(p, s.score, s.how); }
        }
      } else if (kind === 'env') {
        // a variable is set for the programs under the .env or Compose file's folder: those definitions
        // first; one elsewhere (another project of a monorepo) is a weaker match
        for (const p of byKey.get(c.key) ?? []) {
          const near = p.repo_id === c.repo_id && c.path.startsWith(folderOf(p.path));
          consider(p, near ? 1 : ENV_ELSEWHERE, near ? 'same key' : 'same key, defined outside the reading file\'s folders');
        }
      } else for (const p of byKey.get(c.key) ?? []) consider(p, 1, 'same key');
      if (!best.length) {
        if (kind === 'topic' && c.key.startsWith('event:')) continue; // a library event, not a link
        const peers = kind === 'http' ? [] : (readersByKey.get(c.key) ?? []).filter(o => o !== c && (o.repo_id !== c.repo_id || o.path !== c.path));
        if (peers.length) {
          // readers of one key in other files: linked through the key, though nothing here defines it
          const others = peers.slice(0, 3).map(where).join(', ') + (peers.length > 3 ? ', …' : '');
          const conf = Math.min(c.confidence, SHARED_KEY_MAX);
          const why = `${c.rule} ${c.label} at ${where(c)} shares the key with ${peers.length} other site(s) (${others}); nothing in the workspace defines it`;
          out.push({ ...row(kind, c, null, conf, why, c.label), matched: true, confidence: round(conf) });
          continue;
        }
        out.push(row(kind, c, null, c.confidence, `${c.rule}: ${c.label} at ${where(c)}; nothing in the workspace provides it (unmatched)`, c.label));
        continue;
      }
      const local = kind === 'http' && best.length > 1 ? sameFileRoute(c, best) : null;
      if (local) best = [{ ...local, how: `${local.how}; of ${best.length} equally good routes, the one in the calling file (nearest above the call)` }];
      // several definitions of one env variable or config key (.env, .env.example) are all its definitions
      const ambiguous = best.length > 1 && kind !== 'env' && kind !== 'config';
      for (const b of best.slice(0, MAX_PROVIDERS)) {
        used.add(b.p);
        let conf = Math.min(c.confidence, b.p.confidence) * b.score;
        if (ambiguous) conf = Math.min(conf, 0.6);
        if (local) conf = Math.min(conf, SAME_FILE_MAX);
        const handler = b.p.handler ? ` (handler ${b.p.handler})` : '';
        out.push(row(kind, c, b.p, conf, `${c.rule} ${c.label} at ${where(c)} → ${b.p.rule} ${b.p.label}${handler} at ${where(b.p)}: ${b.how}${ambiguous ? `; ${best.length} equally good matches` : ''}`, b.p.label));
      }
    }
    for (const p of providers) {
      // config keys nothing reads are most of a config file, a quiet provider's mostly its own: only the read ones are links
      if (used.has(p) || kind === 'config' || p.quiet || (scope && !scope.groups.has(groupOf.get(p)!))) continue;
      if (scope && groupOf.get(p) === WILD_ROUTES && scope.usedOutside(p)) continue;
      out.push(row(kind, p, null, p.confidence, `${p.rule}: ${p.label}${p.handler ? ` (handler ${p.handler})` : ''} at ${where(p)}; nothing in the workspace uses it (unmatched)`, p.label));
    }
  }
  return out;
}
