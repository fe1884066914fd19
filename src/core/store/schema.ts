/**
 * The index schema. Bump SCHEMA_VERSION on any change: an index with another version is rebuilt
 * from scratch (the source of truth is the workspace, so nothing is lost but time).
 */
export const SCHEMA_VERSION = 1;

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
  syntax_errors INTEGER NOT NULL DEFAULT 0, indexed_at INTEGER NOT NULL,
  UNIQUE (repo_id, path)
);
CREATE TABLE chunks (
  rowid INTEGER PRIMARY KEY, chunk_id TEXT NOT NULL UNIQUE, file_id INTEGER NOT NULL,
  symbol_path TEXT, kind TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
  est_tokens INTEGER NOT NULL, vec BLOB
);
CREATE INDEX chunks_file ON chunks (file_id);
CREATE VIRTUAL TABLE chunks_fts USING fts4 (name, path, body, tokenize=simple);
CREATE TABLE symbols (
  symbol_id TEXT PRIMARY KEY, file_id INTEGER NOT NULL, name TEXT NOT NULL, symbol_path TEXT NOT NULL,
  kind TEXT NOT NULL, start_line INTEGER NOT NULL, start_col INTEGER NOT NULL, end_line INTEGER NOT NULL,
  end_col INTEGER NOT NULL, parent_id TEXT, chunk_id TEXT
) WITHOUT ROWID;
CREATE INDEX symbols_file ON symbols (file_id);
CREATE INDEX symbols_name ON symbols (name);
CREATE TABLE occurrences (
  file_id INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL, line INTEGER NOT NULL, col INTEGER NOT NULL,
  scope TEXT, receiver TEXT, source TEXT, alias TEXT
);
CREATE INDEX occurrences_file ON occurrences (file_id);
CREATE INDEX occurrences_name ON occurrences (name, kind);
CREATE TABLE edges (
  from_id TEXT NOT NULL, to_id TEXT NOT NULL, kind TEXT NOT NULL, provider TEXT NOT NULL,
  confidence REAL NOT NULL, evidence TEXT NOT NULL, file_id INTEGER,
  PRIMARY KEY (from_id, to_id, kind, provider)
) WITHOUT ROWID;
CREATE INDEX edges_to ON edges (to_id, kind);
CREATE INDEX edges_file ON edges (file_id);
CREATE TABLE diagnostics (
  repo_id TEXT NOT NULL, path TEXT NOT NULL, code TEXT NOT NULL, message TEXT NOT NULL
);
`;
