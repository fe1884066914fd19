/**
 * The output schema a tool publishes: what a client needs to validate an answer, and little more.
 * MCP clients compile every tool's output schema when they list the tools, so its size is start-up
 * time. The zod schema stays the full, described source (docs, types, contract tests); the wire form
 *   - keeps every top-level field with its type, its enumeration and `required`;
 *   - gives list items and nested objects their field names and types (not required, not closed,
 *     not enumerated), and values one level deeper only as `object` / `array`;
 *   - drops descriptions (field meanings are documented once, in the docs) and the safe-integer bounds;
 *   - defines a shape used more than once under `$defs`, referenced by `$ref`.
 */
import type { z } from 'zod';
import { jsonSchema } from './contract';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
const SAFE_INTEGER_BOUND = Number.MAX_SAFE_INTEGER;
/** A value deeper than this (top-level field 1, its item or field 2) is described as its type alone. */
const SHAPE_DEPTH = 2;

/** One schema node, compacted at its depth (0: the root object, 1: a top-level field). */
function compactNode(node: unknown, depth: number): unknown {
  if (Array.isArray(node)) return node.map(n => compactNode(n, depth));
  if (!isObject(node)) return node;
  if (depth > SHAPE_DEPTH && (node.type === 'object' || node.type === 'array')) return { type: node.type };
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (value === undefined || dropped(key, value, depth)) continue;
    if (key === 'properties' && isObject(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, p]) => [name, compactNode(p, depth + 1)]));
    } else {
      out[key] = compactNode(value, key === 'items' || key === 'additionalProperties' ? depth + 1 : depth);
    }
  }
  const nullable = simpleNullable(out);
  if (!nullable) return out;
  const { anyOf: _anyOf, ...rest } = out;
  return { ...rest, type: nullable };
}

function dropped(key: string, value: unknown, depth: number): boolean {
  if (key === 'description' || key === '$schema') return true;
  if ((key === 'minimum' || key === 'maximum') && Math.abs(value as number) === SAFE_INTEGER_BOUND) return true;
  if (key === 'propertyNames') return true; // JSON keys are strings
  const nested = depth > 0;
  if (nested && (key === 'required' || key === 'enum')) return true;
  return nested && key === 'additionalProperties' && value === false;
}

/** `anyOf: [{type: T}, {type: 'null'}]` as `type: [T, 'null']` when T is a plain scalar type. */
function simpleNullable(node: Json): string[] | undefined {
  const any = node.anyOf;
  if (!Array.isArray(any) || any.length !== 2) return undefined;
  const [a, b] = any as Json[];
  const scalar = (s: Json | undefined) => !!s && typeof s.type === 'string' && Object.keys(s).length === 1;
  if (scalar(a) && b?.type === 'null' && Object.keys(b).length === 1) return [a!.type as string, 'null'];
  return undefined;
}

/** Moves object shapes that occur more than once into `$defs`, named after the field that first holds one. */
function shareRepeatedShapes(root: Json): Json {
  const seen = new Map<string, { count: number; field: string }>();
  const count = (node: unknown, field: string) => {
    if (Array.isArray(node)) return node.forEach(n => count(n, field));
    if (!isObject(node)) return;
    if (node.type === 'object' && isObject(node.properties)) {
      const key = JSON.stringify(node);
      const entry = seen.get(key) ?? { count: 0, field };
      entry.count++;
      seen.set(key, entry);
    }
    for (const [k, v] of Object.entries(node)) {
      if (k === 'properties' && isObject(v)) for (const [name, p] of Object.entries(v)) count(p, name);
      else count(v, field);
    }
  };
  count(root, 'value');
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const [key, { count: n, field }] of seen) {
    if (n < 2) continue;
    let name = field;
    for (let i = 2; taken.has(name); i++) name = `${field}_${i}`;
    taken.add(name);
    names.set(key, name);
  }
  if (!names.size) return root;
  const defs: Json = {};
  const rewrite = (node: unknown, isDef: boolean): unknown => {
    if (Array.isArray(node)) return node.map(n => rewrite(n, false));
    if (!isObject(node)) return node;
    const name = isDef ? undefined : names.get(JSON.stringify(node));
    if (name) {
      if (!(name in defs)) defs[name] = rewrite(node, true);
      return { $ref: `#/$defs/${name}` };
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, rewrite(v, false)]));
  };
  const out = rewrite(root, true) as Json;
  return { ...out, $defs: defs };
}

/** The published (wire) form of a JSON schema made from a tool's zod output. */
export function compactOutputSchema(full: Json): Json {
  return shareRepeatedShapes(compactNode(full, 0) as Json);
}

/** The output schema every surface publishes for a tool. */
export function publishedOutputSchema(output: z.ZodObject): Json {
  return compactOutputSchema(jsonSchema(output, 'output'));
}
