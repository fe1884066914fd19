/**
 * Test edges (`contains_test_for`): what a test file's code calls is what it tests (each call edge of
 * the file to a node outside test files, with the call's tier and confidence), and a test file named
 * after a source file (the language table's test naming) tests that file.
 */
import { posix } from 'node:path';
import { testedBaseNames } from '../languages';
import { parseEvidence } from './tiers';
import type { EdgeBuffer } from './edges';
import { fileNode } from './scope';
import type { GFile, RepoTables } from './tables';

/** The calls of a test file as tests of their targets (call after the file's own edges are buffered). */
export function testsFromCalls(t: RepoTables, file: GFile, out: EdgeBuffer): void {
  if (!t.testFileIds.has(file.id)) return;
  for (const e of out.current()) {
    if (e.kind !== 'calls' || t.isTestNode(e.to)) continue;
    const { tier, detail } = parseEvidence(e.evidence);
    out.emit(e.from, e.to, 'contains_test_for', tier!, detail, e.fileId, e.line, e.confidence);
  }
}

/** Test files named after a source file test it (the one in the same folder, else the only one). */
export function testsByNaming(t: RepoTables, only: ReadonlySet<number> | undefined, out: EdgeBuffer): void {
  const tests = only ? [...only].map(id => t.filesById.get(id)).filter((f): f is GFile => !!f && t.testFileIds.has(f.id)) : t.input.files.filter(f => t.testFileIds.has(f.id));
  if (!tests.length) return;
  if (only) tests.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)); // the files' order, as a full build emits them
  const byBase = t.filesByBase();
  for (const test of tests) {
    for (const b of testedBaseNames(test.path)) {
      const cands = (byBase.get(b) ?? []).filter(f => !t.testFileIds.has(f.id));
      const near = cands.filter(f => posix.dirname(f.path) === posix.dirname(test.path));
      const pick = near.length === 1 ? near : cands.length === 1 ? cands : [];
      for (const f of pick) out.emit(fileNode(test.id), fileNode(f.id), 'contains_test_for', 'naming', b, test.id, 1);
    }
  }
}
