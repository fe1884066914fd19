/**
 * The http driver: one request per call with Node's fetch.
 *
 * Rules:
 * - URL: the op's absolute `url`, else the adapter's `base_url` (or `url`) joined with the op's `path`
 *   (one `/` between them). `query` values are rendered and URL-encoded; undefined, null and empty values
 *   are dropped; an array adds the key once per element.
 * - Method: the op's `method`, else POST when there is a `body`, GET without.
 * - Headers: the adapter's `headers`, then the op's (rendered). A JSON body is sent with
 *   `content-type: application/json` unless a header sets it; a string body is sent as is
 *   (`text/plain` unless set).
 * - The request aborts with the call's signal (timeout or cancel). A status outside 2xx is an
 *   `http_status` failure carrying the status and the start of the body; a network failure is
 *   `unreachable`. The body is parsed with the op's `format` (format.ts; JSON content types are `json`
 *   under `auto`).
 */
import type { AdapterConfig } from '../config';
import { FormatError, parsePayload } from '../format';
import { renderDeep, renderString } from '../templates';
import { abortError, AdapterCallError, type Driver, type DriverRequest } from './types';

function joinUrl(base: string, path: string): string {
  if (!path) return base;
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

export class HttpDriver implements Driver {
  constructor(private readonly cfg: AdapterConfig) {}

  async call(req: DriverRequest): Promise<unknown> {
    const { spec, ctx } = req;
    const f = (name: string) => `adapters.${this.cfg.name}.ops.${req.op}.${name}`;
    let url: string;
    if (spec.url) url = renderString(spec.url, ctx, f('url'));
    else {
      const base = this.cfg.base_url ?? this.cfg.url;
      if (!base) throw new AdapterCallError('config_error', 'no url: set the op\'s `url` or the adapter\'s `base_url`');
      url = joinUrl(renderString(base, ctx, `adapters.${this.cfg.name}.${this.cfg.base_url ? 'base_url' : 'url'}`), spec.path ? renderString(spec.path, ctx, f('path')) : '');
    }
    let target: URL;
    try { target = new URL(url); } catch { throw new AdapterCallError('config_error', `\`${url}\` is not a URL`); }
    if (spec.query) {
      const q = renderDeep(spec.query, ctx, f('query')) as Record<string, unknown>;
      for (const [k, v] of Object.entries(q)) {
        for (const x of Array.isArray(v) ? v : [v]) {
          if (x === undefined || x === null || x === '') continue;
          target.searchParams.append(k, typeof x === 'object' ? JSON.stringify(x) : String(x));
        }
      }
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.cfg.headers ?? {})) headers[k.toLowerCase()] = renderString(v, ctx, `adapters.${this.cfg.name}.headers.${k}`);
    for (const [k, v] of Object.entries(spec.headers ?? {})) headers[k.toLowerCase()] = renderString(v, ctx, f(`headers.${k}`));
    let body: string | undefined;
    if (spec.body !== undefined) {
      const b = renderDeep(spec.body, ctx, f('body'));
      if (typeof b === 'string') { body = b; headers['content-type'] ??= 'text/plain; charset=utf-8'; }
      else { body = JSON.stringify(b); headers['content-type'] ??= 'application/json'; }
    }
    headers.accept ??= 'application/json, text/plain;q=0.9, */*;q=0.5';
    const method = (spec.method ?? (body !== undefined ? 'POST' : 'GET')).toUpperCase();
    let res: Response;
    try {
      res = await fetch(target, { method, headers, body, signal: req.signal, redirect: 'follow' });
    } catch (e) {
      if (req.signal.aborted) throw abortError(req.signal, req.timeoutMs);
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new AdapterCallError('unreachable', `${method} ${target.origin}${target.pathname} failed: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
    }
    let text: string;
    try { text = await res.text(); } catch (e) {
      if (req.signal.aborted) throw abortError(req.signal, req.timeoutMs);
      throw new AdapterCallError('unreachable', `reading the answer failed: ${(e as Error).message}`);
    }
    if (!res.ok) throw new AdapterCallError('http_status', `${method} ${target.pathname} answered ${res.status} ${res.statusText}${text.trim() ? `: ${text.trim().slice(0, 200)}` : ''}`, { status: res.status });
    const ct = res.headers.get('content-type') ?? '';
    const format = spec.format ?? 'auto';
    try {
      return parsePayload(text, format === 'auto' && /[/+]json\b/.test(ct) && text.trim() ? 'json' : format);
    } catch (e) {
      if (e instanceof FormatError) throw new AdapterCallError('malformed', e.message);
      throw e;
    }
  }

  async dispose(): Promise<void> { /* nothing kept */ }
}
