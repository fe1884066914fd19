/** Project memories as tools read and write them (the module: src/core/memories/). */
export { MemoryService } from '../memories/service';
export type { MemoryAddRequest, MemoryFilter, ReconcileSummary } from '../memories/service';
export type { MemoryRecord, MemoryStatus, AnchorKind, MemoryScope } from '../memories/model';
