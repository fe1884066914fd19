/**
 * Declared phases and the runner that orders and runs them.
 *
 * A phase is `{ name, deps, stages, run }`. `deps` are the phase objects it needs (not names): `run`
 * receives `{ [dep.name]: dep's output }`, typed from the deps' own types, so a phase can read nothing
 * it did not declare and needs no casts. `stages` are the timing and progress keys it reports:
 * by default its name, timed by the runner around `run`; a phase that declares its own stages (scan:
 * walk, parse, write) reports their times itself through `ctx.time`, and one with no stages is not timed
 * (its work is timed in its own report).
 *
 * The runner orders the phases topologically (declaration order among independent ones), refuses an
 * unknown dependency or a cycle naming the path, and tags a failure with the failing phase: a
 * SightlineError keeps its code and message (`phase` is set on it), any other error is wrapped in a
 * PhaseFailedError naming the phase. An error thrown by the caller's own callback (progress) is
 * passed through as it was thrown: it is the caller's, not a phase's.
 */
import { SightlineError } from '../errors';

/** What a phase receives from the runner besides its inputs. */
export interface PhaseContext<Stage extends string> {
  /** adds time (ms) to one of this phase's stages */
  time(stage: Stage, ms: number): void;
  /** reports progress of one of this phase's stages */
  progress(stage: Stage, repoId: string, done: number, total: number): void;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyPhase = Phase<string, readonly any[], any, any, string>;

export interface Phase<Name extends string, Deps extends readonly AnyPhase[], Out, Env, Stage extends string> {
  readonly name: Name;
  readonly deps: Deps;
  readonly stages: readonly Stage[];
  /** true when the runner times `run` under the phase's one stage (its name) */
  readonly timedByRunner: boolean;
  run(input: InputOf<Deps>, env: Env, ctx: PhaseContext<Stage>): Promise<Out>;
}

export type OutputOf<P> = P extends Phase<string, readonly AnyPhase[], infer O, unknown, string> ? O : never;
export type NameOf<P> = P extends { readonly name: infer N extends string } ? N : never;
/** The input of a phase with these dependencies: each dependency's output under its name. */
export type InputOf<Deps extends readonly AnyPhase[]> = { [P in Deps[number] as NameOf<P>]: OutputOf<P> };
/** Every stage (timing/progress key) of a list of phases. */
export type StageOf<Ps extends readonly AnyPhase[]> = Ps[number]['stages'][number];
export type OutputsOf<Ps extends readonly AnyPhase[]> = { [P in Ps[number] as NameOf<P>]: OutputOf<P> };

/**
 * Declares a phase. Without `stages` its stage is its name, timed by the runner; with `stages` it
 * times them itself.
 */
export function phase<const N extends string, const D extends readonly AnyPhase[], O, E, const S extends string = N>(p: {
  name: N; deps: D; stages?: readonly S[];
  run: (input: InputOf<D>, env: E, ctx: PhaseContext<S>) => O | Promise<O>;
}): Phase<N, D, O, E, S> {
  const timedByRunner = p.stages === undefined;
  const stages = (p.stages ?? [p.name]) as readonly S[]; // without stages, S defaults to N: the one stage is the name
  return { name: p.name, deps: p.deps, stages, timedByRunner, run: async (input, env, ctx) => p.run(input, env, ctx) };
}

export class PipelineError extends Error {}

/** A phase failed with an error that is not a SightlineError; `cause` is that error. */
export class PhaseFailedError extends Error {
  constructor(readonly phase: string, cause: unknown) {
    super(`indexing phase "${phase}" failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'PhaseFailedError';
  }
}

/** An error of the caller's own callback, carried through a phase unchanged (see CallerCallbacks). */
class CallerFailure { constructor(readonly error: unknown) {} }

/** Phases in an order where each comes after its dependencies; throws on unknown names and cycles. */
export function orderPhases<Ps extends readonly AnyPhase[]>(phases: Ps): Ps[number][] {
  const byName = new Map<string, AnyPhase>();
  for (const p of phases) {
    if (byName.has(p.name)) throw new PipelineError(`phase "${p.name}" is declared twice`);
    byName.set(p.name, p);
  }
  const out: AnyPhase[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (p: AnyPhase, path: string[]) => {
    const s = state.get(p.name);
    if (s === 'done') return;
    if (s === 'visiting') {
      const cycle = [...path.slice(path.indexOf(p.name)), p.name];
      throw new PipelineError(`phases form a cycle: ${cycle.join(' → ')}`);
    }
    state.set(p.name, 'visiting');
    for (const d of p.deps as readonly AnyPhase[]) {
      const dep = byName.get(d.name);
      if (!dep || dep !== d) throw new PipelineError(`phase "${p.name}" depends on "${d.name}", which is not in the pipeline`);
      visit(dep, [...path, p.name]);
    }
    state.set(p.name, 'done');
    out.push(p);
  };
  for (const p of phases) visit(p, []);
  return out;
}

export interface RunHooks<Stage extends string> {
  onProgress?: (p: { phase: Stage; repo_id: string; done: number; total: number }) => void;
}

/** Runs every phase once, in dependency order; returns each phase's output and each stage's time (ms). */
export async function runPipeline<const Ps extends readonly AnyPhase[], E>(phases: Ps, env: E, hooks: RunHooks<StageOf<Ps>> = {}):
  Promise<{ outputs: OutputsOf<Ps>; timings: Record<StageOf<Ps>, number> }> {
  const timings = {} as Record<StageOf<Ps>, number>;
  for (const p of phases) for (const s of p.stages as readonly StageOf<Ps>[]) timings[s] = 0;
  const outputs = new Map<string, unknown>();
  for (const p of orderPhases(phases)) {
    const input: Record<string, unknown> = {};
    for (const d of p.deps as readonly AnyPhase[]) input[d.name] = outputs.get(d.name);
    const ctx: PhaseContext<string> = {
      time: (stage, ms) => { timings[stage as StageOf<Ps>] += ms; },
      progress: (stage, repo_id, done, total) => {
        try { hooks.onProgress?.({ phase: stage as StageOf<Ps>, repo_id, done, total }); } catch (e) { throw new CallerFailure(e); }
      },
    };
    const t0 = performance.now();
    try { outputs.set(p.name, await p.run(input, env, ctx)); }
    catch (e) {
      if (e instanceof CallerFailure) throw e.error;
      if (e instanceof SightlineError) { e.phase ??= p.name; throw e; }
      if (e instanceof PhaseFailedError || e instanceof PipelineError) throw e;
      throw new PhaseFailedError(p.name, e);
    }
    if (p.timedByRunner) timings[p.stages[0] as StageOf<Ps>] += performance.now() - t0;
  }
  return { outputs: Object.fromEntries(outputs) as OutputsOf<Ps>, timings };
}
