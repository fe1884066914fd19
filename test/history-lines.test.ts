/** Symbol ↔ commit mapping (src/core/history/lines.ts): unit cases and a property test against a brute force over line identities. */
import { strict as assert } from 'node:assert';
import { carryBack, symbolCommits } from '../src/core/history/lines';
import type { FileChange, Hunk, MinedCommit } from '../src/core/history/mine';

function commit(sha: string, files: FileChange[], extra: Partial<MinedCommit> = {}): MinedCommit {
  return { sha, parents: ['p'], time: 0, author: 'a', subject: sha, files, indexed_files: files.length, sweeping: false, boundary: false, ...extra };
}
const mod = (path: string, hunks: Hunk[], extra: Partial<FileChange> = {}): FileChange => ({ status: 'modified', path, old_path: null, binary: false, hunks, ...extra });
const h = (old_start: number, old_lines: number, new_start: number, new_lines: number): Hunk => ({ old_start, old_lines, new_start, new_lines });

describe('history: line mapping', () => {
  it('carryBack: shifts, touches, widening and birth', () => {
    // 3 lines inserted after old line 2: a range below moves up by 3 and is not touched.
    assert.deepEqual(carryBack({ start: 10, end: 12 }, [h(2, 0, 3, 3)]), { touched: false, before: { start: 7, end: 9 } });
    // A replacement inside the range touches it; the range keeps its ends.
    assert.deepEqual(carryBack({ start: 10, end: 20 }, [h(14, 2, 14, 5)]), { touched: true, before: { start: 10, end: 17 } });
    // An end inside a replaced block widens to the block's whole old side.
    assert.deepEqual(carryBack({ start: 5, end: 10 }, [h(3, 4, 3, 4)]), { touched: true, before: { start: 3, end: 10 } });
    // A range made only of inserted lines was born in this commit.
    assert.deepEqual(carryBack({ start: 4, end: 5 }, [h(3, 0, 4, 3)]), { touched: true, before: null });
    // A pure deletion strictly inside touches; just before or just after does not.
    assert.equal(carryBack({ start: 5, end: 9 }, [h(8, 2, 7, 0)]).touched, true);
    assert.deepEqual(carryBack({ start: 5, end: 9 }, [h(5, 2, 4, 0)]), { touched: false, before: { start: 7, end: 11 } });
    assert.equal(carryBack({ start: 5, end: 9 }, [h(10, 2, 9, 0)]).touched, false);
    // Hunks after the range change nothing.
    assert.deepEqual(carryBack({ start: 1, end: 3 }, [h(10, 1, 10, 4)]), { touched: false, before: { start: 1, end: 3 } });
  });

  it('symbolCommits follows renames, stops at the addition, shifts through sweeping commits without counting them', () => {
    const commits = [
      commit('c4', [mod('src/new.ts', [h(1, 0, 2, 2)])]), // inserts 2 lines above f (which is lines 10..12 at HEAD)
      commit('c3', [mod('src/new.ts', [h(5, 1, 5, 1)]), ...Array.from({ length: 60 }, (_, i) => mod(`x${i}`, []))], { sweeping: true }), // touches g only, sweeping
      commit('c2', [mod('src/new.ts', [h(9, 1, 9, 1)], { status: 'renamed', old_path: 'src/old.ts' })]), // renamed, touching f (now 8..10)
      commit('c1', [mod('src/old.ts', [h(1, 1, 1, 1)])]), // touches line 1: neither symbol
      commit('c0', [mod('src/old.ts', [h(0, 0, 1, 12)], { status: 'added' })]),
      commit('older', [mod('src/old.ts', [h(1, 1, 1, 1)])]), // before the file existed under this history: never reached
    ];
    const out = symbolCommits(commits, new Map([['src/new.ts', [{ id: 'f', start_line: 10, end_line: 12 }, { id: 'g', start_line: 6, end_line: 7 }, { id: 'bad', start_line: 0, end_line: -1 }]]]));
    assert.deepEqual(out.get('f')!.map(i => commits[i]!.sha), ['c2', 'c0']);
    assert.deepEqual(out.get('g')!.map(i => commits[i]!.sha), ['c0']); // c3 touched g but is sweeping
    assert.deepEqual(out.get('bad'), []);
  });

  it('a shallow boundary and a binary change end the walk', () => {
    const commits = [commit('b', [mod('a.txt', [], { binary: true })]), commit('a', [mod('a.txt', [h(1, 1, 1, 1)])])];
    assert.deepEqual(symbolCommits(commits, new Map([['a.txt', [{ id: 's', start_line: 1, end_line: 1 }]]])).get('s'), []);
    const shallow = [commit('b', [mod('a.txt', [h(0, 0, 1, 3)], { status: 'added' })], { boundary: true, parents: [] })];
    assert.deepEqual(symbolCommits(shallow, new Map([['a.txt', [{ id: 's', start_line: 1, end_line: 1 }]]])).get('s'), []);
  });

  it('property: equals a brute force over line identities on random edit sequences', () => {
    let seed = 12345;
    const rnd = () => { seed = (seed + 0x6d2b79f5) | 0; let t = seed; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
    const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
    let nextId = 1;
    interface Edit { a: number; b: number; removed: number[]; added: number[] }
    interface Step { prev: number[]; next: number[]; edits: Edit[]; hunks: Hunk[] }
    /** A random commit: non-overlapping edits at least one unchanged line apart (as git's -U0 hunks are). */
    const randomStep = (prev: number[]): Step => {
      const edits: Edit[] = [];
      let pos = 1; // next old line an edit may start at
      const n = int(1, 3);
      for (let k = 0; k < n; k++) {
        const a = pos + (k === 0 ? int(0, 4) : int(1, 4));
        if (a > prev.length + 1) break;
        const b = int(0, Math.min(3, prev.length + 1 - a));
        const d = b === 0 ? int(1, 3) : int(0, 3);
        edits.push({ a, b, removed: prev.slice(a - 1, a - 1 + b), added: Array.from({ length: d }, () => nextId++) });
        pos = a + b;
      }
      if (edits.length === 0) edits.push({ a: prev.length + 1, b: 0, removed: [], added: [nextId++] });
      const next: number[] = [], hunks: Hunk[] = [];
      let i = 1;
      for (const e of edits) {
        while (i < e.a) next.push(prev[(i++) - 1]!);
        const c = next.length + 1;
        next.push(...e.added);
        i += e.b;
        hunks.push({ old_start: e.b > 0 ? e.a : e.a - 1, old_lines: e.b, new_start: e.added.length > 0 ? c : c - 1, new_lines: e.added.length });
      }
      while (i <= prev.length) next.push(prev[(i++) - 1]!);
      return { prev, next, edits, hunks };
    };
    /** The brute force: which ids the range holds, which are new, which removed lines belong to it. */
    const bruteStep = (st: Step, s: number, e: number): { touched: boolean; before: [number, number] | null } => {
      const inRange = new Set(st.next.slice(s - 1, e));
      const created = new Set(st.edits.flatMap(x => x.added));
      let touched = [...inRange].some(id => created.has(id));
      const keep = new Set([...inRange].filter(id => !created.has(id)));
      for (const x of st.edits) {
        const addsInRange = x.added.some(id => inRange.has(id));
        const before = st.prev[x.a - 2], after = st.prev[x.a - 1 + x.b];
        const deletionInside = x.added.length === 0 && before !== undefined && after !== undefined && inRange.has(before) && inRange.has(after);
        if (deletionInside) touched = true;
        if (addsInRange || deletionInside) for (const id of x.removed) keep.add(id);
      }
      const pos = st.prev.map((id, k) => keep.has(id) ? k + 1 : 0).filter(Boolean);
      return { touched, before: pos.length ? [Math.min(...pos), Math.max(...pos)] : null };
    };
    let cases = 0, touches = 0;
    for (let trial = 0; trial < 1500; trial++) {
      let state = Array.from({ length: int(0, 14) }, () => nextId++);
      const steps: Step[] = [];
      const nCommits = int(1, 8);
      for (let k = 0; k < nCommits; k++) { const st = randomStep(state); steps.push(st); state = st.next; }
      if (state.length === 0) continue;
      const s = int(1, state.length), e = int(s, Math.min(state.length, s + int(0, 6)));
      // Brute force: newest → oldest.
      const expected: number[] = [];
      let range: [number, number] | null = [s, e];
      for (let k = steps.length - 1; k >= 0 && range; k--) {
        const r = bruteStep(steps[k]!, range[0], range[1]);
        // The step function under test agrees on every single step...
        const got = carryBack({ start: range[0], end: range[1] }, steps[k]!.hunks);
        assert.deepEqual({ touched: got.touched, before: got.before ? [got.before.start, got.before.end] : null }, r, `trial ${trial} step ${k} range ${range}`);
        if (r.touched) expected.push(steps.length - 1 - k);
        range = r.before;
      }
      // ...and the whole walk over mined commits gives the same commits.
      const mined = steps.map((st, k) => commit(`c${k}`, [mod('f.py', st.hunks, k === 0 && st.prev.length === 0 ? { status: 'added' } : {})])).reverse();
      const got = symbolCommits(mined, new Map([['f.py', [{ id: 'sym', start_line: s, end_line: e }]]])).get('sym')!;
      assert.deepEqual(got, expected, `trial ${trial}`);
      cases++; touches += expected.length;
    }
    assert.ok(cases > 1000 && touches > cases, `${cases} cases, ${touches} touches`); // the generator really exercises the mapping
  });
});
