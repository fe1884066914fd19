/**
 * Transitive reverse dependencies ("what breaks if I change this?") over every provider's edges, with
 * the method → class → module → file seeding of the impact contract, tests, entry points and the
 * boundaries that make the answer a lower bound.
 */
import { posix } from 'node:path';
import type { NodeRow } from '../store/store';
import { isTestPath } from '../languages';
import { GraphReader, resolutionOf, type Boundary, type GraphEdge } from './query';
import { testsOf, isNameOnly, type TestHit } from './tests';

export const DEPENDENT_KINDS = ['calls', 'references', 'imports', 'extends', 'implements'] as const;

export interface Affected {
  node: NodeRow; distance: number; via_container: boolean; via: GraphEdge;
  /** The best path's chance of being real: the product of its edges' confidences. */
  confidence: number;
  /** Every path found goes through a name-only binding (receiver type unknown): maybe not real. */
  name_only: boolean;
}

/** A node the walk starts from: a target, or one of its containers (class, module, file). */
export type Seed = { node: NodeRow; container: boolean };

export interface ImpactResult {
  seeds: Seed[];
  /** Dependents outside test code, in the order agents read them (see affectedOrder). */
  affected: Affected[];
  tests: TestHit[];
  entryPoints: Affected[];
  boundaries: Boundary[];
}

/** Dependents one impact answer walks before it stops and says so (a depth_limit boundary). */
export const IMPACT_MAX_NODES = 20_000;

const CALLABLE_KINDS: ReadonlySet<string> = new Set(['function', 'method']);

const inside = (n: NodeRow, seed: NodeRow) =>
  n.path === seed.path && n.repo_id === seed.repo_id && (seed.kind === 'file' || isNested(n, seed));
const isNested = (n: NodeRow, seed: NodeRow) =>
  n.symbol_path !== null && seed.symbol_path !== null
  && (n.symbol_path === seed.symbol_path || n.symbol_path.startsWith(`${seed.symbol_path}.`));

/**
 * The order agents read dependents in: through the target before through a container; dependents bound
 * by more than a name, nearest first; then the name-only ones, likeliest first.
 */
export const affectedOrder = (a: Affected, b: Affected) =>
  Number(a.via_container) - Number(b.via_container)
  || Number(a.name_only) - Number(b.name_only)
  || (a.name_only ? b.confidence - a.confidence || a.distance - b.distance : a.distance - b.distance || b.confidence - a.confidence)
  || a.node.path.localeCompare(b.node.path) || a.node.start_line - b.node.start_line;

interface Step { node: NodeRow; confidence: number; nameOnly: boolean }

/** What one walk shares with the next: the seeds, the best answer so far, what it met on the way. */
class ImpactWalk {
  readonly best = new Map<number, Affected>();
  lowSeen = 0;
  /** The nodes whose dependents the walk read (not the starts): their boundaries bound the answer too. */
  readonly walked = new Map<number, NodeRow>();
  cutAtDepth = false;
  cutAtCost = false;

  constructor(
    private readonly g: GraphReader,
    private readonly seeds: Seed[],
    private readonly depth: number,
    private readonly links: { links: boolean },
  ) {}

  /** Breadth-first over incoming dependent edges from `starts`, `depth` layers deep. */
  run(starts: NodeRow[], viaContainer: boolean): void {
    const reached = new Map<number, Affected>();
    let frontier: Step[] = starts.map(node => ({ node, confidence: 1, nameOnly: false }));
    for (let d = 1; d <= this.depth && frontier.length; d++) {
      const next = new Map<number, Step>();
      const edgesOf = this.g.dependentsOfMany(frontier.map(f => f.node), DEPENDENT_KINDS, this.links);
      if (d > 1) for (const f of frontier) this.walked.set(f.node.node, f.node);
      for (const f of frontier) {
        for (const { neighbour, edge } of edgesOf.get(f.node.node) ?? []) {
          if (this.skip(neighbour, viaContainer)) continue;
          if (this.best.size + reached.size >= IMPACT_MAX_NODES && !reached.has(neighbour.node)) { this.cutAtCost = true; continue; }
          this.reach(reached, next, f, neighbour, edge, d, viaContainer);
        }
      }
      frontier = [...next.values()];
      if (d === this.depth && frontier.length) this.cutAtDepth ||= this.continuesBeyond(frontier);
    }
    for (const [k, v] of reached) this.best.set(k, v);
  }

  private skip(n: NodeRow, viaContainer: boolean): boolean {
    // the function enclosing a nested target is a container seed, but a call of the target from its body
    // makes it a dependent like any caller (`convert(x) for x in check_iter(value)`)
    const enclosingCaller = (s: Seed) => !viaContainer && s.container && CALLABLE_KINDS.has(s.node.kind);
    if (this.seeds.some(s => (inside(n, s.node) && !s.container) || (s.node.node === n.node && !enclosingCaller(s)))) return true;
    if (!viaContainer) return false;
    // A dependent inside a container seed counts only through the target itself, and a dependent of
    // the target itself is not listed again through a container.
    return this.seeds.some(s => s.container && s.node.kind !== 'file' && inside(n, s.node)) || this.best.has(n.node);
  }

  /** Record `n` reached from `f` over `edge` at distance `d`; queue it when this path is its best yet. */
  private reach(reached: Map<number, Affected>, next: Map<number, Step>, f: Step, n: NodeRow, edge: GraphEdge, d: number, viaContainer: boolean): void {
    const edgeNameOnly = isNameOnly(edge);
    if (edgeNameOnly) this.lowSeen++;
    const confidence = round(f.confidence * edge.confidence);
    const nameOnly = f.nameOnly || edgeNameOnly;
    // A file that imports a module depends on it; the files importing that file do not (their own uses
    // of the target are edges of their own). Imports are listed, not followed.
    const follow = !(edge.kind === 'imports' && n.kind === 'file');
    const prev = reached.get(n.node);
    if (prev && !betterPath(prev, nameOnly, confidence)) return;
    const distance = prev && prev.name_only === nameOnly ? Math.min(prev.distance, d) : d;
    reached.set(n.node, { node: n, distance, confidence, via_container: viaContainer, via: edge, name_only: nameOnly });
    const queued = next.get(n.node);
    if (follow && (!queued || betterPath({ name_only: queued.nameOnly, confidence: queued.confidence }, nameOnly, confidence))) {
      next.set(n.node, { node: n, confidence, nameOnly });
    }
  }

  private continuesBeyond(frontier: Step[]): boolean {
    return [...this.g.edgesOfMany(frontier.map(n => n.node), 'in', DEPENDENT_KINDS, this.links).values()].some(l => l.length > 0);
  }
}

/** A path bound by more than names beats any name-only one; otherwise the likelier path wins. */
const betterPath = (prev: { name_only: boolean; confidence: number }, nameOnly: boolean, confidence: number) =>
  prev.name_only !== nameOnly ? prev.name_only : confidence > prev.confidence;

const round = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Transitive dependents of `targets` (each target with its overload set already included), through
 * every binding kind: each step multiplies in its edge's confidence, so a dependent reached through a
 * name-only binding (a shared method name, receiver type unknown) is listed with the chance that
 * path is real and ranked after every dependent bound by more than a name. `depth` edges are walked,
 * and no more than IMPACT_MAX_NODES dependents (beyond that: a depth_limit boundary). A file reached
 * through an import is listed and not followed: a chain of `import pkg` lines is no dependency.
 * `followLinks` also walks matched cross-boundary links (a route handler's clients in any language, a
 * table model's queries…), as best-effort edges of provider `links`.
 */
export function computeImpact(g: GraphReader, targets: NodeRow[], depth: number, opts: { withContainers: boolean; followLinks?: boolean }): ImpactResult {
  const seeds = seedsOf(g, targets, opts.withContainers);
  const walk = new ImpactWalk(g, seeds, depth, { links: !!opts.followLinks });
  // Two passes: first everything that depends on the targets themselves, then what depends only on a
  // container (via_container = true means: reached through a container and never through the target).
  walk.run(seeds.filter(s => !s.container).map(s => s.node), false);
  walk.run(seeds.filter(s => s.container).map(s => s.node), true);
  const affected = [...walk.best.values()].filter(a => !isTestPath(a.node.path)).sort(affectedOrder);
  const targetSeeds = seeds.filter(s => !s.container).map(s => s.node);
  const t = testsOf(g, targetSeeds);
  const entryPoints = affected.filter(a => isEntryPoint(g, a.node));
  const boundaries = g.boundaries(targetSeeds, walk.lowSeen);
  if (walk.cutAtDepth) boundaries.push({ kind: 'depth_limit', detail: `dependents continue beyond depth ${depth}; raise depth to see more` });
  const costDetail = `the walk stopped after ${IMPACT_MAX_NODES} dependents; narrow the target or lower depth`;
  if (walk.cutAtCost) boundaries.push({ kind: 'depth_limit', detail: costDetail });
  boundaries.push(...t.boundaries);
  boundaries.push(...g.walkBoundaries([...new Map([...walk.walked, ...t.walked.map(n => [n.node, n] as const)]).values()], boundaries));
  return { seeds, affected, tests: t.tests, entryPoints, boundaries };
}

/** The targets, and for a method or function its containers (class, module, file) as container seeds. */
function seedsOf(g: GraphReader, targets: NodeRow[], withContainers: boolean) {
  const seeds: Seed[] = targets.map(t => ({ node: t, container: false }));
  if (!withContainers) return seeds;
  for (const t of targets) {
    if (t.kind !== 'method' && t.kind !== 'function') continue;
    for (const c of g.containers(t)) if (!seeds.some(s => s.node.node === c.node)) seeds.push({ node: c, container: true });
  }
  return seeds;
}

/** An entry point: a function nothing in the workspace calls (a root of the dependency graph), or main. */
function isEntryPoint(g: GraphReader, n: NodeRow): boolean {
  if (n.kind !== 'function' && n.kind !== 'method') return false;
  if (n.name === 'main' || n.name === '__main__') return true;
  return g.edges(n, 'in', ['calls', 'references']).length === 0;
}

export function moduleOf(n: NodeRow): string { return posix.dirname(n.path); }

export { resolutionOf };
