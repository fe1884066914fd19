/** The phase runner (src/core/pipeline/runner.ts): order, refusals, progress, timings, failures. */
import { strict as assert } from 'node:assert';
import { phase, runPipeline, orderPhases, PipelineError, PhaseFailedError, type AnyPhase } from '../src/core/pipeline/runner';
import { SightlineError } from '../src/core/errors';
import { PIPELINE } from '../src/core/pipeline';

describe('indexing pipeline runner', () => {
  const a = phase({ name: 'a', deps: [], run: () => 2 });
  const b = phase({ name: 'b', deps: [a], run: ({ a: x }) => x * 10 }); // typed: x is a number
  const c = phase({ name: 'c', deps: [a, b], stages: ['c1', 'c2'], run: ({ a: x, b: y }, _env: unknown, ctx) => { ctx.time('c1', 5); ctx.progress('c2', 'r', 1, 2); return `${x}/${y}`; } });

  it('runs phases after their dependencies, each with its dependencies\' outputs only', async () => {
    const seen: unknown[] = [];
    const spy = phase({ name: 'spy', deps: [b], run: input => { seen.push(input); return null; } });
    const { outputs } = await runPipeline([spy, c, b, a], {});
    assert.deepEqual(outputs, { a: 2, b: 20, c: '2/20', spy: null });
    assert.deepEqual(seen, [{ b: 20 }]);
    assert.deepEqual(orderPhases([spy, c, b, a]).map(p => p.name), ['a', 'b', 'spy', 'c']);
  });

  it('times phases generically: by the runner under their name, or by their own stages', async () => {
    const progress: unknown[] = [];
    const { timings } = await runPipeline([a, b, c], {}, { onProgress: p => progress.push(p) });
    assert.deepEqual(Object.keys(timings), ['a', 'b', 'c1', 'c2']);
    assert.equal(timings.c1, 5);
    assert.deepEqual(progress, [{ phase: 'c2', repo_id: 'r', done: 1, total: 2 }]);
  });

  it('refuses a cycle, naming its path, and a dependency missing from the pipeline', () => {
    const x = phase({ name: 'x', deps: [] as AnyPhase[], run: () => 1 });
    const y = phase({ name: 'y', deps: [x], run: () => 1 });
    const z = phase({ name: 'z', deps: [y], run: () => 1 });
    (x.deps as AnyPhase[]).push(z);
    assert.throws(() => orderPhases([x, y, z]), (e: Error) => e instanceof PipelineError && /cycle: x → z → y → x/.test(e.message));
    assert.throws(() => orderPhases([b]), (e: Error) => e instanceof PipelineError && /"b" depends on "a", which is not in the pipeline/.test(e.message));
    assert.throws(() => orderPhases([a, a]), /declared twice/);
  });

  it('names the phase a failure came from; coded errors and the caller\'s own errors pass unchanged', async () => {
    const boom = phase({ name: 'boom', deps: [a], run: () => { throw new Error('disk full'); } });
    await assert.rejects(runPipeline([a, boom], {}), (e: Error) => e instanceof PhaseFailedError && e.phase === 'boom' && /phase "boom" failed: disk full/.test(e.message));
    const coded = new SightlineError('cancelled', 'stop');
    const cancel = phase({ name: 'cancel', deps: [], run: () => { throw coded; } });
    await assert.rejects(runPipeline([cancel], {}), (e: SightlineError) => e === coded && e.phase === 'cancel');
    const mine = new Error('mine');
    const reporter = phase({ name: 'r', deps: [], stages: ['s'], run: (_i, _e: unknown, ctx) => { ctx.progress('s', 'x', 0, 0); } });
    await assert.rejects(runPipeline([reporter], {}, { onProgress: () => { throw mine; } }), (e: Error) => e === mine);
  });

  it('the indexing pipeline reports the stages its timings and progress are named after', () => {
    assert.deepEqual(orderPhases(PIPELINE).map(p => p.name), ['scan', 'graph', 'providers', 'history', 'memories', 'links', 'save']);
    assert.deepEqual(PIPELINE.flatMap(p => [...p.stages]), ['walk', 'parse', 'write', 'graph', 'history', 'memories', 'links', 'save']);
  });
});
