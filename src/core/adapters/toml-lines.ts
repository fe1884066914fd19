/**
 * Where a key sits in a TOML text, for config errors that name a line (config.ts): table headers
 * (`[a.b]`, `[[a.b]]` counted per array), `key =` lines with dotted and quoted keys, and the keys of an
 * inline table on the same line. Best effort and pure: the line of the longest known prefix of the path.
 */
interface KeyLine { path: string[]; line: number }

/** Splits a dotted TOML key (`a."b.c".d`) into its parts. */
function splitKey(key: string): string[] {
  const out: string[] = [];
  const re = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(?:\.|$)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(key)) && m[0] !== '') out.push(m[1] ?? m[2] ?? m[3] ?? '');
  return out;
}

/** Every table header and `key =` line of a TOML text, with its full key path (inline tables: their keys too). */
function keyLines(text: string): KeyLine[] {
  const out: KeyLine[] = [];
  let table: string[] = [];
  const arrayCounts = new Map<string, number>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!.trim();
    if (!l || l.startsWith('#')) continue;
    const h = /^\[\[\s*([^\]]+?)\s*\]\]/.exec(l) ?? /^\[\s*([^\]]+?)\s*\]/.exec(l);
    if (h) {
      table = splitKey(h[1]!);
      if (l.startsWith('[[')) {
        const k = table.join('\u0000');
        const n = arrayCounts.get(k) ?? 0;
        arrayCounts.set(k, n + 1);
        table = [...table, String(n)];
      }
      out.push({ path: table, line: i + 1 });
      continue;
    }
    const kv = /^((?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_.\s-])+?)\s*=(.*)$/.exec(l);
    if (!kv) continue;
    const key = [...table, ...splitKey(kv[1]!)];
    out.push({ path: key, line: i + 1 });
    // keys of an inline table on the same line: `when = { command = "x", file = "y" }`
    const rest = kv[2]!;
    for (const m of rest.matchAll(/[{,]\s*((?:"(?:[^"\\]|\\.)*"|[A-Za-z0-9_-]+)(?:\s*\.\s*(?:"(?:[^"\\]|\\.)*"|[A-Za-z0-9_-]+))*)\s*=/g)) {
      out.push({ path: [...key, ...splitKey(m[1]!)], line: i + 1 });
    }
  }
  return out;
}

/** The line of the longest known prefix of `path` in a TOML text (the key itself when it is there). */
export function lineOfKey(text: string, path: readonly (string | number)[]): number | undefined {
  const want = path.map(String);
  let best: KeyLine | undefined;
  let bestLen = 0;
  for (const k of keyLines(text)) {
    let n = 0;
    while (n < k.path.length && n < want.length && k.path[n] === want[n]) n++;
    if (n === k.path.length && n > bestLen) { best = k; bestLen = n; }
    else if (n === want.length && n > bestLen) { best = k; bestLen = n; } // a deeper key under the wanted path
  }
  return best?.line;
}
