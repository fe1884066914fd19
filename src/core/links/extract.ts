/**
 * Link sites of one file. Pure over (language, path, text, definitions): code files run in the parser
 * worker with the file's definitions (index/process.ts), so an unchanged file is never read again for
 * its links; config files (.env, YAML, JSON, TOML, .properties) are read by the links phase (config.ts).
 *
 * The rules (rules.ts) are regular expressions over the text with whole-line comments blanked out; the
 * key itself is read as a string literal (quotes, template literals, f-strings; interpolations become
 * placeholders, a literal followed by `+` gets a trailing one).
 */
import type { LanguageId } from '../languages/types';
import { LINK_RULES, PREFIX_RULES, SQL_STATEMENT, SQL_TABLE, SQL_NOT_TABLES, type Draft, type Lit, type LinkRule, type RuleCtx } from './rules';
import type { LinkSite } from './types';

export interface SiteDefinition { symbol_path: string; name: string; kind: string; start_line: number; end_line: number }

const RULES_BY_LANGUAGE = new Map<LanguageId, LinkRule[]>();
function rulesFor(language: LanguageId): LinkRule[] {
  let r = RULES_BY_LANGUAGE.get(language);
  if (!r) { r = LINK_RULES.filter(x => x.languages.includes(language)); RULES_BY_LANGUAGE.set(language, r); }
  return r;
}

/** Whole-line comments blanked out (same length, so offsets stay): `//`, `#` (not `#[`), `*`, `/*`. */
function maskComments(text: string): string {
  return text.replace(/^[ \t]*(?:\/\/|#(?![[!])|\/\*|\*(?!\*?\s*\w+\s*[=(]))[^\n]*/gm, s => ' '.repeat(s.length));
}

/** Reads the string literal at `pos` (after blanks and a prefix like f, r, b, @, $). */
export function readLiteral(text: string, pos: number): Lit | null {
  let i = pos;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  let prefix = '';
  while (i < text.length && /[fFrRbBuU@$]/.test(text[i]!) && prefix.length < 2) prefix += text[i++];
  const q = text[i];
  if (q !== '"' && q !== "'" && q !== '`') return null;
  const triple = text.startsWith(q.repeat(3), i);
  const start = i;
  i += triple ? 3 : 1;
  const raw = /[rR@]/.test(prefix); const interp = /[fF$]/.test(prefix);
  let out = ''; let dynamic = false;
  for (; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\\' && !raw) { out += text[i + 1] ?? ''; i++; continue; }
    if (triple ? text.startsWith(q.repeat(3), i) : ch === q) {
      const endAt = i + (triple ? 3 : 1);
      if (/^\s*\+/.test(text.slice(endAt, endAt + 8))) { out += '{}'; dynamic = true; }
      return { value: out, start, end: endAt, dynamic };
    }
    if (ch === '\n' && q !== '`' && !triple) return null;
    // interpolations: ${x} (template literal), {x} (f-string, C# $"…"), #{x} (Ruby)
    let open = -1;
    if (q === '`' && ch === '$' && text[i + 1] === '{') open = i + 1;
    else if (q === '"' && ch === '#' && text[i + 1] === '{') open = i + 1;
    else if (interp && ch === '{') { if (text[i + 1] === '{') { out += '{'; i++; continue; } open = i; }
    if (open >= 0) {
      let depth = 1; let j = open + 1;
      for (; j < text.length && depth; j++) { if (text[j] === '{') depth++; else if (text[j] === '}') depth--; }
      const name = /(\w+)\W*$/.exec(text.slice(open + 1, j - 1))?.[1] ?? '';
      out += `{${name}}`; dynamic = true; i = j - 1;
      continue;
    }
    out += ch;
  }
  return null;
}

function argsAt(text: string, pos: number): string {
  let depth = 0;
  const stop = Math.min(text.length, pos + 600);
  for (let i = pos; i < stop; i++) {
    const ch = text[i];
    if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') { if (depth === 0) return text.slice(pos, i); depth--; }
  }
  return text.slice(pos, stop);
}

/** Line and column of an offset (binary search over line starts). */
export class Lines {
  private readonly starts: number[] = [0];
  constructor(text: string) { for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.starts.push(i + 1); }
  at(offset: number): { line: number; col: number } {
    let lo = 0; let hi = this.starts.length - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (this.starts[mid]! <= offset) lo = mid; else hi = mid - 1; }
    return { line: lo + 1, col: offset - this.starts[lo]! };
  }
}

/** The definition a site belongs to: the one it decorates (`next`), a handler named in the file, or the innermost enclosing one. */
function anchorOf(defs: readonly SiteDefinition[], line: number, next: boolean, handler?: string): string | null {
  if (handler) { const h = defs.filter(d => d.name === handler); if (h.length === 1) return h[0]!.symbol_path; }
  if (next) {
    let best: SiteDefinition | undefined;
    for (const d of defs) if (d.start_line >= line && d.start_line <= line + 8 && (!best || d.start_line < best.start_line || (d.start_line === best.start_line && d.symbol_path.length > best.symbol_path.length))) best = d;
    if (best) return best.symbol_path;
  }
  let inner: SiteDefinition | undefined;
  for (const d of defs) if (d.start_line <= line && line <= d.end_line && (!inner || d.start_line > inner.start_line || (d.start_line === inner.start_line && d.symbol_path.length > inner.symbol_path.length))) inner = d;
  return inner?.symbol_path ?? null;
}

const STRING_LITERALS = /"""[\s\S]*?"""|'''[\s\S]*?'''|`(?:\\[\s\S]|[^\\`])*`|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g;
const HAS_SQL = /\b(?:select|insert|update|delete|create\s+table)\b/i;

/** The link sites of a code file. */
export function extractLinkSites(language: LanguageId, path: string, source: string, defs: readonly SiteDefinition[]): LinkSite[] {
  const rules = rulesFor(language).filter(r => !r.pathRe || r.pathRe.test(path));
  const text = maskComments(source);
  const lines = new Lines(text);
  // route prefixes in force from an offset on: per receiver (router variables) or for the file's classes
  const prefixes: { at: number; prefix: string; receiver?: string }[] = [];
  const prefixOf = (receiver: string) => prefixes.filter(p => p.receiver === receiver).pop()?.prefix ?? '';
  for (const p of PREFIX_RULES) {
    if (!p.languages.includes(language)) continue;
    p.re.lastIndex = 0;
    for (let m = p.re.exec(text); m; m = p.re.exec(text)) {
      const r = p.make(m, { text, lit: pos => readLiteral(text, pos), args: pos => argsAt(text, pos) }, prefixOf);
      if (r) prefixes.push({ at: m.index, ...r });
    }
  }
  const ctx: RuleCtx = {
    text, path, language, lit: pos => readLiteral(text, pos), args: pos => argsAt(text, pos),
    prefix: (pos, receiver) => {
      if (receiver) { const r = prefixes.filter(p => p.receiver === receiver).pop(); if (r) return r.prefix; }
      return prefixes.filter(p => p.receiver === undefined && p.at <= pos).pop()?.prefix ?? '';
    },
  };
  const out = new Map<string, LinkSite>();
  const add = (r: Pick<LinkRule, 'id' | 'kind' | 'role' | 'anchor'>, d: Draft, fallbackAt: number, fallbackEnd: number) => {
    const a = lines.at(d.at ?? fallbackAt); const b = lines.at(d.end ?? fallbackEnd);
    const site: LinkSite = { kind: r.kind, role: r.role, key: d.key, label: d.label ?? d.key, line: a.line, col: a.col, end_line: b.line, end_col: b.col,
      confidence: Math.round(d.confidence * 1000) / 1000, rule: r.id, symbol_path: anchorOf(defs, a.line, r.anchor === 'next', d.handler) };
    if (d.handler && !defs.some(x => x.name === d.handler)) site.handler = d.handler;
    if (d.base) site.base = d.base;
    if (d.receiver) site.receiver = d.receiver;
    const k = `${site.kind}\0${site.role}\0${site.key}\0${site.line}\0${site.col}`;
    const prev = out.get(k);
    if (!prev || prev.confidence < site.confidence) out.set(k, site);
  };
  for (const r of rules) {
    r.re.lastIndex = 0;
    for (let m = r.re.exec(text); m; m = r.re.exec(text)) {
      if (m[0].length === 0) { r.re.lastIndex++; continue; }
      let made: Draft | Draft[] | null = null;
      try { made = r.make(m, ctx); } catch { made = null; }
      for (const d of Array.isArray(made) ? made : made ? [made] : []) add(r, d, m.index, m.index + m[0].length);
    }
  }
  if (HAS_SQL.test(text)) {
    STRING_LITERALS.lastIndex = 0;
    for (let m = STRING_LITERALS.exec(text); m; m = STRING_LITERALS.exec(text)) {
      const body = m[0].replace(/^('''|"""|['"`])/, '').replace(/('''|"""|['"`])$/, '');
      if (!SQL_STATEMENT.test(body)) continue;
      SQL_TABLE.lastIndex = 0;
      for (let t = SQL_TABLE.exec(body); t; t = SQL_TABLE.exec(body)) {
        const name = t[2]!; if (SQL_NOT_TABLES.has(name.toLowerCase())) continue;
        const provider = /^TABLE/i.test(t[1]!) && /^\s*CREATE/i.test(body);
        add({ id: 'sql-string', kind: 'sql', role: provider ? 'provider' : 'consumer' }, { key: name.toLowerCase(), label: name, confidence: 0.9 }, m.index, m.index + m[0].length);
      }
    }
  }
  // an ORM class with an explicit table name and a derived one is one provider (the explicit one)
  const sites = [...out.values()];
  const best = new Map<string, LinkSite>();
  for (const s of sites) if (s.kind === 'sql' && s.role === 'provider' && s.symbol_path) { const k = s.symbol_path; const b = best.get(k); if (!b || b.confidence < s.confidence) best.set(k, s); }
  return sites.filter(s => !(s.kind === 'sql' && s.role === 'provider' && s.symbol_path && best.get(s.symbol_path) !== s))
    .sort((a, b) => a.line - b.line || a.col - b.col || a.key.localeCompare(b.key));
}
