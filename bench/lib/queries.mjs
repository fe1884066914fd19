// Deterministic search_code queries drawn from the indexed code itself: identifiers (half of them)
// and 2- and 3-word phrases (a quarter each) taken from random lines of random indexed files.
import { readFileSync } from 'node:fs';
import { rng } from './common.mjs';

// Keywords and noise words of the supported languages; a query made only of these says nothing.
const NOISE = new Set(`
abstract and as assert async await auto bool boolean break byte case catch char class const continue def default defer del delete
do double elif else end enum export extends extern false final finally float fn for from func function global go goto if impl
implements import in instanceof int interface is lambda let long loop match mod module mut namespace new nil none not null
object or package pass private protected pub public raise return self short signed sizeof static str string struct super switch
synchronized this throw throws trait true try type typedef typeof union unless unsigned use using var void volatile where while
with yield the that this with from into for are was were been have has had not but you your our they them their its
`.split(/\s+/).filter(Boolean));

const IDENT = /[A-Za-z_][A-Za-z0-9_]{3,39}/g;
const WORD = /[A-Za-z]+/g;

function identifiers(text) {
  const set = new Set();
  for (const m of text.matchAll(IDENT)) {
    const w = m[0];
    if (NOISE.has(w.toLowerCase()) || /^_+$/.test(w) || /^[A-Z0-9_]+$/.test(w) && w.length < 5) continue;
    set.add(w);
  }
  return [...set];
}

function phrase(lines, k, r) {
  for (let tries = 0; tries < 20; tries++) {
    const line = lines[Math.floor(r() * lines.length)] ?? '';
    const words = [...line.matchAll(WORD)].map(m => m[0].toLowerCase()).filter(w => w.length >= 3 && w.length <= 20 && !NOISE.has(w));
    if (words.length < k) continue;
    const s = Math.floor(r() * (words.length - k + 1));
    return words.slice(s, s + k).join(' ');
  }
  return null;
}

/** `n` distinct queries from `files` ({abs}) for a given seed. */
export function makeQueries(files, n, seed) {
  const r = rng(seed);
  const out = []; const seen = new Set();
  const cache = new Map();
  const read = (f) => {
    let t = cache.get(f.abs);
    if (t === undefined) { try { t = readFileSync(f.abs, 'utf8'); } catch { t = ''; } if (cache.size > 500) cache.clear(); cache.set(f.abs, t); }
    return t;
  };
  for (let attempts = 0; out.length < n && attempts < n * 50; attempts++) {
    const f = files[Math.floor(r() * files.length)];
    const text = read(f);
    if (!text) continue;
    const kind = out.length % 4; // 0,1: identifier; 2: two words; 3: three words
    let q = null;
    if (kind < 2) { const ids = identifiers(text); if (ids.length) q = ids[Math.floor(r() * ids.length)]; }
    else q = phrase(text.split('\n'), kind, r);
    if (q && !seen.has(q)) { seen.add(q); out.push(q); }
  }
  return out;
}

const PROSE = [
  'When I call this with the default settings the result is wrong, and I would expect it to work the same way as before.',
  'Steps to reproduce: run the snippet below against a fresh checkout; the error appears on the second call.',
  'This used to work in the previous release. The traceback points into the library, not into my code.',
  'I looked at the implementation and I think the problem is in how the value is converted before it is stored.',
  'Environment: latest release, default configuration, nothing unusual installed.',
];

/**
 * `n` issue-report-like queries of about `chars` characters each, built from the indexed files: prose,
 * a traceback whose frames name indexed files and identifiers of them, and code blocks of consecutive
 * lines of random files (what an agent pastes: the task text with code and a log).
 */
export function makeLongQueries(files, n, chars, seed) {
  const r = rng(seed + 7919);
  const pick = (a) => a[Math.floor(r() * a.length)];
  const out = [];
  for (let attempts = 0; out.length < n && attempts < n * 50; attempts++) {
    const parts = [pick(PROSE)];
    const frames = ['Traceback (most recent call last):'];
    for (let k = 0; k < 4; k++) {
      const f = pick(files);
      let text = ''; try { text = readFileSync(f.abs, 'utf8'); } catch { continue; }
      const ids = identifiers(text);
      frames.push(`  File "/home/user/project/${f.path}", line ${1 + Math.floor(r() * 400)}, in ${ids.length ? pick(ids) : 'run'}`);
    }
    frames.push('ValueError: unexpected value');
    parts.push(frames.join('\n'));
    let size = parts.join('\n\n').length;
    while (size < chars) {
      const f = pick(files);
      let lines = []; try { lines = readFileSync(f.abs, 'utf8').split('\n'); } catch { continue; }
      if (lines.length < 5) continue;
      const start = Math.floor(r() * Math.max(1, lines.length - 40));
      const block = lines.slice(start, start + 10 + Math.floor(r() * 40)).join('\n').slice(0, chars - size + 200);
      parts.push(pick(PROSE), '```\n' + block + '\n```');
      size += block.length + 120;
    }
    const q = parts.join('\n\n').slice(0, chars);
    if (q.length >= chars * 0.9) out.push(q);
  }
  return out;
}
