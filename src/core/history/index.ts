/**
 * The history module (the self-contained core of the history phase and the change-loop tools): git by argv, the log miner, churn and
 * co-change, symbol ↔ commit mapping and the diff input parser. No store, no engine, no tools: a
 * history phase and a store port plug these in. The contract is in `README.md` beside this file.
 */
export { runGit, streamGit, probeRepository, headCommit, isAncestor, readHeadNoSpawn, diffAgainst, gitEnv, GIT_BASE_ARGS } from './git';
export type { GitErrorCode, GitFailure, GitResult, GitOptions, RepoProbe } from './git';
export { mineRepository, mergeMined, finishCommits, LogParser, logArgs, DEFAULT_LIMIT, DEFAULT_SWEEP_LIMIT } from './mine';
export type { Hunk, ChangeStatus, FileChange, MinedCommit, MineOptions, MineResult } from './mine';
export { buildCoChange, coupling } from './cochange';
export type { CoChange, CoChangeOptions, CommitRef, FileHistory, Partner } from './cochange';
export { carryBack, symbolCommits } from './lines';
export type { LineSpan, SymbolSpan } from './lines';
export { parseDiff } from './diff';
export type { DiffDiagnostic, DiffFile, DiffRange, DiffStatus, ParsedDiff } from './diff';
