/**
 * External reference providers: the wire protocol (version 1) and its validation.
 *
 * A provider is a command the caller names in `index_repo.reference_providers[]` (never something a
 * repository declares). It gets one JSON object on stdin (`ProviderInput`: the indexed symbols and
 * chunks of one repository) and writes one JSON object on stdout (`{ edges, diagnostics? }`).
 *
 * Validation never throws on provider output: `validateProviderOutput` rejects only a malformed
 * envelope (not an object, `edges` not an array); each bad edge becomes `{ index, reason }` so the
 * caller can skip it (strict: false) or fail the index (strict: true). Endpoint resolution against the
 * input symbols lives in `external.ts` (`resolveEndpoints`).
 */
import { z } from 'zod';
import { LANGUAGE_IDS } from '../languages/types';

export const PROVIDER_PROTOCOL_VERSION = 1 as const;

export const PROVIDER_EDGE_KINDS = [
  'defines', 'contains', 'references', 'calls', 'imports', 'implements', 'extends', 'contains_test_for',
] as const;
export type ProviderEdgeKind = (typeof PROVIDER_EDGE_KINDS)[number];

export const PROVIDER_TIMEOUT_DEFAULT_MS = 120_000;
export const PROVIDER_TIMEOUT_MIN_MS = 100;
export const PROVIDER_TIMEOUT_MAX_MS = 3_600_000;
/** Longer evidence strings are cut to this many characters (with a trailing ellipsis). */
export const EVIDENCE_MAX_CHARS = 500;
/** At most this many diagnostics are kept per provider run, each cut to DIAGNOSTIC_MAX_CHARS. */
export const DIAGNOSTICS_MAX = 200;
export const DIAGNOSTIC_MAX_CHARS = 1000;

const PROVIDER_NAME = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;

export const providerSpecSchema = z.object({
  name: z.string().min(1).max(64).regex(PROVIDER_NAME, 'lower-case snake_case or kebab-case, e.g. scip-rust')
    .describe('Unique name, recorded on its edges.'),
  command: z.string().min(1)
    .describe('Executable, run in the repository root.'),
  args: z.array(z.string()).default([])
    .describe('Arguments, passed literally.'),
  languages: z.array(z.enum(LANGUAGE_IDS)).default([])
    .describe('Only for these languages.'),
  compiler_grade: z.boolean().default(false)
    .describe('Its edges are compiler-grade (exact).'),
  strict: z.boolean().default(false)
    .describe('Fail on a bad edge instead of skipping it.'),
  timeout_ms: z.number().int().min(PROVIDER_TIMEOUT_MIN_MS).max(PROVIDER_TIMEOUT_MAX_MS).default(PROVIDER_TIMEOUT_DEFAULT_MS)
    .describe('Time limit (ms); then the process tree is killed.'),
}).describe('An external reference provider.');

/** A spec with every default applied (what the runner works with). */
export type ProviderSpec = z.output<typeof providerSpecSchema>;
/** A spec as a caller writes it (optional fields may be absent). */
export type ProviderSpecInput = z.input<typeof providerSpecSchema>;

/** `index_repo.reference_providers`: a list of specs whose names are unique. */
export const providerSpecsSchema = z.array(providerSpecSchema).superRefine((specs, ctx) => {
  const seen = new Set<string>();
  specs.forEach((s, i) => {
    if (seen.has(s.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `provider name "${s.name}" is used more than once` });
    seen.add(s.name);
  });
}).describe('External reference providers to run after parsing (each name unique).');

/** Whether a provider should run for a repository whose indexed chunks have these languages. */
export function providerApplies(spec: Pick<ProviderSpec, 'languages'>, chunkLanguages: Iterable<string>): boolean {
  if (!spec.languages?.length) return true;
  const want = new Set<string>(spec.languages);
  for (const l of chunkLanguages) if (want.has(l)) return true;
  return false;
}

// ---- stdin ------------------------------------------------------------------------------------

export interface ProviderSymbol {
  id: string;
  /** Repository-relative path with forward slashes. */
  path: string;
  name: string;
  symbol_path: string;
  kind: string;
  language: string;
  /** 1-based */
  start_line: number;
  /** 0-based */
  start_col: number;
  /** 1-based, inclusive */
  end_line: number;
  /** 0-based */
  end_col: number;
}

export interface ProviderChunk {
  id: string;
  path: string;
  language: string;
  start_line: number;
  end_line: number;
  symbol_path: string | null;
  kind: string;
}

export interface ProviderInput {
  protocol_version: typeof PROVIDER_PROTOCOL_VERSION;
  /** Absolute repository root (also the provider's working directory). */
  repo: string;
  repo_id: string;
  /** The provider's name from its spec. */
  provider: string;
  compiler_grade: boolean;
  symbols: ProviderSymbol[];
  chunks: ProviderChunk[];
  /**
   * Optional (an incremental run): ask only these symbols' references; the other symbols are there to
   * name the ends of edges. Absent: every symbol's.
   */
  query_ids?: string[];
}

// ---- stdout -----------------------------------------------------------------------------------

/** An edge as a provider writes it (before validation). */
export interface RawEdge {
  from_id?: string;
  from_symbol?: string;
  from_path?: string;
  to_id?: string;
  to_symbol?: string;
  to_path?: string;
  kind: ProviderEdgeKind;
  confidence: number;
  evidence: string;
}

export interface ProviderOutput {
  edges: RawEdge[];
  diagnostics?: (string | { message: string })[];
}

/** One endpoint of a validated edge: an exact id, or a symbol_path/name optionally narrowed by path. */
export type Endpoint = { id: string; path?: string } | { symbol: string; path?: string };

export interface ValidEdge {
  /** Position of the edge in the provider's `edges` array. */
  index: number;
  from: Endpoint;
  to: Endpoint;
  kind: ProviderEdgeKind;
  confidence: number;
  /** Non-empty, at most EVIDENCE_MAX_CHARS characters. */
  evidence: string;
}

export interface EdgeError { index: number; reason: string }

export interface ValidatedOutput {
  edges: ValidEdge[];
  /** Edges that were rejected, with why; strict providers fail on any. */
  invalid_edges: EdgeError[];
  /** Provider diagnostics as plain strings (capped, see DIAGNOSTICS_MAX). */
  diagnostics: string[];
}

export type OutputValidation = { ok: true; output: ValidatedOutput } | { ok: false; message: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const describeValue = (v: unknown): string => {
  if (typeof v === 'number') return String(v);
  if (v === undefined) return 'nothing';
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
};
const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

function endpoint(e: Record<string, unknown>, side: 'from' | 'to'): Endpoint | string {
  const id = e[`${side}_id`], symbol = e[`${side}_symbol`], path = e[`${side}_path`];
  if (path !== undefined && path !== null && (typeof path !== 'string' || !path.trim())) return `${side}_path must be a non-empty string, got ${describeValue(path)}`;
  const p = typeof path === 'string' ? { path } : {};
  if (id !== undefined && id !== null) {
    if (typeof id !== 'string' || !id.trim()) return `${side}_id must be a non-empty string, got ${describeValue(id)}`;
    return { id, ...p }; // an exact id wins over a symbol name given alongside it
  }
  if (symbol !== undefined && symbol !== null) {
    if (typeof symbol !== 'string' || !symbol.trim()) return `${side}_symbol must be a non-empty string, got ${describeValue(symbol)}`;
    return { symbol, ...p };
  }
  return `missing ${side}_id or ${side}_symbol`;
}

/** Validates one raw edge; returns the edge or the reason it was rejected. */
export function validateEdge(raw: unknown, index: number): ValidEdge | EdgeError {
  if (!isObject(raw)) return { index, reason: `edge must be an object, got ${describeValue(raw)}` };
  const reasons: string[] = [];
  const from = endpoint(raw, 'from'), to = endpoint(raw, 'to');
  if (typeof from === 'string') reasons.push(from);
  if (typeof to === 'string') reasons.push(to);
  const kind = raw.kind;
  if (typeof kind !== 'string' || !(PROVIDER_EDGE_KINDS as readonly string[]).includes(kind)) {
    reasons.push(`kind must be one of ${PROVIDER_EDGE_KINDS.join(', ')}, got ${describeValue(kind)}`);
  }
  const confidence = raw.confidence;
  if (typeof confidence !== 'number' || !Number.isFinite(confidence) || confidence < 0 || confidence > 1) {
    reasons.push(`confidence must be a finite number within 0..1, got ${describeValue(confidence)}`);
  }
  const evidence = raw.evidence;
  if (typeof evidence !== 'string' || !evidence.trim()) reasons.push(`evidence must be a non-empty string, got ${describeValue(evidence)}`);
  if (reasons.length) return { index, reason: reasons.join('; ') };
  return {
    index, from: from as Endpoint, to: to as Endpoint, kind: kind as ProviderEdgeKind, confidence: confidence as number,
    evidence: cut((evidence as string).trim(), EVIDENCE_MAX_CHARS),
  };
}

/** Validates a parsed stdout object. Only a malformed envelope fails; bad edges are listed, not fatal. */
export function validateProviderOutput(raw: unknown): OutputValidation {
  if (!isObject(raw)) return { ok: false, message: `stdout must be one JSON object with an "edges" array, got ${Array.isArray(raw) ? 'an array' : describeValue(raw)}` };
  if (!Array.isArray(raw.edges)) return { ok: false, message: `"edges" must be an array, got ${describeValue(raw.edges)}` };
  if (raw.diagnostics !== undefined && raw.diagnostics !== null && !Array.isArray(raw.diagnostics)) {
    return { ok: false, message: `"diagnostics" must be an array of strings or {message} objects, got ${describeValue(raw.diagnostics)}` };
  }
  const edges: ValidEdge[] = [], invalid_edges: EdgeError[] = [];
  raw.edges.forEach((e, i) => {
    const v = validateEdge(e, i);
    if ('reason' in v) invalid_edges.push(v); else edges.push(v);
  });
  const diagnostics: string[] = [];
  const rawDiags = (raw.diagnostics as unknown[] | undefined | null) ?? [];
  for (const d of rawDiags.slice(0, DIAGNOSTICS_MAX)) {
    const text = typeof d === 'string' ? d
      : isObject(d) && typeof d.message === 'string' ? d.message
        : `(diagnostic that is neither a string nor {message}: ${describeValue(d)})`;
    if (text.trim()) diagnostics.push(cut(text, DIAGNOSTIC_MAX_CHARS));
  }
  if (rawDiags.length > DIAGNOSTICS_MAX) diagnostics.push(`(${rawDiags.length - DIAGNOSTICS_MAX} more diagnostics not shown)`);
  return { ok: true, output: { edges, invalid_edges, diagnostics } };
}
