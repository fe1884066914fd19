/**
 * Transitive reverse dependencies ("what breaks if I change this?") over every provider's edges, with
 * the method → class → module → file seeding of the impact contract, tests, entry points and the
 * boundaries that make the answer a lower bound.
 */
import { posix } from 'node:path';
import type { NodeRow } from '../store/store';
import { isTestPath } from './languages';
import { GraphReader, resolutionOf, type Boundary, type GraphEdge } from './query';

export const DEPENDENT_KINDS = ['calls', 'references', 'imports', 'extends', 'implements'] as const;
const LOW_CONFIDENCE = 0.5;

export interface Affected {
  node: NodeRow; distance: number; confidence: number; via_container: boolean; via: GraphEdge;
}

export interface ImpactResult {
  seeds: { node: NodeRow; container: boolean }[];
  affected: Affected[];
  tests: { node: NodeRow; reason: string; confidence: number; provider: string }[];
  entryPoints: Affected[];
  boundaries: Boundary[];
}

const inside = (n: NodeRow, seed: NodeRow) => n.path === seed.path && n.repo_id === seed.repo_id
  && (seed.kind === 'file' || (n.symbol_path !== null && seed.symbol_path !== null && (n.symbol_path === seed.symbol_path || n.symbol_path.startsWith(`${seed.symbol_path}.`))));

export function computeImpact(g: GraphReader, targets: NodeRow[], depth: number, opts: { withContainers: boolean }): ImpactResult {
  const seeds: { node: NodeRow; container: boolean }[] = targets.map(t => ({ node: t, container: false }));
  if (opts.withContainers) {
    for (const t of targets) {
      if (t.kind !== 'method' && t.kind !== 'function') continue;
      for (const c of g.containers(t)) if (!seeds.some(s => s.node.node === c.node)) seeds.push({ node: c, container: true });
    }
  }
  // Two passes: first everything that depends on the targets themselves, then what depends only on a
  // container (via_container = true means: reached through a container and never through the target).
  const best = new Map<number, Affected>();
  let lowSeen = 0;
  let cutAtDepth = false;
  const walk = (starts: { node: NodeRow }[], viaContainer: boolean) => {
    const reached = new Map<number, Affected>();
    let frontier = starts.map(s => ({ node: s.node, confidence: 1 }));
    for (let d = 1; d <= depth && frontier.length; d++) {
      const next: typeof frontier = [];
      for (const f of frontier) {
        for (const { neighbour, edge } of g.edges(f.node, 'in', DEPENDENT_KINDS)) {
          if (seeds.some(s => inside(neighbour, s.node) && !s.container) || seeds.some(s => s.node.node === neighbour.node)) continue;
          // A dependent inside a container seed counts only through the target itself.
          if (viaContainer && seeds.some(s => s.container && s.node.kind !== 'file' && inside(neighbour, s.node))) continue;
          if (viaContainer && best.has(neighbour.node)) continue; // already a dependent of the target itself
          const confidence = Math.min(f.confidence, edge.confidence);
          if (edge.confidence < LOW_CONFIDENCE) lowSeen++;
          const prev = reached.get(neighbour.node);
          if (!prev) { reached.set(neighbour.node, { node: neighbour, distance: d, confidence, via_container: viaContainer, via: edge }); next.push({ node: neighbour, confidence }); }
          else if (prev.distance === d && prev.confidence < confidence) reached.set(neighbour.node, { ...prev, confidence, via: edge });
        }
      }
      if (d === depth && next.length) cutAtDepth ||= next.some(n => g.edges(n.node, 'in', DEPENDENT_KINDS).length > 0);
      frontier = next;
    }
    for (const [k, v] of reached) best.set(k, v);
  };
  walk(seeds.filter(s => !s.container), false);
  walk(seeds.filter(s => s.container), true);
  const affected = [...best.values()].sort((a, b) => Number(a.via_container) - Number(b.via_container) || a.distance - b.distance || b.confidence - a.confidence
    || a.node.path.localeCompare(b.node.path) || a.node.start_line - b.node.start_line);

  // Tests: test-file dependents, plus contains_test_for edges into the targets, their containers and the affected.
  const tests = new Map<number, { node: NodeRow; reason: string; confidence: number; provider: string }>();
  for (const a of affected) if (isTestPath(a.node.path)) tests.set(a.node.node, { node: a.node, reason: `reaches the change at distance ${a.distance} (${a.via.kind}, ${a.via.provider})`, confidence: a.confidence, provider: a.via.provider });
  for (const s of [...seeds.map(x => x.node), ...affected.filter(a => !isTestPath(a.node.path)).slice(0, 200).map(a => a.node)]) {
    for (const { neighbour, edge } of g.edges(s, 'in', ['contains_test_for'])) {
      if (!tests.has(neighbour.node)) tests.set(neighbour.node, { node: neighbour, reason: edge.evidence, confidence: edge.confidence, provider: edge.provider });
    }
  }
  const entryPoints = affected.filter(a => !isTestPath(a.node.path) && isEntryPoint(g, a.node));
  const boundaries = g.boundaries(seeds.filter(s => !s.container).map(s => s.node), lowSeen);
  if (cutAtDepth) boundaries.push({ kind: 'depth_limit', detail: `dependents continue beyond depth ${depth}; raise depth to see more` });
  return { seeds, affected: affected.filter(a => !isTestPath(a.node.path)), tests: [...tests.values()].sort((a, b) => b.confidence - a.confidence || a.node.path.localeCompare(b.node.path)), entryPoints, boundaries };
}

/** An entry point: a function nothing in the workspace calls (a root of the dependency graph), or main. */
function isEntryPoint(g: GraphReader, n: NodeRow): boolean {
  if (n.kind !== 'function' && n.kind !== 'method') return false;
  if (n.name === 'main' || n.name === '__main__') return true;
  return g.edges(n, 'in', ['calls', 'references']).length === 0;
}

export function moduleOf(n: NodeRow): string { return posix.dirname(n.path); }

export { resolutionOf };
