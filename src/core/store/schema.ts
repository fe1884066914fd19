/**
 * The index schema. Bump SCHEMA_VERSION on any change: an index with another version is rebuilt
 * from scratch (the source of truth is the workspace, so nothing is lost but time).
 */
export const SCHEMA_VERSION = 54;

/** Methods by owner path (what a partial graph update's lookup of a class's methods in other files reads). */
export const OWNER_INDEX = "symbols_method_owner ON symbols (parent_path) WHERE kind = 'method'";

export const SCHEMA_SQL = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE repos (
  repo_id TEXT PRIMARY KEY, root TEXT NOT NULL, name TEXT NOT NULL,
  indexed_at INTEGER, indexed_commit TEXT, branch TEXT, dirty INTEGER,
  nested_repos TEXT, last_run TEXT
);
CREATE TABLE files (
  file_id INTEGER PRIMARY KEY, repo_id TEXT NOT NULL, path TEXT NOT NULL, language TEXT NOT NULL,
  hash TEXT NOT NULL, size INTEGER NOT NULL, mtime_ms REAL NOT NULL, line_count INTEGER NOT NULL,
  syntax_errors INTEGER NOT NULL DEFAULT 0, occurrence_count INTEGER NOT NULL DEFAULT 0, indexed_at INTEGER NOT NULL,
  -- hash of what other files' graph resolution sees of this file (definitions, imports, base classes)
  shape_hash TEXT NOT NULL DEFAULT '',
  UNIQUE (repo_id, path)
);
-- Public ids are derived, never stored: chunk:<repo_id>:<path>:<key>, symbol:<repo_id>:<path>:<symbol_path>
-- (see util/ids.ts). Storing them would add two large text indexes to every write.
CREATE TABLE chunks (
  rowid INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, key TEXT NOT NULL,
  symbol_path TEXT, kind TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
  est_tokens INTEGER NOT NULL, head TEXT, vec BLOB, ord INTEGER NOT NULL
);
CREATE INDEX chunks_file ON chunks (file_id);
-- Full text: FTS4 keeps only its index. The token text it was fed lives here, deflated, one row per
-- file (path, then name and body of each chunk in ord order, NUL-separated): FTS4 reads it back through
-- the view below only to delete a chunk's terms. Storing the text inside FTS4 would cost a third of
-- the index file and of the time spent writing it.
CREATE TABLE file_text (file_id INTEGER PRIMARY KEY, data BLOB NOT NULL);
CREATE VIEW chunks_fts_src AS SELECT rowid AS rowid, fts_text(file_id, 1 + 2 * ord) AS name,
  fts_text(file_id, 0) AS path, fts_text(file_id, 2 + 2 * ord) AS body FROM chunks;
CREATE VIRTUAL TABLE chunks_fts USING fts4 (name, path, body, tokenize=simple, content="chunks_fts_src");
CREATE TABLE symbols (
  rowid INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, name TEXT NOT NULL, symbol_path TEXT NOT NULL,
  kind TEXT NOT NULL, start_line INTEGER NOT NULL, start_col INTEGER NOT NULL, end_line INTEGER NOT NULL,
  end_col INTEGER NOT NULL, parent_path TEXT, chunk_key TEXT
);
CREATE INDEX symbols_file ON symbols (file_id);
CREATE INDEX symbols_name ON symbols (name);
CREATE INDEX ${OWNER_INDEX};
-- Edges from parsing (defines/contains) are implicit in symbols.parent_path and are not stored here;
-- this table holds resolved graph edges, one row per (from, to, kind, provider).
-- Raw occurrences (calls, imports, identifiers, extends/implements), packed per file: graph resolution
-- reads them a file at a time, and one row per file keeps the index small and the writes cheap.
-- cross_data: the imports and base classes alone (what building the resolver's tables reads of every file)
CREATE TABLE file_occurrences (file_id INTEGER PRIMARY KEY, data BLOB NOT NULL, cross_data BLOB);
CREATE TABLE edges (
  from_id TEXT NOT NULL, to_id TEXT NOT NULL, kind TEXT NOT NULL, provider TEXT NOT NULL,
  confidence REAL NOT NULL, evidence TEXT NOT NULL, file_id INTEGER,
  PRIMARY KEY (from_id, to_id, kind, provider)
) WITHOUT ROWID;
CREATE INDEX edges_to ON edges (to_id, kind);
CREATE INDEX edges_file ON edges (file_id);
-- Heuristic graph edges of a repository: rebuilt after a run that added, deleted or reshaped files; when
-- only bodies changed (same definitions, imports and base classes), only the edited files' own edges.
-- Nodes are integers: a symbol's rowid, or -file_id for a file. evidence is a short code (tier:detail).
-- An edge's file_id is the file its from_node belongs to (a partial update deletes a file's edges by node).
CREATE TABLE graph_edges (
  repo_id TEXT NOT NULL, from_node INTEGER NOT NULL, to_node INTEGER NOT NULL, kind TEXT NOT NULL,
  confidence REAL NOT NULL, evidence TEXT NOT NULL, file_id INTEGER NOT NULL, line INTEGER NOT NULL
);
CREATE INDEX graph_edges_to ON graph_edges (to_node, kind);
CREATE INDEX graph_edges_from ON graph_edges (from_node, kind);
-- Call sites the heuristic could not bind (a name shared by too many definitions): impact is a lower bound.
-- Counted per calling file, so that re-resolving one file replaces only its own count.
CREATE TABLE unbound_calls (repo_id TEXT NOT NULL, name TEXT NOT NULL, file_id INTEGER NOT NULL, sites INTEGER NOT NULL, PRIMARY KEY (repo_id, name, file_id)) WITHOUT ROWID;
-- an edited file's unbound calls are replaced by file (a partial graph update)
CREATE INDEX unbound_calls_file ON unbound_calls (file_id);
-- Which symbols a compiler-grade provider (a language server, an external provider) has checked, and
-- against which content of their file: a check with zero results is an answer, not an absence.
CREATE TABLE provider_checks (
  symbol_id TEXT NOT NULL, provider TEXT NOT NULL, file_hash TEXT NOT NULL, checked_at INTEGER NOT NULL,
  results INTEGER NOT NULL, complete INTEGER NOT NULL, PRIMARY KEY (symbol_id, provider)
) WITHOUT ROWID;
CREATE TABLE diagnostics (
  repo_id TEXT NOT NULL, path TEXT NOT NULL, code TEXT NOT NULL, message TEXT NOT NULL
);
-- Git history (store/history.ts): per git repository of a root its last mine; per root the counted
-- commits, per-file churn and commits (shas, newest first), co-change pairs (a < b) and symbol commits.
-- find_similar (store/shapes.ts): per file, its chunks' MinHash signatures (chunk ord, shingle count, 64 × u16).
CREATE TABLE chunk_shapes (file_id INTEGER PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE history_repos (
  repo_id TEXT NOT NULL, git_path TEXT NOT NULL, top TEXT, status TEXT NOT NULL, message TEXT, head TEXT, branch TEXT,
  shallow INTEGER NOT NULL, commits_mined INTEGER NOT NULL, commits_counted INTEGER NOT NULL, files INTEGER NOT NULL,
  pairs INTEGER NOT NULL, truncated INTEGER NOT NULL, mined_at INTEGER, mined BLOB,
  -- the kept commits' shas in mined order, newest first (search reads their positions without inflating \`mined\`)
  order_shas TEXT NOT NULL DEFAULT '', PRIMARY KEY (repo_id, git_path)
) WITHOUT ROWID;
CREATE TABLE history_commits (repo_id TEXT NOT NULL, sha TEXT NOT NULL, time INTEGER NOT NULL, author TEXT NOT NULL, subject TEXT NOT NULL, PRIMARY KEY (repo_id, sha)) WITHOUT ROWID;
CREATE TABLE history_files (repo_id TEXT NOT NULL, path TEXT NOT NULL, churn INTEGER NOT NULL, commits TEXT NOT NULL, former_paths TEXT NOT NULL, PRIMARY KEY (repo_id, path)) WITHOUT ROWID;
CREATE TABLE history_pairs (repo_id TEXT NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL, together_count INTEGER NOT NULL, coupling REAL NOT NULL, PRIMARY KEY (repo_id, a, b)) WITHOUT ROWID;
CREATE INDEX history_pairs_b ON history_pairs (repo_id, b);
-- Cross-boundary links (store/links.ts): per code file its link sites (JSON, from the parser worker), per
-- repository the config files the links phase read (size, mtime, their sites), and the workspace's links:
-- consumer site → provider site or key node (route:GET /x, env:X, table:t, …), rebuilt when a site changes.
CREATE TABLE link_sites (file_id INTEGER PRIMARY KEY, repo_id TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE link_config_files (repo_id TEXT NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL, mtime_ms REAL NOT NULL, data TEXT NOT NULL, PRIMARY KEY (repo_id, path)) WITHOUT ROWID;
-- Each site's match groups (links/match.ts siteGroups) per source (f:<file_id> a code file, c:<json [repo, path]> a
-- config file), and the groups whose sites changed since the last match (written with the sites, emptied by the phase).
CREATE TABLE link_groups (src TEXT NOT NULL, grp TEXT NOT NULL, PRIMARY KEY (src, grp)) WITHOUT ROWID;
CREATE INDEX link_groups_grp ON link_groups (grp);
CREATE TABLE link_dirty (grp TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE links (
  grp TEXT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL, from_id TEXT NOT NULL, to_id TEXT NOT NULL, matched INTEGER NOT NULL, confidence REAL NOT NULL, evidence TEXT NOT NULL,
  repo_id TEXT NOT NULL, path TEXT NOT NULL, line INTEGER NOT NULL, col INTEGER NOT NULL, end_line INTEGER NOT NULL, end_col INTEGER NOT NULL,
  to_repo_id TEXT, to_path TEXT, to_line INTEGER, to_col INTEGER, to_end_line INTEGER, to_end_col INTEGER
);
CREATE INDEX links_from ON links (from_id);
CREATE INDEX links_to ON links (to_id);
CREATE INDEX links_path ON links (repo_id, path, line);
CREATE INDEX links_to_path ON links (to_repo_id, to_path, to_line);
CREATE INDEX links_grp ON links (grp);
CREATE TABLE history_symbols (repo_id TEXT NOT NULL, symbol_id TEXT NOT NULL, commits TEXT NOT NULL, PRIMARY KEY (symbol_id)) WITHOUT ROWID;
`;
