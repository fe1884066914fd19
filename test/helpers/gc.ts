/** Counts the full garbage collections a piece of work forced (V8 reports them with the "forced" flag). */
import { constants, PerformanceObserver } from 'node:perf_hooks';

export async function forcedCollections(work: () => Promise<unknown>): Promise<number> {
  let n = 0;
  const o = new PerformanceObserver(list => {
    for (const e of list.getEntries()) if (((e as unknown as { detail?: { flags?: number } }).detail?.flags ?? 0) & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) n++;
  });
  o.observe({ entryTypes: ['gc'] });
  try {
    await work();
    await new Promise(r => setTimeout(r, 50)); // entries are delivered after the collection
    return n;
  } finally { o.disconnect(); }
}
