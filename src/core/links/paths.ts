/**
 * HTTP path patterns: every framework's placeholder style (`/:id`, `/{id}`, `{id:int}`, `<int:id>`,
 * `[id]`, `*rest`, a template literal's `${id}`, an f-string's `{user_id}`, `%s`) becomes one placeholder,
 * `{}` in the match key and `{name}` in the label. Scheme and host are stripped; a leading interpolation
 * (`${API_URL}/users`) is a base the code did not spell.
 */

export interface RoutePath { key: string; label: string; base?: 'dynamic' | 'host' }

const PLACEHOLDER = /^(?:\{([^{}]*)\}|<(?:[^:<>]+:)?([^<>]+)>|:(\w+)(?:\(.*\))?\??|\[(?:\.\.\.)?\[?(?:\.\.\.)?([^\]]+)\]?\]|\*(\w*)|%[sdvif])$/;
const LITERAL = /^[\w\-.~%@!$&'()+,;=:]+$/;

/** Normalises a route or client path; null when it is not a path (a word, a sentence, an expression). */
export function normalisePath(raw: string, server: boolean): RoutePath | null {
  let s = raw.trim();
  let base: RoutePath['base'];
  const host = /^(?:[a-z][a-z0-9+.-]*:)?\/\/[^/?#]*/i.exec(s);
  if (host) { s = s.slice(host[0].length); base = 'host'; }
  else if (!server && /^(?:\{[^{}]*\})+/.test(s)) { s = s.replace(/^(?:\{[^{}]*\})+/, ''); base = 'dynamic'; }
  s = s.replace(/[?#].*$/, '');
  if (!s.startsWith('/')) {
    if (!server && !base) return null; // a client path must be absolute (or follow a base)
    s = `/${s}`;
  }
  const keys: string[] = []; const labels: string[] = [];
  for (const seg of s.split('/')) {
    if (!seg) continue;
    const p = PLACEHOLDER.exec(seg);
    if (p) {
      const name = p.slice(1).find(x => x !== undefined) || 'param';
      keys.push('{}'); labels.push(`{${name.replace(/[^\w]/g, '') || 'param'}}`);
      continue;
    }
    if (seg.includes('{')) { // a segment with an embedded placeholder: v{version}, {id}.json
      const k = seg.replace(/\{[^{}]*\}/g, '{}');
      if (!/^[\w\-.~{}]+$/.test(k)) return null;
      keys.push(k.toLowerCase()); labels.push(seg); continue;
    }
    if (!LITERAL.test(seg)) return null;
    keys.push(seg.toLowerCase()); labels.push(seg);
  }
  return { key: `/${keys.join('/')}`, label: `/${labels.join('/')}`, ...(base ? { base } : {}) };
}

/** Joins a route prefix (a controller's, a router's) and a route path. */
export function joinRoute(prefix: string, path: string): string {
  if (!prefix) return path;
  const a = prefix.replace(/\/+$/, ''); const b = path.replace(/^\/+/, '');
  return b ? `${a.startsWith('/') ? a : `/${a}`}/${b}` : (a.startsWith('/') ? a : `/${a}`) || '/';
}

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
