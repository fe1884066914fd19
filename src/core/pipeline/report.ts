/** A repository's run report: the parts the phases that count something declare, joined. */
import type { ScanRepoReport } from './phases/scan';
import type { GraphRepoReport } from './phases/graph';
import type { HistoryRepoReport } from './phases/history';

export type RepoRunReport = ScanRepoReport & GraphRepoReport & Partial<HistoryRepoReport>;
