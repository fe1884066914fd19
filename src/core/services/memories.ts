/** Project memories as tools read and write them (the module: src/core/memories/). */
export { MemoryService } from '../memories/service';
export type { MemoryAddRequest, MemoryUpdateRequest, MemoryFilter, ReconcileSummary } from '../memories/service';
export type { MemoryRecord, MemoryStatus, AnchorKind, MemoryScope } from '../memories/model';
export { MEMORY_EXPORT_TARGETS, parseExportTargets, type MemoryExportTarget } from '../memories/export';
