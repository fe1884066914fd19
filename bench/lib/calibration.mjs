// The confidence table: each heuristic tier's stated confidence beside its precision measured against
// compiler-grade truth (bench:graph: the TypeScript language service, pyright), per repository and
// language. Written by bench:graph into bench/RESULTS.md.
import { writeResults } from './results.mjs';

const fmt = (x) => (Number.isFinite(x) ? x.toFixed(2) : '–');

/** A tier's stated confidence, with the language families that state another (`0.65; python 0.45`). */
const stated = (tiers, families, t) => [fmt(tiers[t]?.confidence),
  ...Object.entries(families).filter(([, o]) => o[t] !== undefined).map(([f, o]) => `${f} ${fmt(o[t])}`)].join('; ');

/** Markdown table: tier, stated confidence (per family where it differs), then per repository "precision (edges)". */
export function calibrationTable(results, tiers, families = {}) {
  const ok = results.filter(r => !r.error && r.tiers);
  const names = new Set(ok.flatMap(r => Object.keys(r.tiers)));
  const order = [...names].sort((a, b) => (tiers[b]?.confidence ?? 0) - (tiers[a]?.confidence ?? 0) || a.localeCompare(b));
  const head = `| tier | stated confidence | ${ok.map(r => `${r.name} (${r.language}) precision (edges)`).join(' | ')} |`;
  const rule = `| --- | --- | ${ok.map(() => '---').join(' | ')} |`;
  const rows = order.map(t => {
    const cells = ok.map(r => {
      const x = r.tiers[t]?.merged;
      return x?.n ? `${fmt(x.tp / x.n)} (${x.n})` : '–';
    });
    return `| ${t} | ${stated(tiers, families, t)} | ${cells.join(' | ')} |`;
  });
  // what `min_confidence` returns: every tier whose confidence (in the result's language family) reaches it
  const atLeast = (min) => {
    const cells = ok.map(r => {
      let n = 0; let tp = 0;
      for (const [t, v] of Object.entries(r.tiers)) {
        const c = families[r.language]?.[t] ?? tiers[t]?.confidence ?? 0;
        if (c >= min && v.merged?.n) { n += v.merged.n; tp += v.merged.tp; }
      }
      return n ? `${fmt(tp / n)} (${n})` : '–';
    });
    return `| **min_confidence ${min}** | all tiers ≥ ${min} | ${cells.join(' | ')} |`;
  };
  return [head, rule, ...rows, atLeast(0.5), atLeast(0.8)].join('\n');
}

export function writeCalibration(results, tiers, targetsNote, families = {}) {
  const body = [
    `Heuristic edges of sampled targets (${targetsNote}), calls and references, counted right when the`,
    'compiler-grade provider has an edge between the same two symbols. `dispatch` edges (a caller of the',
    'base method an override replaces) and `callback` edges (the code that calls the parameter a function',
    'is handed to) are never in a compiler\'s references of the function, so they read 0 here by',
    'construction: bench:stake measures them against what runs.',
    '',
    calibrationTable(results, tiers, families),
  ].join('\n');
  return writeResults('graph-calibration', 'Confidence by tier (bench:graph)', body);
}
