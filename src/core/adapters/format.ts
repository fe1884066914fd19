/**
 * Payload formats: how the bytes an http or command adapter answered with become a payload.
 *
 * Rules:
 * - `json`: the whole answer is one JSON value (else a `malformed` error naming the position).
 * - `jsonl`: every non-empty line is one JSON value → an array (a line that does not parse is `malformed`,
 *   naming the line).
 * - `lines`: the non-empty lines, as strings (trailing `\r` removed).
 * - `text`: the answer as it is.
 * - `auto` (default): JSON when the whole answer parses; else JSON lines when at least two lines and
 *   every non-empty line parse as objects or arrays; else JSON that starts at a line beginning with `{`
 *   or `[` after log lines (the first such line from which the rest parses); else text. An empty answer is `null` (no items).
 * Pure; never throws anything but FormatError.
 */
import type { PayloadFormat } from './config';

export class FormatError extends Error {
  constructor(message: string) { super(message); this.name = 'FormatError'; }
}

function tryJson(s: string): { ok: true; value: unknown } | { ok: false } {
  try { return { ok: true, value: JSON.parse(s) }; } catch { return { ok: false }; }
}

export function parsePayload(text: string, format: PayloadFormat = 'auto'): unknown {
  const body = text.replace(/^\uFEFF/, '');
  switch (format) {
    case 'text': return body;
    case 'lines': return body.split('\n').map(l => l.replace(/\r$/, '')).filter(l => l.trim() !== '');
    case 'json': {
      try { return JSON.parse(body); } catch (e) { throw new FormatError(`the answer is not JSON (${(e as Error).message})`); }
    }
    case 'jsonl': {
      const out: unknown[] = [];
      const lines = body.split('\n');
      for (let i = 0; i < lines.length; i++) {
        const l = lines[i]!.trim();
        if (!l) continue;
        const r = tryJson(l);
        if (!r.ok) throw new FormatError(`line ${i + 1} of the answer is not JSON: ${l.slice(0, 80)}`);
        out.push(r.value);
      }
      return out;
    }
    case 'auto': {
      const trimmed = body.trim();
      if (!trimmed) return null;
      const whole = tryJson(trimmed);
      if (whole.ok) return whole.value;
      const lines = body.split('\n');
      const nonEmpty = lines.map(l => l.trim()).filter(Boolean);
      if (nonEmpty.length >= 2) {
        const parsed = nonEmpty.map(tryJson);
        if (parsed.every(p => p.ok && typeof p.value === 'object' && p.value !== null)) return parsed.map(p => (p as { value: unknown }).value);
      }
      // JSON after log lines: the first line starting a JSON value from which the rest parses
      for (let i = 1; i < lines.length; i++) {
        const l = lines[i]!.trimStart();
        if (!l.startsWith('{') && !l.startsWith('[')) continue;
        const rest = tryJson(lines.slice(i).join('\n').trim());
        if (rest.ok) return rest.value;
      }
      return body;
    }
  }
}
