/** The thread's scheduler account that slow live runs log (util/sched.ts). */
import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import { cpuSample, cpuSince, threadSample } from '../src/core/util/sched';

describe('scheduler account of the engine thread', () => {
  it('counts time on a core while working and none while asleep (Linux); null elsewhere', async () => {
    const start = cpuSample();
    const a = threadSample();
    if (!existsSync('/proc/thread-self/schedstat')) { assert.equal(a, null); assert.match(cpuSince(start), /^CPU \d+ ms$/); return; }
    assert.ok(a && a.on_cpu_ms > 0, JSON.stringify(a));
    const busyUntil = performance.now() + 80;
    let x = 0; while (performance.now() < busyUntil) x++;
    const b = threadSample()!;
    assert.ok(x > 0);
    // 80 ms of wall time spent working is on a core or waiting for one; the kernel's account of the
    // waiting lags behind on a loaded machine (seen: 63 ms of 80), so half of it is the bar
    assert.ok((b.on_cpu_ms - a.on_cpu_ms) + (b.waiting_ms - a.waiting_ms) >= 40, JSON.stringify({ a, b }));
    await new Promise(r => setTimeout(r, 80));
    const c = threadSample()!;
    assert.ok(c.on_cpu_ms - b.on_cpu_ms < 40, `asleep, yet ${c.on_cpu_ms - b.on_cpu_ms} ms on a core`);
    const said = /^CPU (\d+) ms; on a core (\d+) ms, waiting for one \d+ ms$/.exec(cpuSince(start));
    assert.ok(said && Number(said[1]) > 0 && Number(said[2]) > 0, cpuSince(start)); // the busy loop above counts in both
  });
});
