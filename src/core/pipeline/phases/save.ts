/**
 * Phase "save": after the graph, the providers, the history and the links, the index file is written atomically (index file
 * lifecycle: indexfile.ts `save`), or, when the run asks for it (`deferSaveMs`), scheduled after the run
 * while the writer lock stays held. A run that changed nothing (a restart over an unchanged tree) writes
 * nothing: the file on disk is already this index.
 */
import { phase } from '../runner';
import type { IndexEnv } from '../env';
import { graphPhase } from './graph';
import { providersPhase } from './providers';
import { historyPhase } from './history';
import { linksPhase } from './links';

export const savePhase = phase({
  name: 'save', deps: [graphPhase, providersPhase, historyPhase, linksPhase],
  run(_input, env: IndexEnv, ctx): { saved: boolean; deferred: boolean } {
    if (!env.indexFile.unsaved) return { saved: false, deferred: false };
    // a long-lived engine applying a watcher's edits saves after the burst, off the answers' path
    if (env.deferSaveMs !== undefined) { env.indexFile.scheduleSave(env.deferSaveMs); return { saved: false, deferred: true }; }
    ctx.progress('save', env.roots[0]!.repo_id, 0, 1);
    env.indexFile.save();
    return { saved: true, deferred: false };
  },
});
