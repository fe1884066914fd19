/**
 * The link rules: which APIs are recognised, as data. Each rule names its kind and role, the languages
 * it applies to, a regular expression that ends where the key's string literal starts (the extractor
 * reads that literal: quotes, template literals, f-strings, concatenation), and how a match becomes a
 * site (key, confidence, anchor). Adding a framework touches this file only; `RECOGNISED` (docs/links.md's
 * list and the tool's boundaries) is derived from it.
 *
 * Why this file is long: it is the table itself — one entry per recognised API across twelve languages.
 */
import type { LanguageId } from '../languages/types';
import type { LinkKind, LinkRole } from './types';
import { normalisePath, joinRoute, HTTP_METHODS } from './paths';

export interface Lit { value: string; start: number; end: number; dynamic: boolean }

/** What a rule sees of the file. */
export interface RuleCtx {
  readonly text: string; readonly path: string; readonly language: LanguageId;
  /** the string literal at `pos` (after blanks), or null */
  lit(pos: number): Lit | null;
  /** the call's argument text from `pos` to its closing parenthesis (at most ~600 characters) */
  args(pos: number): string;
  /** the route prefix in force at `pos` for a receiver (a router variable) or the enclosing class */
  prefix(pos: number, receiver?: string): string;
}

export interface Draft {
  key: string; label?: string; confidence: number;
  /** where the site is (default: the literal, else the match) */
  at?: number; end?: number;
  handler?: string; base?: 'dynamic' | 'host'; receiver?: string;
}

export interface LinkRule {
  id: string;
  /** what is recognised, for docs/links.md and the tool's boundaries */
  api: string;
  kind: LinkKind; role: LinkRole;
  languages: readonly LanguageId[];
  /** only files whose path matches */
  pathRe?: RegExp;
  re: RegExp;
  /** `next`: the site belongs to the definition it decorates (the next one), else the enclosing one */
  anchor?: 'next';
  make(m: RegExpExecArray, c: RuleCtx): Draft | Draft[] | null;
}

const JS: LanguageId[] = ['javascript', 'typescript', 'tsx'];
const PY: LanguageId[] = ['python'];
const GO: LanguageId[] = ['go'];
const JAVA: LanguageId[] = ['java'];
const CS: LanguageId[] = ['csharp'];
const RB: LanguageId[] = ['ruby'];
const PHP: LanguageId[] = ['php'];
const RS: LanguageId[] = ['rust'];
const ALL: LanguageId[] = ['javascript', 'typescript', 'tsx', 'python', 'java', 'rust', 'go', 'c', 'cpp', 'csharp', 'ruby', 'php'];

const end = (m: RegExpExecArray) => m.index + m[0].length;
/** The key prefix of a mount site (a router included under a prefix elsewhere): not a route, read by the matcher. */
export const MOUNT = 'mount:';
const METHOD_RE = new RegExp(`\\b(${HTTP_METHODS.join('|')})\\b`, 'i');

/** A route (server) or call (client) draft; null when the path is not a path. */
function http(method: string, raw: string, confidence: number, opts: { server: boolean; prefix?: string; lit?: Lit; handler?: string; at?: number; end?: number; receiver?: string }): Draft | null {
  const p = normalisePath(opts.server && opts.prefix ? joinRoute(opts.prefix, raw) : raw, opts.server);
  if (!p) return null;
  const m = method.toUpperCase() === 'ALL' || method === '*' ? '*' : method.toUpperCase();
  return { key: `${m} ${p.key}`, label: `${m} ${p.label}`, confidence: opts.lit?.dynamic && !opts.server ? confidence * 0.95 : confidence,
    at: opts.at ?? opts.lit?.start, end: opts.end ?? opts.lit?.end, handler: opts.handler, base: p.base, receiver: opts.receiver };
}

/** The last argument of a call when it is a (dotted) name: the handler `getUser` of `app.get('/x', auth, getUser)`. */
function lastArgName(args: string): string | undefined {
  const m = /,\s*([A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)*)\s*\)?\s*$/.exec(args);
  return m ? m[1]!.split(/\.|::|->/).pop() : undefined;
}

/** `Route('/x', handler)` / `Route('/x', endpoint=handler, methods=['POST'])`: any method unless listed. */
function starletteRoute(m: RegExpExecArray, c: Parameters<LinkRule['make']>[1]): Draft[] | null {
  const l = c.lit(end(m));
  if (!l) return null;
  const a = c.args(l.end);
  const handler = (/endpoint\s*=\s*([\w.]+)/.exec(a) ?? /^\s*,\s*([\w.]+)/.exec(a))?.[1]?.split('.').pop();
  const listed = /methods\s*=\s*[[(]([^\])]*)/.exec(a)?.[1];
  const methods = listed ? [...listed.matchAll(/['"](\w+)['"]/g)].map(x => x[1]!) : ['*'];
  return methods.map(x => http(x, l.value, 0.9, { server: true, lit: l, handler })).filter((d): d is Draft => !!d);
}

/**
 * Whether the arguments after a URL hand over a function: an arrow or function expression, or a
 * handler-like name (`handler`, `getUser`, `ctrl.list`), as route registrations and request mocks do.
 * A client call's further arguments are data: an object, a config variable, a body.
 */
export function registersHandler(rest: string): boolean {
  const next = /^\s*,\s*([\s\S]*)$/.exec(rest)?.[1] ?? '';
  if (/^(?:async\s+)?(?:function\b|\([^()]*\)\s*(?::[^=]*)?=>|\w+\s*=>)/.test(next)) return true;
  const name = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*(?:[,)]|$)/.exec(next)?.[1];
  return !!name && HANDLER_NAME.test(name.split('.').pop()!);
}
/** A name that says it is a handler: `…Handler`, `…Controller`, `getUser`, `handleLogin`. */
const HANDLER_NAME = /(?:[hH]andler|[cC]ontroller|[mM]iddleware|[rR]esolver)$|^(?:get|list|create|update|delete|handle)[A-Z]/;

const key = (v: string, re: RegExp) => (re.test(v) ? v : null);
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const CONFIG_KEY = /^[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*$/;
const NAME = /^[\w.:\-/]+$/;
const snake = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
/** ActiveRecord / Eloquent table names: snake_case, plural (the regular English rules). */
export function pluralTable(cls: string): string {
  const s = snake(cls);
  if (/[^aeiou]y$/.test(s)) return `${s.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(s)) return `${s}es`;
  return `${s}s`;
}

/** A literal-keyed site: `re` ends at the literal, whose value (checked by `valid`) is the key. */
function litRule(r: Omit<LinkRule, 'make'> & { confidence: number; valid: RegExp; prefix?: string }): LinkRule {
  return { ...r, make: (m, c) => {
    const l = c.lit(end(m));
    if (!l || l.dynamic) return null;
    const v = key(l.value, r.valid);
    // `os.environ['X'] = v`, `ENV['X'] = v`: the code sets the variable, it does not read it
    if (r.kind === 'env' && ASSIGNED_INDEX.test(c.text.slice(l.end, l.end + 12))) return null;
    return v ? { key: `${r.prefix ?? ''}${v}`, label: `${r.prefix ?? ''}${v}`, confidence: r.confidence, at: l.start, end: l.end } : null;
  } };
}
/** After a key literal: the index it closes is assigned to (`] = v`, not `] == v`). */
const ASSIGNED_INDEX = /^\s*\]\s*=(?!=)/;
/** A site whose key is the regex's first group. */
function groupRule(r: Omit<LinkRule, 'make'> & { confidence: number; prefix?: string; map?: (g: string) => string }): LinkRule {
  return { ...r, make: (m, c) => {
    // `process.env.X = v` sets the variable, it does not read it
    if (r.kind === 'env' && /^\s*=(?!=)/.test(c.text.slice(end(m), end(m) + 4))) return null;
    const v = r.map ? r.map(m[1]!) : m[1]!;
    return { key: `${r.prefix ?? ''}${v}`, label: `${r.prefix ?? ''}${v}`, confidence: r.confidence, at: m.index, end: end(m) };
  } };
}

// ---- HTTP: server routes -------------------------------------------------------------------------
const SERVER: LinkRule[] = [
  { id: 'express', api: "Express/Koa/Fastify routers: app.get('/x', h), router.post(...)", kind: 'http', role: 'provider', languages: JS,
    re: /\b(app|router|\w*[rR]outer|server|fastify|routes?)\.(get|post|put|patch|delete|all|head|options)\(/g,
    make: (m, c) => { const l = c.lit(end(m)); if (!l) return null; const a = c.args(l.end); if (!a.trimStart().startsWith(',')) return null;
      return http(m[2]!, l.value, 0.95, { server: true, lit: l, handler: lastArgName(a), prefix: c.prefix(m.index, m[1]), receiver: m[1] }); } },
  { id: 'express-route', api: "Express route chains: router.route('/:id').get(h).put(auth, h)", kind: 'http', role: 'provider', languages: JS,
    re: /\b(app|router|\w*[rR]outer|routes?)\s*\.route\(/g,
    make: (m, c) => { const l = c.lit(end(m)); if (!l) return null; const close = l.end + c.args(l.end).length + 1;
      const out: Draft[] = []; let pos = close;
      for (;;) {
        const step = /^\s*\.(get|post|put|patch|delete|all|head|options)\(/.exec(c.text.slice(pos, pos + 200));
        if (!step) break;
        const a = c.args(pos + step[0].length);
        const d = http(step[1]!, l.value, 0.95, { server: true, lit: l, handler: lastArgName(`,${a}`), prefix: c.prefix(m.index, m[1]), receiver: m[1], at: pos + step[0].indexOf('.'), end: pos + step[0].length + a.length + 1 });
        if (d) out.push(d);
        pos += step[0].length + a.length + 1;
      }
      return out; } },
  { id: 'express-mount', api: "their mounts: app.use('/api/users', userRoutes) with userRoutes imported or required from another file", kind: 'http', role: 'provider', languages: JS,
    re: /\b(app|router|\w*[rR]outer|server)\.use\(/g,
    make: (m, c) => { const l = c.lit(end(m)); if (!l || l.dynamic) return null;
      const id = /^\s*,\s*(?:[\w$.]+\s*,\s*)*([A-Za-z_$][\w$]*)\s*$/.exec(c.args(l.end))?.[1]; if (!id) return null;
      const from = new RegExp(`(?:import\\s+${id}\\s+from\\s*|(?:const|let|var)\\s+${id}\\s*=\\s*require\\(\\s*)['"]([^'"]+)['"]`).exec(c.text)?.[1];
      if (!from || !from.startsWith('.')) return null;
      const parts = from.replace(/\.[cm]?[jt]sx?$/, '').split('/'); let mod = parts.pop()!; if (mod === 'index') mod = parts.pop() ?? mod;
      return { key: `${MOUNT}${mod}:*`, label: l.value, confidence: 0.9, at: l.start, end: l.end }; } },
  { id: 'nest', api: "Nest: @Get('x') in @Controller('p')", kind: 'http', role: 'provider', languages: JS, anchor: 'next',
    re: /@(Get|Post|Put|Patch|Delete|All|Head|Options)\(/g,
    make: (m, c) => { const l = c.lit(end(m)); return http(m[1]!, l?.value ?? '', 0.95, { server: true, lit: l ?? undefined, at: m.index, end: end(m), prefix: c.prefix(m.index) }); } },
  { id: 'next-pages', api: 'Next.js API routes: pages/api/**', kind: 'http', role: 'provider', languages: JS, pathRe: /(?:^|\/)pages\/api\/.+\.[jt]sx?$/,
    re: /export\s+default\b/g,
    make: (m, c) => { const route = c.path.replace(/^.*?(?:^|\/)pages(\/api\/.+)\.[jt]sx?$/, '$1').replace(/\/index$/, ''); return http('*', route, 0.9, { server: true, at: m.index, end: end(m) }); } },
  { id: 'next-app', api: 'Next.js route handlers: app/**/route.ts exporting GET/POST/…', kind: 'http', role: 'provider', languages: JS, pathRe: /(?:^|\/)app\/(?:.+\/)?route\.[jt]sx?$/, anchor: 'next',
    re: /export\s+(?:async\s+)?(?:function\s+|const\s+)(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\b/g,
    make: (m, c) => { const dir = c.path.replace(/^(?:.*?\/)?app\/((?:.+\/)?)route\.[jt]sx?$/, '/$1').split('/').filter(s => s && !/^\(.*\)$/.test(s) && !s.startsWith('@')).join('/');
      return http(m[1]!, `/${dir}`, 0.9, { server: true, at: m.index, end: end(m) }); } },
  { id: 'flask-fastapi', api: "Flask/FastAPI: @app.route('/x', methods=[...]), @bp.get, @app.get('/x'), APIRouter(prefix=), Blueprint(url_prefix=)", kind: 'http', role: 'provider', languages: PY, anchor: 'next',
    re: /@(\w+)\.(route|api_route|get|post|put|patch|delete|head|options|websocket)\(/g,
    make: (m, c) => { const l = c.lit(end(m)); if (!l) return null; const a = c.args(l.end);
      const methods = m[2] === 'route' || m[2] === 'api_route' ? [...(/methods\s*=\s*[[(]([^\])]*)/.exec(a)?.[1] ?? "'GET'").matchAll(/['"](\w+)['"]/g)].map(x => x[1]!) : [m[2] === 'websocket' ? 'GET' : m[2]!];
      return methods.map(x => http(x, l.value, 0.95, { server: true, lit: l, prefix: c.prefix(m.index, m[1]), receiver: m[1] })).filter((d): d is Draft => !!d); } },
  { id: 'starlette', api: "Starlette: Route('/x', handler, methods=[...]), WebSocketRoute('/ws', handler), app.add_route('/x', handler)", kind: 'http', role: 'provider', languages: PY,
    re: /(?:\b(?:Route|WebSocketRoute)|\.add_route|\.add_websocket_route)\(/g,
    make: (m, c) => starletteRoute(m, c) },
  { id: 'fastapi-mount', api: "their mounts in other files: include_router(users.router, prefix='/users'), register_blueprint(bp, url_prefix='/b')", kind: 'http', role: 'provider', languages: PY,
    re: /\.(?:include_router|register_blueprint)\(\s*(\w+)(?:\.(\w+))?/g,
    make: (m, c) => { const p = /(?:url_)?prefix\s*=\s*(?=['"])/.exec(c.args(end(m))); if (!p) return null; const l = c.lit(end(m) + p.index + p[0].length); if (!l || l.dynamic) return null;
      const mod = m[2] ? m[1]! : (c.path.split('/').pop()!.replace(/\.py$/, '')); return { key: `${MOUNT}${mod}:${m[2] ?? m[1]!}`, label: l.value, confidence: 0.9, at: l.start, end: l.end }; } },
  { id: 'django', api: "Django: path('x/<int:id>/', view) in urls.py", kind: 'http', role: 'provider', languages: PY, pathRe: /(?:^|\/)urls\.py$/,
    re: /\b(?:path)\(/g,
    make: (m, c) => { const l = c.lit(end(m)); if (!l) return null; const a = c.args(l.end);
      const view = /^\s*,\s*([\w.]+)/.exec(a)?.[1]?.split('.').filter(s => s !== 'as_view').pop();
      return http('*', l.value, 0.85, { server: true, lit: l, handler: view }); } },
  { id: 'spring', api: 'Spring: @GetMapping/@PostMapping/…, @RequestMapping (class prefix)', kind: 'http', role: 'provider', languages: JAVA, anchor: 'next',
    re: /@(Get|Post|Put|Patch|Delete|Request)Mapping\b\s*(\()?/g,
    make: (m, c) => { const a = m[2] ? c.args(end(m)) : '';
      if (isClassAnnotation(c.text, end(m) + a.length)) return null;
      const l = /(?:^|[(,{]\s*|(?:value|path)\s*=\s*\{?\s*)"([^"]*)"/.exec(a);
      const method = m[1] === 'Request' ? (/RequestMethod\.(\w+)/.exec(a)?.[1] ?? '*') : m[1]!;
      return http(method, l?.[1] ?? '', 0.95, { server: true, at: m.index, end: end(m), prefix: c.prefix(m.index) }); } },
  { id: 'aspnet', api: 'ASP.NET: [HttpGet("x")] (with [Route] on the controller), app.MapGet("/x", …)', kind: 'http', role: 'provider', languages: CS, anchor: 'next',
    re: /\[Http(Get|Post|Put|Patch|Delete)(?:\(|\])/g,
    make: (m, c) => { const l = m[0].endsWith('(') ? c.lit(end(m)) : null; return http(m[1]!, l?.value ?? '', 0.9, { server: true, lit: l ?? undefined, at: m.index, end: end(m), prefix: c.prefix(m.index) }); } },
  { id: 'aspnet-minimal', api: '', kind: 'http', role: 'provider', languages: CS,
    re: /\b\w+\.Map(Get|Post|Put|Patch|Delete)\(/g,
    make: (m, c) => { const l = c.lit(end(m)); return l ? http(m[1]!, l.value, 0.9, { server: true, lit: l, handler: lastArgName(c.args(l.end)) }) : null; } },
  { id: 'gin-echo', api: 'Gin/Echo: r.GET("/x", h) (with r.Group("/p") prefixes), chi: r.Get("/x", h)', kind: 'http', role: 'provider', languages: GO,
    re: /\b(\w+)\.(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|Any|Get|Post|Put|Patch|Delete)\(/g,
    make: (m, c) => { if (m[1] === 'http') return null; const l = c.lit(end(m)); if (!l) return null; const a = c.args(l.end); if (!a.trimStart().startsWith(',')) return null;
      return http(m[2] === 'Any' ? '*' : m[2]!, l.value, 0.95, { server: true, lit: l, handler: lastArgName(a), prefix: c.prefix(m.index, m[1]) }); } },
  { id: 'net-http', api: 'net/http: http.HandleFunc("/x", h), mux.Handle, Go 1.22 "GET /x"', kind: 'http', role: 'provider', languages: GO,
    re: /\b(?:http|\w*[mM]ux|\w*[rR]outer)\.(?:HandleFunc|Handle)\(/g,
    make: (m, c) => { const l = c.lit(end(m)); if (!l) return null; const g = /^([A-Z]+)\s+(.*)$/.exec(l.value);
      return http(g ? g[1]! : '*', g ? g[2]! : l.value, 0.9, { server: true, lit: l, handler: lastArgName(c.args(l.end)) }); } },
  { id: 'rails-sinatra', api: "Rails routes: get '/x', to: 'c#a'; Sinatra: get '/x' do", kind: 'http', role: 'provider', languages: RB,
    re: /^[ \t]*(get|post|put|patch|delete)\b[ \t]*\(?[ \t]*(?=['"])/gm,
    make: (m, c) => { const l = c.lit(end(m)); if (!l) return null; const a = c.text.slice(l.end, l.end + 200).split('\n')[0]!;
      const to = /(?:to:|=>)\s*['"](\w+)#(\w+)['"]/.exec(a); return http(m[1]!, l.value, 0.9, { server: true, lit: l, handler: to?.[2] }); } },
  { id: 'laravel', api: "Laravel: Route::get('/x', …)", kind: 'http', role: 'provider', languages: PHP,
    re: /Route::(get|post|put|patch|delete|any)\(/g,
    make: (m, c) => { const l = c.lit(end(m)); if (!l) return null; const a = c.args(l.end);
      const h = /['"](\w+)['"]\s*\]\s*\)?\s*$/.exec(a)?.[1] ?? /@(\w+)['"]/.exec(a)?.[1]; return http(m[1] === 'any' ? '*' : m[1]!, l.value, 0.9, { server: true, lit: l, handler: h }); } },
  { id: 'actix-axum', api: 'Rust: actix #[get("/x")], axum .route("/x", get(h))', kind: 'http', role: 'provider', languages: RS, anchor: 'next',
    re: /#\[(get|post|put|patch|delete)\(/g,
    make: (m, c) => { const l = c.lit(end(m)); return l ? http(m[1]!, l.value, 0.95, { server: true, lit: l }) : null; } },
  { id: 'axum', api: '', kind: 'http', role: 'provider', languages: RS,
    re: /\.route\(/g,
    make: (m, c) => { const l = c.lit(end(m)); if (!l) return null; const a = c.args(l.end);
      return [...a.matchAll(/\b(get|post|put|patch|delete)\((\w+)\)/g)].map(x => http(x[1]!, l.value, 0.9, { server: true, lit: l, handler: x[2] })).filter((d): d is Draft => !!d); } },
];

function isClassAnnotation(text: string, from: number): boolean {
  const rest = text.slice(from, from + 400);
  const stop = rest.search(/[{;]|\b(?:public|private|protected)\s+(?!class|final|abstract)\w+[\w<>[\], ]*\s+\w+\s*\(/);
  return /\b(?:class|interface)\s+\w+/.test(stop < 0 ? rest : rest.slice(0, stop));
}

/** Route prefixes of a file: controller classes (Nest, Spring, ASP.NET) and router variables (FastAPI, Flask, Gin). */
export const PREFIX_RULES: { languages: readonly LanguageId[]; re: RegExp; make(m: RegExpExecArray, c: Pick<RuleCtx, 'lit' | 'args' | 'text'>, prefixOf: (v: string) => string): { prefix: string; receiver?: string } | null }[] = [
  { languages: JS, re: /@Controller\(\s*(?:\{\s*path\s*:\s*)?/g, make: (m, c) => { const l = c.lit(end(m)); return { prefix: l?.value ?? '' }; } },
  { languages: JAVA, re: /@RequestMapping\s*\(/g, make: (m, c) => { const a = c.args(end(m)); if (!isClassAnnotation(c.text, end(m) + a.length)) return null;
    const l = /(?:^|[(,{]\s*|(?:value|path)\s*=\s*\{?\s*)"([^"]*)"/.exec(a); return { prefix: l?.[1] ?? '' }; } },
  { languages: CS, re: /\[Route\(/g, make: (m, c) => { const l = c.lit(end(m)); if (!l) return null; const cls = /^[^{]*?\bclass\s+(\w+)/.exec(c.text.slice(l.end, l.end + 400))?.[1];
    return cls ? { prefix: l.value.replace(/\[controller\]/gi, cls.replace(/Controller$/, '')) } : null; } },
  { languages: PY, re: /\b(\w+)\s*=\s*(?:APIRouter|Blueprint)\(/g, make: (m, c) => { const a = c.args(end(m)); const p = /(?:url_)?prefix\s*=\s*['"]([^'"]*)['"]/.exec(a); return { prefix: p?.[1] ?? '', receiver: m[1] }; } },
  { languages: GO, re: /\b(\w+)\s*:?=\s*(\w+)\.Group\(/g, make: (m, c, prefixOf) => { const l = c.lit(end(m)); return l ? { prefix: joinRoute(prefixOf(m[2]!), l.value), receiver: m[1] } : null; } },
];

// ---- HTTP: clients -------------------------------------------------------------------------------
function methodIn(a: string, fallback: string): string { return /\bmethod\s*[:=]\s*['"](\w+)['"]/i.exec(a)?.[1] ?? fallback; }
const CLIENT: LinkRule[] = [
  { id: 'fetch', api: "fetch(url, {method})", kind: 'http', role: 'consumer', languages: JS,
    re: /(?<![\w$])\$?fetch\(/g,
    make: (m, c) => { const l = c.lit(end(m)); return l ? http(methodIn(c.args(l.end), 'GET'), l.value, 0.95, { server: false, lit: l }) : null; } },
  { id: 'axios', api: 'axios.get/post/… and clients named *client, api, http, $http, ky, got', kind: 'http', role: 'consumer', languages: JS,
    re: /\b(axios|\w*[aA]xios|\w*[cC]lient|http|api|\w*Api|request|instance|ky|got|superagent|\$http)\.(get|post|put|patch|delete|head|options)(?:<[^>()]*>)?\(/g,
    make: (m, c) => {
      const l = c.lit(end(m));
      // `api.get('/x', (c) => …)`, `http.get('/x', handler)` of a request mock: a route or a mock, not a call
      if (!l || (!/axios/i.test(m[1]!) && registersHandler(c.args(l.end)))) return null;
      return http(m[2]!, l.value, m[1]!.toLowerCase().includes('axios') ? 0.95 : 0.9, { server: false, lit: l });
    } },
  { id: 'request-object', api: "axios({method, url}) and generated clients' {method: 'GET', url: '/x'}", kind: 'http', role: 'consumer', languages: JS,
    re: /\bmethod\s*:\s*['"]([A-Za-z]+)['"]\s*,/g,
    make: (m, c) => { if (!METHOD_RE.test(m[1]!)) return null; const w = c.text.slice(end(m), end(m) + 300); const u = /^[^{}]*?\burl\s*:\s*/.exec(w); if (!u) return null;
      const l = c.lit(end(m) + u[0].length); return l ? http(m[1]!, l.value, 0.9, { server: false, lit: l }) : null; } },
  { id: 'requests-httpx', api: 'Python: requests.get/post, httpx.get, client.get (httpx/TestClient), session.get', kind: 'http', role: 'consumer', languages: PY,
    re: /\b(requests|httpx|client|session|self\.client|\w+_client|ac)\.(get|post|put|patch|delete|head|options)\(/g,
    make: (m, c) => { const l = c.lit(end(m)); return l ? http(m[2]!, l.value, m[1] === 'requests' || m[1] === 'httpx' ? 0.95 : 0.9, { server: false, lit: l }) : null; } },
  { id: 'go-http', api: 'Go: http.Get/Post/Head, http.NewRequest("GET", url)', kind: 'http', role: 'consumer', languages: GO,
    re: /\bhttp\.(Get|Post|Head|PostForm|NewRequest(?:WithContext)?)\(/g,
    make: (m, c) => { if (!m[1]!.startsWith('NewRequest')) { const l = c.lit(end(m)); return l ? http(m[1] === 'PostForm' ? 'POST' : m[1]!, l.value, 0.95, { server: false, lit: l }) : null; }
      const a = c.args(end(m)); const mm = /(?:"(\w+)"|http\.Method(\w+))\s*,/.exec(a); if (!mm) return null;
      const l = c.lit(end(m) + mm.index + mm[0].length); return l ? http(mm[1] ?? mm[2]!, l.value, 0.9, { server: false, lit: l }) : null; } },
  { id: 'java-http', api: 'Java: HttpRequest.newBuilder(URI.create(url)).GET(), RestTemplate getForObject/postForEntity/exchange, WebClient .get().uri(url)', kind: 'http', role: 'consumer', languages: JAVA,
    re: /\bURI\.create\(|\b\w*[tT]emplate\.(getFor\w+|postFor\w+|patchFor\w+|put|delete|exchange)\(|\.(get|post|put|patch|delete)\(\)\s*\.uri\(/g,
    make: (m, c) => { const l = c.lit(end(m)); if (!l) return null;
      const method = m[1] ? (m[1] === 'exchange' ? (/HttpMethod\.(\w+)/.exec(c.args(l.end))?.[1] ?? '*') : m[1].replace(/For\w+$/, '')) : m[2] ?? (/\.(GET|POST|PUT|DELETE|PATCH)\(|method\("(\w+)"/.exec(c.text.slice(l.end, l.end + 300))?.slice(1).find(Boolean) ?? 'GET');
      return http(method, l.value, 0.9, { server: false, lit: l }); } },
  { id: 'csharp-http', api: 'C#: HttpClient GetAsync/PostAsync/…, GetFromJsonAsync, PostAsJsonAsync', kind: 'http', role: 'consumer', languages: CS,
    re: /\.(Get|Post|Put|Patch|Delete)(?:FromJson|AsJson|String|ByteArray|Stream)?Async\(/g,
    make: (m, c) => { const l = c.lit(end(m)); return l ? http(m[1]!, l.value, 0.9, { server: false, lit: l }) : null; } },
  { id: 'ruby-http', api: 'Ruby: HTTParty/Faraday/RestClient .get/.post', kind: 'http', role: 'consumer', languages: RB,
    re: /\b(?:HTTParty|Faraday|RestClient|conn|connection)\.(get|post|put|patch|delete)\b\(?/g,
    make: (m, c) => { const l = c.lit(end(m)); return l ? http(m[1]!, l.value, 0.9, { server: false, lit: l }) : null; } },
  { id: 'php-http', api: "PHP: Http::get (Laravel), Guzzle ->request('GET', url)", kind: 'http', role: 'consumer', languages: PHP,
    re: /\bHttp::(get|post|put|patch|delete)\(|->request\(\s*['"](GET|POST|PUT|PATCH|DELETE)['"]\s*,/g,
    make: (m, c) => { const l = c.lit(end(m)); return l ? http(m[1] ?? m[2]!, l.value, 0.9, { server: false, lit: l }) : null; } },
];

// ---- environment variables and config keys -------------------------------------------------------
const env = (id: string, api: string, languages: LanguageId[], re: RegExp, group = false): LinkRule =>
  group ? groupRule({ id, api, kind: 'env', role: 'consumer', languages, re, confidence: 0.95 })
    : litRule({ id, api, kind: 'env', role: 'consumer', languages, re, confidence: 0.95, valid: ENV_NAME });
const ENV: LinkRule[] = [
  env('env-js', 'process.env.X, process.env[\'X\'], import.meta.env.X', JS, /\b(?:process\.env|import\.meta\.env)\.([A-Za-z_][A-Za-z0-9_]*)/g, true),
  env('env-js-index', '', JS, /\b(?:process\.env\[|Deno\.env\.get\()/g),
  env('env-py', "os.environ['X'], os.environ.get('X'), os.getenv('X')", PY, /\b(?:os\.)?(?:environ\[|environ\.get\(|getenv\()/g),
  env('env-go', 'os.Getenv("X"), os.LookupEnv', GO, /\bos\.(?:Getenv|LookupEnv)\(/g),
  env('env-java', 'System.getenv("X")', JAVA, /\bSystem\.getenv\(/g),
  env('env-rust', 'std::env::var("X"), env!("X")', RS, /\b(?:env::var(?:_os)?\(|(?:option_)?env!\()/g),
  env('env-ruby', "ENV['X'], ENV.fetch('X')", RB, /\bENV(?:\[|\.fetch\()/g),
  env('env-c-php', 'getenv("X") (C, C++, PHP), $_ENV[\'X\'], env(\'X\') (Laravel)', ['c', 'cpp', 'php'], /\bgetenv\(|\$_ENV\[|(?<![\w$>:])env\(/g),
  env('env-csharp', 'Environment.GetEnvironmentVariable("X")', CS, /\bEnvironment\.GetEnvironmentVariable\(/g),
];
const CONFIG: LinkRule[] = [
  litRule({ id: 'config-get', api: "config.get('a.b') and settings/cfg/viper/configService .get*('a.b')", kind: 'config', role: 'consumer', languages: ALL, confidence: 0.8, valid: CONFIG_KEY,
    re: /\b(?:config|conf|cfg|settings|viper|Config|configuration|configService|ConfigService)\??\.(?:get|getString|getInt|getNumber|getBoolean|getBool|Get|GetString|GetInt|GetBool|GetValue|getValue|getProperty)(?:<[^>()]*>)?\(/g }),
  groupRule({ id: 'spring-value', api: '@Value("${a.b}") (Spring)', kind: 'config', role: 'consumer', languages: JAVA, confidence: 0.85, re: /@Value\(\s*"\$\{([\w.-]+)(?::[^}]*)?\}"/g }),
  litRule({ id: 'laravel-config', api: "config('a.b') (Laravel)", kind: 'config', role: 'consumer', languages: PHP, confidence: 0.8, valid: CONFIG_KEY, re: /(?<![\w$>:])config\(/g }),
];

// ---- SQL tables -------------------------------------------------------------------------------------
const SQL: LinkRule[] = [
  litRule({ id: 'knex', api: "knex('t'), db('t'), DB::table('t'), .table('t'), knex.from('t')", kind: 'sql', role: 'consumer', languages: [...JS, ...PHP], confidence: 0.85, valid: /^\w+$/,
    re: /\b(?:knex|db|trx)\(|\bDB::table\(|\b(?:knex|db|this\.db|qb)\.(?:table|from|into)\(/g }),
  litRule({ id: 'sqlalchemy', api: "SQLAlchemy __tablename__ = 't', Table('t', metadata)", kind: 'sql', role: 'provider', languages: PY, confidence: 0.95, valid: /^\w+$/,
    re: /\b__tablename__\s*=\s*|\bTable\((?=\s*['"]\w+['"]\s*,\s*\w*meta)/g }),
  { id: 'django-model', api: 'Django models: class M(models.Model) in <app>/models.py → <app>_<m>, Meta.db_table', kind: 'sql', role: 'provider', languages: PY, pathRe: /(?:^|\/)models(?:\.py$|\/)/, anchor: 'next',
    re: /^class\s+(\w+)\s*\([^)]*\bmodels\.Model\b[^)]*\)\s*:/gm,
    make: (m, c) => { const body = c.text.slice(end(m), end(m) + 4000).split(/\n(?=\S)/)[0]!; const t = /\bdb_table\s*=\s*['"](\w+)['"]/.exec(body)?.[1];
      if (t) return { key: t.toLowerCase(), label: t, confidence: 0.95, at: m.index, end: end(m) };
      const app = c.path.replace(/(?:^|\/)models(?:\.py|\/.*)$/, '').split('/').pop();
      return app ? { key: `${app}_${m[1]!}`.toLowerCase(), label: `${app}_${m[1]!.toLowerCase()}`, confidence: 0.75, at: m.index, end: end(m) } : null; } },
  { id: 'jpa', api: '@Entity @Table(name="t") (JPA; @Entity alone → snake_case class name)', kind: 'sql', role: 'provider', languages: JAVA, anchor: 'next',
    re: /@Entity\b(?:\([^)]*\))?((?:\s*@\w+(?:\([^)]*\))?)*)\s*(?:public\s+|final\s+|abstract\s+)*class\s+(\w+)/g,
    make: (m) => { const t = /@Table\(\s*(?:name\s*=\s*)?"(\w+)"/.exec(m[1]!)?.[1]; return { key: (t ?? snake(m[2]!)).toLowerCase(), label: t ?? snake(m[2]!), confidence: t ? 0.95 : 0.7, at: m.index, end: end(m) }; } },
  { id: 'typeorm', api: "TypeORM @Entity('t') / @Entity({name}) (else snake_case class), Sequelize define('m') / tableName", kind: 'sql', role: 'provider', languages: JS, anchor: 'next',
    re: /@Entity\(\s*(?:\{[^}]*?\bname\s*:\s*['"](\w+)['"][^}]*\}|['"](\w+)['"])?\s*\)\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+(\w+)/g,
    make: (m) => { const t = m[1] ?? m[2]; return { key: (t ?? snake(m[3]!)).toLowerCase(), label: t ?? snake(m[3]!), confidence: t ? 0.95 : 0.7, at: m.index, end: end(m) }; } },
  { id: 'sequelize', api: '', kind: 'sql', role: 'provider', languages: JS,
    re: /\b(?:sequelize|db)\.define\(/g,
    make: (m, c) => { const l = c.lit(end(m)); if (!l || !/^\w+$/.test(l.value)) return null; const t = /\btableName\s*:\s*['"](\w+)['"]/.exec(c.args(l.end))?.[1];
      return { key: (t ?? pluralTable(l.value)).toLowerCase(), label: t ?? pluralTable(l.value), confidence: t ? 0.95 : 0.75, at: l.start, end: l.end }; } },
  { id: 'activerecord', api: 'ActiveRecord: class M < ApplicationRecord → plural table, self.table_name', kind: 'sql', role: 'provider', languages: RB, anchor: 'next',
    re: /^[ \t]*class\s+(\w+)\s*<\s*(?:ApplicationRecord|ActiveRecord::Base)\b/gm,
    make: (m, c) => { const t = /self\.table_name\s*=\s*['"](\w+)['"]/.exec(c.text.slice(end(m), end(m) + 3000).split(/\n[ \t]*class\s/)[0]!)?.[1];
      return { key: (t ?? pluralTable(m[1]!)).toLowerCase(), label: t ?? pluralTable(m[1]!), confidence: t ? 0.95 : 0.75, at: m.index, end: end(m) }; } },
  { id: 'eloquent', api: "Eloquent: class M extends Model → plural table, protected $table = 't'", kind: 'sql', role: 'provider', languages: PHP, anchor: 'next',
    re: /\bclass\s+(\w+)\s+extends\s+Model\b/g,
    make: (m, c) => { const t = /protected\s+\$table\s*=\s*['"](\w+)['"]/.exec(c.text.slice(end(m), end(m) + 3000))?.[1];
      return { key: (t ?? pluralTable(m[1]!)).toLowerCase(), label: t ?? pluralTable(m[1]!), confidence: t ? 0.95 : 0.7, at: m.index, end: end(m) }; } },
  { id: 'efcore', api: 'EF Core: [Table("t")], DbSet<M> Ts', kind: 'sql', role: 'provider', languages: CS,
    re: /\[Table\(\s*"(\w+)"|\bDbSet<\w+>\s+(\w+)/g,
    make: m => ({ key: (m[1] ?? m[2]!).toLowerCase(), label: m[1] ?? m[2]!, confidence: m[1] ? 0.95 : 0.75, at: m.index, end: end(m) }) },
];

// ---- message topics -------------------------------------------------------------------------------
const topic = (id: string, api: string, role: LinkRole, languages: LanguageId[], re: RegExp, transport: string, confidence: number): LinkRule =>
  litRule({ id, api, kind: 'topic', role, languages, re, confidence, valid: NAME, prefix: `${transport}:` });
const TOPIC: LinkRule[] = [
  topic('kafkajs-send', "Kafka: producer.send({topic}) / consumer.subscribe({topic|topics}) (kafkajs)", 'provider', JS, /\.send\(\s*\{\s*topic\s*:\s*/g, 'kafka', 0.9),
  topic('kafkajs-subscribe', '', 'consumer', JS, /\.subscribe\(\s*\{\s*topics?\s*:\s*\[?\s*/g, 'kafka', 0.9),
  topic('kafka-listener', '@KafkaListener(topics = "t"), kafkaTemplate.send("t", …) (Spring Kafka)', 'consumer', JAVA, /@KafkaListener\([^)]*?\btopics\s*=\s*\{?\s*/g, 'kafka', 0.9),
  topic('kafka-template', '', 'provider', JAVA, /\b\w*[kK]afkaTemplate\.send\(/g, 'kafka', 0.9),
  topic('kafka-py-produce', "Python Kafka: producer.send/produce('t'), KafkaConsumer('t'), consumer.subscribe(['t'])", 'provider', PY, /\bproducer\.(?:send|produce)\(/g, 'kafka', 0.85),
  topic('kafka-py-consume', '', 'consumer', PY, /\bKafkaConsumer\(|\bconsumer\.subscribe\(\s*\[/g, 'kafka', 0.85),
  topic('amqp-send', "RabbitMQ: sendToQueue('q') / consume('q'), channel.publish(exchange, 'routing_key'), pika basic_publish(routing_key=) / basic_consume(queue=)", 'provider', [...JS, ...PY], /\.sendToQueue\(|\b\w*(?:ch|[cC]hannel)\.publish\(\s*['"][^'"]*['"]\s*,|\bbasic_publish\([^)]*?routing_key\s*=\s*/g, 'amqp', 0.85),
  topic('amqp-consume', '', 'consumer', [...JS, ...PY], /\b\w*(?:ch|[cC]hannel)\.consume\(|\bbasic_consume\([^)]*?queue\s*=\s*/g, 'amqp', 0.85),
  topic('redis-publish', "Redis pub/sub: redis/pub/client .publish('ch') / .subscribe('ch')", 'provider', [...JS, ...PY, ...RB, ...GO], /\b\w*(?:redis|Redis|pub|publisher|client|Client|rdb)\.[pP]ublish\((?:\s*ctx\s*,)?/g, 'redis', 0.85),
  topic('redis-subscribe', '', 'consumer', [...JS, ...PY, ...RB, ...GO], /\b\w*(?:redis|Redis|sub|subscriber|client|Client|pubsub|rdb)\.(?:[pP]?[sS]ubscribe)\((?:\s*ctx\s*,)?/g, 'redis', 0.85),
  topic('emitter-emit', "Node EventEmitter: emitter.emit('e') / .on('e') / .once('e') (listeners of events nothing in the workspace emits are left out)", 'provider', JS, /\.emit\(/g, 'event', 0.6),
  topic('emitter-on', '', 'consumer', JS, /\.(?:on|once|addListener)\(/g, 'event', 0.6),
  { id: 'celery-task', api: 'Celery: @app.task / @shared_task def f, f.delay(…) / f.apply_async(…), send_task(\'f\')', kind: 'topic', role: 'provider', languages: PY, anchor: 'next',
    re: /@(?:\w+\.)?(?:task|shared_task)\b[^\n]*\n(?:[ \t]*@[^\n]*\n)*[ \t]*(?:async\s+)?def\s+(\w+)/g,
    make: m => ({ key: `celery:${m[1]!}`, label: `celery:${m[1]!}`, confidence: 0.8, at: m.index, end: end(m) }) },
  { id: 'celery-call', api: '', kind: 'topic', role: 'consumer', languages: PY,
    re: /\b(\w+)\.(?:delay|apply_async)\(|\bsend_task\(\s*['"]([\w.]+)['"]/g,
    make: m => { const n = (m[1] ?? m[2]!).split('.').pop()!; return { key: `celery:${n}`, label: `celery:${n}`, confidence: 0.75, at: m.index, end: end(m) }; } },
];

// ---- feature flags ----------------------------------------------------------------------------------
const flag = (id: string, api: string, languages: LanguageId[], re: RegExp, confidence: number) => litRule({ id, api, kind: 'flag', role: 'consumer', languages, re, confidence, valid: NAME });
const FLAG: LinkRule[] = [
  flag('launchdarkly', "LaunchDarkly: client.variation('f', …), boolVariation, variationDetail", ALL, /\.(?:variation|boolVariation|stringVariation|numberVariation|jsonVariation|variationDetail|bool_variation|BoolVariation|StringVariation)\(/g, 0.8),
  flag('unleash', "Unleash: unleash.isEnabled('f'), getVariant", ALL, /\b\w*[uU]nleash\w*\.(?:isEnabled|is_enabled|IsEnabled|getVariant)\(/g, 0.8),
  flag('growthbook', "GrowthBook: gb.isOn('f') / isOff / getFeatureValue, useFeatureIsOn('f')", ALL, /\.(?:isOn|isOff|getFeatureValue|evalFeature)\(|\buseFeature(?:IsOn|Value)?\(/g, 0.8),
  flag('generic-flag', "generic (lower confidence): flags.isEnabled('f'), features.enabled('f'), feature('f'), isFeatureEnabled('f')", ALL,
    /\b\w*(?:[fF]lags?|[fF]eatures?|[tT]oggles?)\w*\.(?:isEnabled|is_enabled|enabled|isActive|is_active|get)\(|(?<![\w.$])(?:feature|isFeatureEnabled|featureEnabled|feature_enabled|is_feature_enabled)\(/g, 0.5),
  { id: 'flipper', api: 'Flipper.enabled?(:f) (Ruby)', kind: 'flag', role: 'consumer', languages: RB, re: /\bFlipper\.enabled\?\(\s*:(\w+)/g, make: m => ({ key: m[1]!, label: m[1]!, confidence: 0.8, at: m.index, end: end(m) }) },
];

/** Every rule, HTTP first. A literal two rules recognise as the same kind and key is one site (the more confident). */
export const LINK_RULES: readonly LinkRule[] = [...SERVER, ...CLIENT, ...ENV, ...CONFIG, ...SQL, ...TOPIC, ...FLAG];

/**
 * SQL in string literals (every language): a literal that starts with a statement (SELECT, INSERT,
 * UPDATE, DELETE, WITH, CREATE/ALTER TABLE) names tables after FROM, JOIN, INTO, UPDATE and TABLE;
 * CREATE TABLE defines one (provider), the rest use them.
 */
export const SQL_STATEMENT = /^\s*(?:SELECT|INSERT|UPDATE|DELETE|WITH|CREATE\s+(?:TEMP(?:ORARY)?\s+)?TABLE|ALTER\s+TABLE|MERGE|REPLACE\s+INTO)\b/i;
export const SQL_TABLE = /\b(FROM|JOIN|INTO|UPDATE|TABLE(?:\s+IF\s+(?:NOT\s+)?EXISTS)?)\s+(?:ONLY\s+)?(?:[`"[]?\w+[`"\]]?\.)?[`"[]?([A-Za-z_]\w*)[`"\]]?/gi;
export const SQL_NOT_TABLES = new Set(['select', 'where', 'set', 'values', 'lateral', 'unnest', 'dual', 'generate_series', 'json_each', 'json_table', 'only', 'as', 'on', 'using', 'exists', 'not', 'if']);

/**
 * Files named like configuration: `.env` files, and YAML/JSON/TOML/properties files named config*,
 * settings*, application*, appsettings*, flags*, features* or under a config/ folder. Their keys are
 * the first definitions of a key a program reads; other YAML/JSON/TOML files come next (config.ts).
 */
export const CONFIG_FILE = /(?:^|\/)(?:\.env(?:\.[\w.-]+)?|[\w.-]+\.env|(?:config|settings|application|appsettings|app|default|flags|features|feature[-_]flags|toggles)(?:[.-][\w-]+)*\.(?:ya?ml|json|toml|properties)|config\/[\w.-]+\.(?:ya?ml|json|toml|properties)|conf\/[\w.-]+\.(?:ya?ml|toml|properties))$/i;
const CONFIG_EXTENSION = /\.(?:ya?ml|json|toml|properties)$/i;
/** Manifests and lock files: their keys are the tool's, never a program's settings. */
const NOT_CONFIG = /(?:^|\/)(?:(?:package(?:-lock)?|tsconfig|jsconfig|composer|\.eslintrc)[\w.-]*\.json|[\w.-]*-lock\.ya?ml)$/i;
export type ConfigSource = 'named' | 'other';
/** Whether the links phase reads a file as configuration, and how strongly its keys define them. */
export function configSourceOf(path: string): ConfigSource | null {
  if (NOT_CONFIG.test(path)) return null;
  if (CONFIG_FILE.test(path)) return 'named';
  return CONFIG_EXTENSION.test(path) ? 'other' : null;
}
export const isConfigFile = (path: string): boolean => configSourceOf(path) !== null;

/** Config keys under these parents are feature flags too (`features.new_checkout: true`). */
export const FLAG_PARENTS = /^(?:flags|features|feature_flags|featureflags|feature-flags|toggles)$/i;

/** The rules per kind by id: what answers name (short); `RECOGNISED` spells them out. */
export const RECOGNISED_IDS: Record<LinkKind, string[]> = (() => {
  const out: Record<LinkKind, string[]> = {
    http: [], env: ['.env', 'yaml-env'], config: ['config-files'], sql: ['sql-strings'], topic: [], flag: ['flag-config'],
  };
  for (const r of LINK_RULES) if (!out[r.kind].includes(r.id)) out[r.kind].push(r.id);
  return out;
})();

/** What is recognised, per kind (docs/links.md, tool boundaries). */
export const RECOGNISED: Record<LinkKind, string[]> = (() => {
  const out: Record<LinkKind, string[]> = {
    http: [],
    env: ['.env files (KEY=value)', 'environment / env in YAML (Compose, Kubernetes, CI)'],
    config: ['keys of YAML/JSON/TOML/.properties files (files named like configuration first)'],
    sql: ['SQL in string literals (FROM/JOIN/INTO/UPDATE/CREATE TABLE)'],
    topic: [],
    flag: ['keys under flags/features/toggles in config files'],
  };
  for (const r of LINK_RULES) if (r.api) out[r.kind].push(r.api);
  return out;
})();
