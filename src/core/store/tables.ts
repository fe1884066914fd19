/**
 * The table registry: every table of the schema, the store module that owns it, and how its rows go
 * when a file or a repository goes. `Store.deleteRepo` (and so `force`) and `FileTables.deleteFile`
 * walk this list and nothing else, so a table added to the schema without a line here is caught by
 * test/architecture.test.ts (every table in `sqlite_master` must be registered) rather than left
 * behind by a rebuild.
 *
 * Order matters: a file's rows are deleted in list order (the full-text index first, while the chunk
 * rows and token text its delete reads are still there); the only repository's tables are emptied in
 * reverse order (the full-text index last, rebuilt from the emptied chunks at once).
 */
import type { Db } from './db';
import { META_TABLES, REPO_TABLES } from './meta';
import { FILE_TABLES } from './files';
import { GRAPH_TABLES } from './graph';
import { PROVIDER_TABLES } from './provider-edges';
import { HISTORY_TABLES } from './history';
import { LINK_TABLES } from './links';
import { SHAPE_TABLES } from './shapes';

export type StoreModule = 'meta' | 'files' | 'graph' | 'provider-edges' | 'history' | 'links' | 'shapes';

export interface TableSpec {
  name: string;
  owner: StoreModule;
  /** the rows of one file (`keepSymbols`: a rewrite whose definitions did not change keeps symbol rows) */
  deleteFile?: (db: Db, fileId: number, keepSymbols: boolean) => void;
  /** every row, at once: the repository being deleted is the only one */
  clear?: (db: Db) => void;
  /** the rows of one repository not reached through its files (run after its files are gone) */
  deleteRepo?: (db: Db, repoId: string, onlyRepo: boolean) => void;
  /** why a repository's rows are deliberately not deleted with it */
  kept?: string;
  /**
   * text columns that never name a repository or a root (relative paths, names, code): left as they are
   * when an index moves to another folder (`Store.relocate`); every other text column is rewritten
   */
  localText?: readonly string[];
  /** a rewrite of a file leaves these rows to their owner, which compares and replaces them (a file's delete still deletes them) */
  replacedByOwner?: string;
}

/** Every table, in deletion order. A new data source adds its module's tables here. */
export const TABLES: readonly TableSpec[] = [...FILE_TABLES, ...SHAPE_TABLES, ...GRAPH_TABLES, ...PROVIDER_TABLES, ...HISTORY_TABLES, ...LINK_TABLES, ...META_TABLES, ...REPO_TABLES];

/** Tables SQLite creates for the full-text index (`chunks_fts_segments`, …): owned with `chunks_fts`. */
export const isShadowTable = (name: string) => /^chunks_fts_/.test(name) || name.startsWith('sqlite_');
