/**
 * Phase "save": after the graph, the providers, the history and the links, the index file is written atomically (index file
 * lifecycle: indexfile.ts `save`). A run that changed nothing (a restart over an unchanged tree) writes
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
  run(_input, env: IndexEnv, ctx): { saved: boolean } {
    if (!env.indexFile.unsaved) return { saved: false };
    ctx.progress('save', env.roots[0]!.repo_id, 0, 1);
    env.indexFile.save();
    return { saved: true };
  },
});
