/**
 * Transitive reverse dependencies ("what breaks if I change this?") over every provider's edges, with
 * the method → class → module → file seeding of the impact contract, tests, entry points and the
 * boundaries that make the answer a lower bound.
 */
import { posix } from 'node:path';
import type { NodeRow } from '../store/store';
import { isTestPath } from '../languages';
import { GraphReader, resolutionOf, type Boundary, type GraphEdge } from './query';
import { testsOf, NAME_ONLY, type TestHit } from './tests';

export const DEPENDENT_KINDS = ['calls', 'references', 'imports', 'extends', 'implements'] as const;

export interface Affected {
  node: NodeRow; distance: number; confidence: number; via_container: boolean; via: GraphEdge;
  /** Reached only through a name-only binding (receiver type unknown): listed, never expanded further. */
  name_only: boolean;
}

export interface ImpactResult {
  seeds: { node: NodeRow; container: boolean }[];
  /** Dependents outside test code, in the order agents read them: direct, then by distance, then via a container. */
  affected: Affected[];
  tests: TestHit[];
  entryPoints: Affected[];
  boundaries: Boundary[];
}

const inside = (n: NodeRow, seed: NodeRow) => n.path === seed.path && n.repo_id === seed.repo_id
  && (seed.kind === 'file' || (n.symbol_path !== null && seed.symbol_path !== null && (n.symbol_path === seed.symbol_path || n.symbol_path.startsWith(`${seed.symbol_path}.`))));

/** Direct and strong first, then direct name-only, then by distance and confidence; via-container dependents last. */
export const affectedOrder = (a: Affected, b: Affected) => Number(a.via_container) - Number(b.via_container) || a.distance - b.distance
  || Number(a.name_only) - Number(b.name_only) || b.confidence - a.confidence || a.node.path.localeCompare(b.node.path) || a.node.start_line - b.node.start_line;

/**
 * Transitive dependents of `targets` (each target with its overload set already included). Name-only
 * bindings (confidence < 0.5) are listed with their confidence but seed no further expansion: one
 * shared method name must not pull in the callers of every class that has it. A file reached through
 * an import is listed and not followed either: a chain of `import pkg` lines is no dependency.
 * `followLinks` also walks matched cross-boundary links (a route handler's clients in any language, a
 * table model's queries…), as best-effort edges of provider `links`.
 */
export function computeImpact(g: GraphReader, targets: NodeRow[], depth: number, opts: { withContainers: boolean; followLinks?: boolean }): ImpactResult {
  const links = { links: !!opts.followLinks };
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
      const edgesOf = g.edgesOfMany(frontier.map(f => f.node), 'in', DEPENDENT_KINDS, links);
      for (const f of frontier) {
        for (const { neighbour, edge } of edgesOf.get(f.node.node) ?? []) {
          if (seeds.some(s => inside(neighbour, s.node) && !s.container) || seeds.some(s => s.node.node === neighbour.node)) continue;
          // A dependent inside a container seed counts only through the target itself.
          if (viaContainer && seeds.some(s => s.container && s.node.kind !== 'file' && inside(neighbour, s.node))) continue;
          if (viaContainer && best.has(neighbour.node)) continue; // already a dependent of the target itself
          const confidence = Math.min(f.confidence, edge.confidence);
          const nameOnly = edge.confidence < NAME_ONLY;
          if (nameOnly) lowSeen++;
          // A file that imports a module depends on it; the files importing that file do not (their own
          // uses of the target are edges of their own). Imports are listed, not followed.
          const follow = !nameOnly && !(edge.kind === 'imports' && neighbour.kind === 'file');
          const prev = reached.get(neighbour.node);
          if (!prev) {
            reached.set(neighbour.node, { node: neighbour, distance: d, confidence, via_container: viaContainer, via: edge, name_only: nameOnly });
            if (follow) next.push({ node: neighbour, confidence });
          } else if (prev.name_only && !nameOnly) {
            // First reached by name only (not expanded), now through a real binding: that path counts, and is followed.
            reached.set(neighbour.node, { ...prev, distance: d, confidence, via: edge, name_only: false });
            next.push({ node: neighbour, confidence });
          } else if (prev.distance === d && prev.confidence < confidence) {
            reached.set(neighbour.node, { ...prev, confidence, via: edge });
          }
        }
      }
      if (d === depth && next.length && !cutAtDepth) cutAtDepth = [...g.edgesOfMany(next.map(n => n.node), 'in', DEPENDENT_KINDS, links).values()].some(l => l.length > 0);
      frontier = next;
    }
    for (const [k, v] of reached) best.set(k, v);
  };
  walk(seeds.filter(s => !s.container), false);
  walk(seeds.filter(s => s.container), true);
  const affected = [...best.values()].filter(a => !isTestPath(a.node.path)).sort(affectedOrder);
  const targetSeeds = seeds.filter(s => !s.container).map(s => s.node);
  const t = testsOf(g, targetSeeds);
  const entryPoints = affected.filter(a => isEntryPoint(g, a.node));
  const boundaries = g.boundaries(targetSeeds, lowSeen);
  if (cutAtDepth) boundaries.push({ kind: 'depth_limit', detail: `dependents continue beyond depth ${depth}; raise depth to see more` });
  boundaries.push(...t.boundaries);
  return { seeds, affected, tests: t.tests, entryPoints, boundaries };
}

/** An entry point: a function nothing in the workspace calls (a root of the dependency graph), or main. */
function isEntryPoint(g: GraphReader, n: NodeRow): boolean {
  if (n.kind !== 'function' && n.kind !== 'method') return false;
  if (n.name === 'main' || n.name === '__main__') return true;
  return g.edges(n, 'in', ['calls', 'references']).length === 0;
}

export function moduleOf(n: NodeRow): string { return posix.dirname(n.path); }

export { resolutionOf };
