/**
 * What a source file's text says about entry points that its definitions alone cannot: HTTP routes
 * (the path is a string argument; a decorator or annotation sits outside the index's symbols), Python's
 * `if __name__ == "__main__":` block, and whether a Java/C# `main` is `static`. Pure: text in, marks
 * out, one cheap `includes` test per language before any regular expression runs. The overview keeps
 * the marks per file content hash, so a new index state re-reads only the files that changed.
 *
 * Recognised (the language table's `entries` picks the scanners; see entries.ts for how marks become
 * entry points):
 *   Python      `@<x>.get|post|put|delete|patch|head|options|route|api_route|websocket("/…")`
 *   Java, C#    `@GetMapping|@PostMapping|@PutMapping|@DeleteMapping|@PatchMapping|@RequestMapping("/…")`, `@GET|@POST|@PUT|@DELETE|@PATCH`
 *   JS/TS, Go, PHP  `<x>.get|post|put|delete|patch|head|options|all("/…", handler)` (any case: gin GET, chi Get), `HandleFunc|Handle("/…", h)`
 *   Rust        `.route("/…", get(h).post(h2))` (axum)
 *   Ruby        `get|post|… "/…" do` (Sinatra)
 */
import { entryRulesOf } from '../languages';
import type { RouteStyle } from '../languages/types';

export interface RouteMark {
  line: number; verb: string; path: string;
  /** the handler as written (`list`, `users.list`, `Users::list`), null for an inline function */
  handler: string | null;
  /** the handler is the definition that follows (a decorator) or encloses (an annotation) the line */
  attached: 'next' | 'enclosing' | null;
  how: string;
}
export interface SourceMarks {
  routes: RouteMark[];
  /** `if __name__ == "__main__":` block (first and last line) */
  pyMain: { line: number; end: number } | null;
  /** lines declaring a static main method (Java, C#) */
  staticMain: number[];
}

export const NO_MARKS: SourceMarks = { routes: [], pyMain: null, staticMain: [] };
const MAX_ROUTES_PER_FILE = 200;
/** HTTP clients, whose get("/…", x) is a request, not a route */
const CLIENTS = /^(axios|fetch|client|httpClient|http_client|request|requests|httpx|session|\$http|apiClient|api_client|superagent|supertest|got|ky|this\.client|self\.client|this\.http)$/;

const lineStarts = (text: string): number[] => { const s = [0]; for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) s.push(i + 1); return s; };
export function lineOf(starts: number[], offset: number): number {
  let lo = 0, hi = starts.length - 1;
  while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (starts[mid]! <= offset) lo = mid; else hi = mid - 1; }
  return lo + 1;
}

/** Whether a language's files are read for entry marks (routes, a main block, a static main). */
export function scansSource(language: string): boolean {
  const e = entryRulesOf(language);
  return !!(e?.routes || e?.mainModule || e?.staticMain);
}

/** What a scanner reads: the text, a line lookup, and where it puts a route it found. */
interface ScanText { text: string; at(offset: number): number; starts(): number[]; push(r: RouteMark, offset: number): void }

export function scanSource(language: string, text: string): SourceMarks {
  const rules = entryRulesOf(language);
  if (!rules || !scansSource(language)) return NO_MARKS;
  let starts: number[] | null = null;
  const routes: RouteMark[] = [];
  // a match in a line comment (doc examples: `/// .route("/", get(h))`) is no route
  const commented = (offset: number) => /^\s*(\/\/|#(?!\[)|\*|\/\*|--)/.test(text.slice(text.lastIndexOf('\n', offset - 1) + 1, offset));
  const t: ScanText = {
    text, starts: () => (starts ??= lineStarts(text)), at: offset => lineOf(t.starts(), offset),
    push: (r, offset) => { if (routes.length < MAX_ROUTES_PER_FILE && !commented(offset)) routes.push(r); },
  };
  if (rules.routes) ROUTE_SCANNERS[rules.routes](t);
  return { routes, pyMain: rules.mainModule ? mainBlock(t) : null, staticMain: rules.staticMain ? staticMains(t) : [] };
}

/** Python's `if __name__ == "__main__":` block: its first and last line. */
function mainBlock({ text, at, starts }: ScanText): SourceMarks['pyMain'] {
  if (!text.includes('__main__')) return null;
  const mm = /^if\s+__name__\s*==\s*(['"])__main__\1\s*:/m.exec(text);
  if (!mm) return null;
  const line = at(mm.index); const s = starts();
  let end = line;
  for (let l = line; l < s.length; l++) { const row = text.slice(s[l]!, s[l + 1] ?? text.length); if (/^\S/.test(row)) break; if (row.trim()) end = l + 1; }
  return { line, end };
}

/** Lines declaring a static main method (Java, C#). */
function staticMains({ text, at }: ScanText): number[] {
  if (!text.includes('main') && !text.includes('Main')) return [];
  return [...text.matchAll(/\bstatic\b[^;{}()=]*\bvoid\s+(?:main|Main)\s*\(/g)].map(mm => at(mm.index!));
}

/** `@app.get("/x")`, `@bp.route("/x", methods=[…])`: the decorator's object, verb, quote, path and the rest. */
const DECORATOR_ROUTE = new RegExp(/^[ \t]*@([\w.]+)\.(get|post|put|delete|patch|head|options|route|api_route|websocket)\s*\(/.source
  + /\s*(?:(?:path|rule)\s*=\s*)?[rbuf]{0,2}(['"])(\/[^'"\n]*)\3([^\n]*)/.source, 'gm');
/** `@GetMapping("/x")`, `@RequestMapping(value = "/x")`, JAX-RS `@GET`: the annotation and its path. */
const ANNOTATION_ROUTE = new RegExp(/@((?:Get|Post|Put|Delete|Patch|Request)Mapping|GET|POST|PUT|DELETE|PATCH)\b/.source
  + /(?:\s*\(\s*(?:(?:value|path)\s*=\s*)?\{?\s*"([^"]*)")?/.source, 'g');

/** The verb of a route decorator: its name, or the `methods=[…]` of a generic `route`/`api_route`. */
function decoratorVerb(name: string, rest: string): string {
  if (name === 'websocket') return 'WS';
  if (name !== 'route' && name !== 'api_route') return name.toUpperCase();
  const methods = /methods\s*=\s*[[(]([^\])]*)[\])]/.exec(rest);
  if (!methods) return name === 'route' ? 'GET' : 'ANY';
  return methods[1]!.replace(/['"\s]/g, '').toUpperCase().replace(/,/g, '|') || 'ANY';
}

/** axum's method routers after `.route("/x", …)`: `get(handler)`, `post_service(svc)`. */
const AXUM_METHOD = /(?:^|[.:\s(])(get|post|put|delete|patch|head|options|any)(?:_service)?\s*\(\s*([\w:]+)/g;

/** One scanner per way of declaring routes (the language table's entries.routes). */
const ROUTE_SCANNERS: Record<RouteStyle, (t: ScanText) => void> = {
  decorators: ({ text, at, push }) => {
    if (!text.includes('@')) return;
    for (const d of text.matchAll(DECORATOR_ROUTE)) {
      const name = d[2]!;
      const verb = decoratorVerb(name, d[5]!);
      push({ line: at(d.index!), verb, path: d[4]!, handler: null, attached: 'next', how: `@${d[1]}.${name}` }, d.index!);
    }
  },
  annotations: ({ text, at, push }) => {
    if (!text.includes('Mapping') && !/@(GET|POST|PUT|DELETE|PATCH)\b/.test(text)) return;
    for (const a of text.matchAll(ANNOTATION_ROUTE)) {
      const ann = a[1]!;
      const verb = ann.endsWith('Mapping') ? (ann === 'RequestMapping' ? 'ANY' : ann.replace('Mapping', '').toUpperCase()) : ann;
      push({ line: at(a.index!), verb, path: a[2] ?? '', handler: null, attached: 'enclosing', how: `@${ann}` }, a.index!);
    }
  },
  sinatra: ({ text, at, push }) => {
    if (!text.includes("'/") && !text.includes('"/')) return;
    for (const s of text.matchAll(/^[ \t]*(get|post|put|delete|patch|head|options)\s*\(?\s*(['"])(\/[^'"\n]*)\2\s*\)?\s*(?:do\b|\{)/gm)) {
      const how = `${s[1]} "…" do (Sinatra)`;
      push({ line: at(s.index!), verb: s[1]!.toUpperCase(), path: s[3]!, handler: null, attached: null, how }, s.index!);
    }
  },
  axum: ({ text, at, push }) => {
    if (!text.includes('.route(')) return;
    for (const r of text.matchAll(/\.route\(\s*"(\/[^"]*)"\s*,\s*/g)) {
      const from = r.index! + r[0].length;
      const next = text.indexOf('.route(', from);
      const rest = text.slice(from, Math.min(from + 400, next < 0 ? text.length : next));
      for (const x of rest.matchAll(AXUM_METHOD)) {
        const verb = x[1] === 'any' ? 'ANY' : x[1]!.toUpperCase();
        push({ line: at(r.index!), verb, path: r[1]!, handler: x[2]!, attached: null, how: '.route(…) (axum)' }, r.index!);
      }
    }
  },
  registrations: t => registrations(t),
};

/** A call's first argument opens with a path (`('/`, `( "/`, Go 1.22's `("GET /`): a quick test before the full scan. */
const PATH_ARGUMENT = /\(\s*(['"`]\/|"[A-Z]+ \/)/;
/** `app.get('/x', handler)`, `$router->post("/x", …)`, `mux.HandleFunc("GET /x", h)`: receiver, verb, quote, path, rest. */
const REGISTRATION = new RegExp(/(?:^|[^\w$])(?:([\w$.]+|\$[\w]+->[\w]+)(?:\.|->|::))?/.source
  + /(get|post|put|delete|patch|head|options|all|GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS|Get|Post|Put|Delete|Patch|Head|Options|HandleFunc|Handle)/.source
  + /\s*\(\s*(['"`])((?:[A-Z]+ )?\/[^'"`\n]*)\3\s*,\s*([^\n]*)/.source, 'g');

/** JS/TS, Go, PHP: registration calls with a path and a handler (an object second argument is a client's options). */
function registrations({ text, at, push }: ScanText): void {
  if (!PATH_ARGUMENT.test(text)) return;
  for (const g of text.matchAll(REGISTRATION)) {
    const receiver = g[1] ?? null;
    if (receiver && CLIENTS.test(receiver)) continue;
    const rest = g[5]!.trim();
    if (/^[{[]/.test(rest)) continue;
    // an inline function (arrow, function, Go func literal) among the arguments, else the last one names the handler
    const inline = /=>|\bfunction\b|\bfunc\s*\(/.test(rest) || rest === '';
    const args = rest.slice(0, rest.indexOf(')') < 0 ? undefined : rest.indexOf(')')).split(',').map(s => s.trim()).filter(Boolean);
    const last = args[args.length - 1] ?? '';
    const named = !inline && /^[A-Za-z_$][\w$.:>-]*$/.test(last) ? last : null;
    if (!named && !inline) continue;
    let verb = /^(HandleFunc|Handle|all)$/.test(g[2]!) ? 'ANY' : g[2]!.toUpperCase();
    let path = g[4]!;
    const method = /^([A-Z]+) (\/.*)$/.exec(path); // Go 1.22 patterns carry the method
    if (method) { verb = method[1]!; path = method[2]!; }
    const offset = g.index! + (/^[^\w$]/.test(g[0]) ? 1 : 0);
    push({ line: at(offset), verb, path, handler: named, attached: null, how: `${receiver ? `${receiver}.` : ''}${g[2]}(…)` }, offset);
  }
}
