/**
 * local_hash_vector: a deterministic feature-hashing vector over a chunk's metadata and source tokens.
 * No model, no download, not semantic: it measures shared vocabulary (identifier sub-words included),
 * which is useful to break ties between equally good lexical hits and to backfill when they run out.
 */
import { fnv1a } from '../util/hash';
import { tokenize } from '../util/tokens';

export const HASH_VECTOR_DIMS = 256;

export interface VectorFields { name: string; path: string; body: string }

const FIELD_WEIGHT = { name: 3, path: 1.5, body: 1 } as const;

export function hashVector(fields: VectorFields): Int8Array {
  return hashVectorFromTokens(tokenize(fields.name), tokenize(fields.path), tokenize(fields.body));
}

export function hashVectorFromTokens(name: readonly string[], path: readonly string[], body: readonly string[]): Int8Array {
  const acc = new Float32Array(HASH_VECTOR_DIMS);
  const add = (tokens: readonly string[], w: number) => {
    for (const t of tokens) {
      const h = fnv1a(t);
      acc[h % HASH_VECTOR_DIMS]! += (h >>> 24) & 1 ? w : -w;
    }
  };
  add(name, FIELD_WEIGHT.name); add(path, FIELD_WEIGHT.path); add(body, FIELD_WEIGHT.body);
  // Damp repeated tokens (sub-linear term frequency), keeping each bucket's sign.
  for (let i = 0; i < acc.length; i++) { const v = acc[i]!; acc[i] = v < 0 ? -Math.sqrt(-v) : Math.sqrt(v); }
  return quantize(acc);
}

function quantize(acc: Float32Array): Int8Array {
  let norm = 0;
  for (let i = 0; i < acc.length; i++) norm += acc[i]! * acc[i]!;
  norm = Math.sqrt(norm);
  const out = new Int8Array(acc.length);
  if (norm === 0) return out;
  for (let i = 0; i < acc.length; i++) out[i] = Math.max(-127, Math.min(127, Math.round((acc[i]! / norm) * 127)));
  return out;
}

export function queryVector(query: string): Int8Array {
  return hashVector({ name: query, path: '', body: query });
}

/** Cosine similarity of two quantised unit vectors, in [-1, 1]. */
export function similarity(a: Int8Array, b: Int8Array, bOffset = 0): number {
  let dot = 0;
  for (let i = 0; i < HASH_VECTOR_DIMS; i++) dot += a[i]! * b[bOffset + i]!;
  return dot / (127 * 127);
}
