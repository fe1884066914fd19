/**
 * Paths in git's patch headers, shared by the log miner (`mine.ts`) and the diff parser (`diff.ts`).
 *
 * git C-quotes a path that holds a control character, `"` or `\` (and, without
 * `core.quotepath=off`, any byte ≥ 0x80 as octal): `"a\tb.py"`, `"caf\303\251.md"`. The bytes are
 * UTF-8. In `diff --git a/X b/Y` an unquoted path may hold spaces, so the split is guessed the way
 * `git apply` does: the two names are the same file when the header is not a rename.
 */

const C_ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92, e: 27 };

/**
 * Read one C-quoted token starting at `s[from] === '"'`. Returns the decoded text and the index just
 * after the closing quote, or null when the quote is never closed.
 */
export function readQuoted(s: string, from: number): { text: string; end: number } | null {
  const parts: Buffer[] = [];
  let plain = '';
  const flush = () => { if (plain) { parts.push(Buffer.from(plain, 'utf8')); plain = ''; } };
  let i = from + 1;
  while (i < s.length) {
    const ch = s[i]!;
    if (ch === '"') { flush(); return { text: Buffer.concat(parts).toString('utf8'), end: i + 1 }; }
    if (ch === '\\' && i + 1 < s.length) {
      const n = s[i + 1]!;
      const oct = /^[0-7]{1,3}/.exec(s.slice(i + 1, i + 4));
      if (oct) { flush(); parts.push(Buffer.from([parseInt(oct[0], 8) & 0xff])); i += 1 + oct[0].length; continue; }
      const code = C_ESCAPES[n];
      if (code !== undefined) { flush(); parts.push(Buffer.from([code])); i += 2; continue; }
      plain += '\\' + n; // an unknown escape: kept as written
      i += 2;
      continue;
    }
    plain += ch;
    i++;
  }
  return null;
}

/** A path as written in a header line: C-quoted or not. Trailing whitespace of an unquoted name is kept. */
export function unquotePath(raw: string): string {
  if (raw.startsWith('"')) {
    const q = readQuoted(raw, 0);
    if (q) return q.text;
  }
  return raw;
}

/** The name in a `--- X` / `+++ X` line: quoted, or up to a TAB (git adds one after a name with a space; GNU diff puts the date there). */
export function headerName(rest: string): string {
  if (rest.startsWith('"')) {
    const q = readQuoted(rest, 0);
    if (q) return q.text;
  }
  const tab = rest.indexOf('\t');
  return (tab >= 0 ? rest.slice(0, tab) : rest).replace(/[ \r]+$/, '');
}

const PREFIX = /^[abciow12]\//;

/**
 * The two names of a `diff --git ` header (after that prefix), with their `a/` `b/` prefixes still on.
 * null when the line cannot be split.
 */
export function splitGitHeader(rest: string): [string, string] | null {
  rest = rest.replace(/\r$/, '');
  if (rest.startsWith('"')) {
    const a = readQuoted(rest, 0);
    if (!a || rest[a.end] !== ' ') return null;
    const tail = rest.slice(a.end + 1);
    return [a.text, unquotePath(tail)];
  }
  const q = rest.indexOf(' "');
  if (q > 0 && rest.endsWith('"')) {
    const b = readQuoted(rest, q + 1);
    if (b && b.end === rest.length) return [rest.slice(0, q), b.text];
  }
  // Both unquoted: prefer the split where the names agree after their prefixes (not a rename).
  const spaces: number[] = [];
  for (let i = rest.indexOf(' '); i >= 0; i = rest.indexOf(' ', i + 1)) spaces.push(i);
  for (const i of spaces) {
    const a = rest.slice(0, i), b = rest.slice(i + 1);
    if (a.replace(PREFIX, '') === b.replace(PREFIX, '') && PREFIX.test(a) === PREFIX.test(b)) return [a, b];
  }
  for (const i of spaces) if (/^b\//.test(rest.slice(i + 1))) return [rest.slice(0, i), rest.slice(i + 1)];
  if (spaces.length === 1) return [rest.slice(0, spaces[0]), rest.slice(spaces[0]! + 1)];
  return null;
}

/**
 * Take the `a/` `b/` (or mnemonic `i/` `w/` `c/` `o/`) prefixes off a pair of names when both carry
 * one and they differ, as git writes them; `--no-prefix` diffs are left alone. `/dev/null` → null.
 */
export function stripPrefixes(oldName: string | null, newName: string | null): [string | null, string | null] {
  const o = oldName === '/dev/null' ? null : oldName, n = newName === '/dev/null' ? null : newName;
  const po = o && PREFIX.test(o) ? o[0] : null, pn = n && PREFIX.test(n) ? n[0] : null;
  if (o && n) return po && pn && po !== pn ? [o.slice(2), n.slice(2)] : [o, n];
  if (o) return [po === 'a' || po === 'i' || po === 'c' || po === 'o' || po === '1' ? o.slice(2) : o, null];
  if (n) return [null, pn === 'b' || pn === 'w' || pn === 'i' || pn === '2' ? n.slice(2) : n];
  return [null, null];
}

/** `@@ -a[,b] +c[,d] @@` → numbers (a missing count is 1), or null. */
export function parseHunkHeader(line: string): { old_start: number; old_lines: number; new_start: number; new_lines: number } | null {
  const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
  if (!m) return null;
  return { old_start: +m[1]!, old_lines: m[2] === undefined ? 1 : +m[2], new_start: +m[3]!, new_lines: m[4] === undefined ? 1 : +m[4] };
}
