/**
 * Phase "save": after the graph, the providers, the history and the links, the index file is written atomically (index file
 * lifecycle: indexfile.ts `save`), or, when the run asks for it (`deferSaveMs`), scheduled after the run
 * while the writer lock stays held. A run that changed nothing (a restart over an unchanged tree) writes
 * nothing: the file on disk is already this index.
 *
 * A run that wrote a large share of the chunks (a first index, a forced one, a large branch switch) first
 * files the full-text segments out of the edits' reach (`FileTables.compactFullText`): the segments its
 * batches left would otherwise be merged by the edits that follow, one of them paying seconds at millions
 * of lines. Such a run's save also starts with a full garbage collection (the cold index's peak memory);
 * a small run's does not (a pause of its own in a long-lived engine).
 */
import { phase } from '../runner';
import type { IndexEnv } from '../env';
import { graphPhase } from './graph';
import { scanPhase } from './scan';
import { providersPhase } from './providers';
import { historyPhase } from './history';
import { linksPhase } from './links';

/** Full-text segments are filed away after a run that wrote at least this many chunks and this share of all. */
const COMPACT_MIN_CHUNKS = 2000;
const COMPACT_SHARE = 0.25;

export const savePhase = phase({
  name: 'save', deps: [scanPhase, graphPhase, providersPhase, historyPhase, linksPhase],
  run({ scan }, env: IndexEnv, ctx): { saved: boolean; deferred: boolean } {
    if (!env.indexFile.unsaved) return { saved: false, deferred: false };
    const written = scan.repos.reduce((n, r) => n + r.report.chunks_written, 0);
    const large = written >= COMPACT_MIN_CHUNKS && written >= COMPACT_SHARE * env.indexFile.store.files.chunkCount();
    if (large) env.indexFile.store.files.compactFullText();
    // a long-lived engine applying a watcher's edits saves after the burst, off the answers' path
    if (env.deferSaveMs !== undefined) { env.indexFile.scheduleSave(env.deferSaveMs); return { saved: false, deferred: true }; }
    ctx.progress('save', env.roots[0]!.repo_id, 0, 1);
    env.indexFile.save({ collect: large });
    return { saved: true, deferred: false };
  },
});
