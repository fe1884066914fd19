/**
 * Link sites of config files, read by the links phase (code files get theirs in the parser worker,
 * extract.ts): `.env` lines (environment variables), the key paths of YAML, JSON, TOML and .properties
 * files, flags under flags/features keys, and environment variables a YAML file sets (a Compose
 * service's `environment`, a Kubernetes container's or a CI job's `env`).
 *
 * A file named like configuration (rules.ts `CONFIG_FILE`) defines its keys at 0.9; any other YAML, JSON
 * or TOML file at 0.7, and a reader is matched to those only when no file named like configuration has
 * the key (match.ts). Only keys something reads become links.
 */
import { parseDocument, isMap, isScalar, isSeq, type Node as YamlNode } from 'yaml';
import { parse as parseToml } from 'smol-toml';
import { Lines } from './extract';
import { FLAG_PARENTS, configSourceOf } from './rules';
import type { LinkSite } from './types';

const MAX_CONFIG_KEYS = 2000;
/** A file not named like configuration is read up to this size: a larger one is data, not settings. */
export const OTHER_CONFIG_MAX_BYTES = 256 * 1024;
/** The keys whose map or list sets environment variables. */
const ENV_PARENTS = /^(?:environment|env)$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DOTENV = /^\.env(?:\.|$)|\.env$/;
/** Confidence of a key by where it is defined: a file named like configuration, or any other. */
const KEY_CONFIDENCE = { named: 0.9, other: 0.7 } as const;

interface Found { keys: { path: string[]; offset: number }[]; env: { name: string; offset: number }[] }

/** The link sites of a config file (none for a file that is not one, or does not parse). */
export function extractConfigSites(path: string, text: string): LinkSite[] {
  const source = configSourceOf(path);
  if (!source) return [];
  const lines = new Lines(text);
  const site = (kind: LinkSite['kind'], key: string, label: string, offset: number, len: number, confidence: number, rule: string): LinkSite => {
    const a = lines.at(offset); const b = lines.at(offset + len);
    return { kind, role: 'provider', key, label, line: a.line, col: a.col, end_line: b.line, end_col: b.col, confidence, rule, symbol_path: null };
  };
  const base = path.slice(path.lastIndexOf('/') + 1);
  if (DOTENV.test(base)) return dotenvLines(text).map(v => site('env', v.name, v.name, v.offset, v.name.length, 0.95, 'dotenv'));
  if (source === 'other' && text.length > OTHER_CONFIG_MAX_BYTES) return [];
  const ext = base.replace(/^.*\./, '').toLowerCase();
  let found: Found;
  try { found = readKeys(ext, text); } catch { return []; } // a config file that does not parse has no keys
  const confidence = KEY_CONFIDENCE[source];
  const rule = source === 'named' ? `config-${ext}` : `keys-${ext}`;
  const out: LinkSite[] = [];
  for (const k of found.keys) {
    const dotted = k.path.join('.');
    const last = k.path[k.path.length - 1]!;
    out.push(site('config', dotted.toLowerCase(), dotted, k.offset, last.length, confidence, rule));
    if (k.path.length >= 2 && FLAG_PARENTS.test(k.path[k.path.length - 2]!)) out.push(site('flag', last, last, k.offset, last.length, confidence - 0.05, rule));
  }
  for (const v of found.env) out.push({ ...site('env', v.name, v.name, v.offset, v.name.length, 0.85, 'yaml-env'), quiet: true });
  return out;
}

function dotenvLines(text: string): { name: string; offset: number }[] {
  const out: { name: string; offset: number }[] = [];
  const re = /^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*=/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push({ name: m[1]!, offset: m.index + m[0].indexOf(m[1]!) });
  return out;
}

function readKeys(ext: string, text: string): Found {
  if (ext === 'yaml' || ext === 'yml') return yamlKeys(text);
  const found: Found = { keys: [], env: [] };
  if (ext === 'properties') {
    const re = /^[ \t]*([\w.-]+)[ \t]*[=:]/gm;
    for (let m = re.exec(text); m && found.keys.length < MAX_CONFIG_KEYS; m = re.exec(text)) {
      found.keys.push({ path: m[1]!.split('.'), offset: m.index + m[0].indexOf(m[1]!) });
    }
    return found;
  }
  const value: unknown = ext === 'toml' ? parseToml(text) : JSON.parse(text);
  // positions: the first mention of each key after its parent's, as the parsers give none
  const walk = (v: unknown, at: string[], from: number) => {
    if (!v || typeof v !== 'object' || Array.isArray(v) || at.length > 8) return;
    for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
      if (found.keys.length >= MAX_CONFIG_KEYS) return;
      const esc = k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const re = new RegExp(ext === 'toml' ? `(?:^|[\\s.\\[])"?${esc}"?\\s*[=\\].]` : `"${esc}"\\s*:`, 'gm');
      re.lastIndex = from;
      const m = re.exec(text);
      const offset = m ? m.index + m[0].indexOf(k) : from;
      found.keys.push({ path: [...at, k], offset });
      walk(child, [...at, k], offset);
    }
  };
  walk(value, [], 0);
  return found;
}

/** YAML key paths, and the variables set under `environment` / `env` (a map, `K=V` items, or `- name: K` items). */
function yamlKeys(text: string): Found {
  const found: Found = { keys: [], env: [] };
  const doc = parseDocument(text);
  if (doc.errors.length) throw new Error('YAML does not parse');
  // inside a list (a Kubernetes pod's containers) only environment is looked for: keys have no path there
  const walk = (n: YamlNode | null | undefined, at: string[], keys: boolean) => {
    if (at.length > 8 || found.keys.length >= MAX_CONFIG_KEYS) return;
    if (isSeq(n)) for (const item of n.items) walk(item as YamlNode, at, false);
    if (!isMap(n)) return;
    for (const item of n.items) {
      const k = item.key;
      if (!isScalar(k) || k.range == null || k.value === null || typeof k.value === 'object') continue;
      const p = [...at, String(k.value)];
      if (keys) found.keys.push({ path: p, offset: k.range[0] });
      if (ENV_PARENTS.test(String(k.value))) envVars(item.value as YamlNode, found.env);
      walk(item.value as YamlNode, p, keys);
    }
  };
  walk(doc.contents as YamlNode, [], true);
  return found;
}

function envVars(n: YamlNode | null | undefined, out: Found['env']): void {
  const add = (name: string, offset: number) => { if (ENV_NAME.test(name)) out.push({ name, offset }); };
  if (isMap(n)) {
    for (const item of n.items) if (isScalar(item.key) && item.key.range) add(String(item.key.value), item.key.range[0]);
  } else if (isSeq(n)) {
    for (const item of n.items) {
      if (isScalar(item) && typeof item.value === 'string' && item.range) add(item.value.split('=')[0]!.trim(), item.range[0]);
      else if (isMap(item)) {
        const name = item.items.find(i => isScalar(i.key) && i.key.value === 'name')?.value;
        if (isScalar(name) && typeof name.value === 'string' && name.range) add(name.value, name.range[0]);
      }
    }
  }
}
