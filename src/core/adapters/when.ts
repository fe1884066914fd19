/**
 * `when`: an adapter's activation conditions. All must hold; an adapter whose conditions fail is listed as
 * inactive with the reasons and never called.
 *
 * Rules (each key may be a string or a list; every entry must hold):
 * - `command`: an executable of that name on PATH (PATHEXT on Windows); a name with a path separator is
 *   checked as a path. Never runs anything and never uses a shell.
 * - `file`: exists relative to the repository root (templated).
 * - `repo`: a regular expression that matches the repository id (`repo.id`) or its remote identity
 *   (`repo.remote`, e.g. `github.com/acme/shop` from `origin`).
 * - `env`: the variable is set and non-empty.
 * - `exists`: a templated path (`~/` is the home folder; relative paths are from the repository root);
 *   `*` (any picomatch glob) is allowed in the last segment only.
 * A template error in a condition makes it fail (the reason names the variable), never throws.
 */
import { accessSync, constants, existsSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, basename, isAbsolute, join, resolve } from 'node:path';
import picomatch from 'picomatch';
import type { WhenConfig } from './config';
import { renderString, TemplateError, type TemplateContext, type RepoVars } from './templates';

export interface WhenFailure { condition: keyof WhenConfig; value: string; reason: string }
export type WhenResult = { ok: true } | { ok: false; failed: WhenFailure[]; reason: string };

/** Whether an executable `name` is on PATH (no shell, nothing run). */
export function onPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const isWin = process.platform === 'win32';
  const exts = isWin ? (env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';').filter(Boolean) : [''];
  const executable = (p: string) => {
    try { if (!statSync(p).isFile()) return false; accessSync(p, isWin ? constants.F_OK : constants.X_OK); return true; } catch { return false; }
  };
  if (name.includes('/') || (isWin && name.includes('\\'))) {
    for (const e of ['', ...exts]) if (executable(name + e)) return name + e;
    return undefined;
  }
  for (const dir of (env.PATH ?? env.Path ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const e of ['', ...exts]) { const p = join(dir, name + e); if (executable(p)) return p; }
  }
  return undefined;
}

function expandHome(p: string): string { return p === '~' ? homedir() : p.startsWith('~/') ? join(homedir(), p.slice(2)) : p; }

/** A path whose last segment may be a glob: whether anything matches. */
export function pathExists(path: string, root: string): boolean {
  const abs = isAbsolute(expandHome(path)) ? expandHome(path) : resolve(root, path);
  const last = basename(abs);
  if (!picomatch.scan(last).isGlob) return existsSync(abs);
  const dir = dirname(abs);
  if (picomatch.scan(dir).isGlob) return false; // only the last segment may hold a glob
  let names: string[];
  try { names = readdirSync(dir); } catch { return false; }
  const m = picomatch(last, { dot: true });
  return names.some(n => m(n));
}

const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

export interface WhenEnv { repo: RepoVars; env: NodeJS.ProcessEnv; ctx: TemplateContext }

export function evaluateWhen(when: WhenConfig | undefined, w: WhenEnv, field = 'when'): WhenResult {
  if (!when) return { ok: true };
  const failed: WhenFailure[] = [];
  const tpl = (cond: keyof WhenConfig, raw: string): string | undefined => {
    try { return renderString(raw, w.ctx, `${field}.${cond}`); } catch (e) {
      if (e instanceof TemplateError) { failed.push({ condition: cond, value: raw, reason: e.message }); return undefined; }
      throw e;
    }
  };
  for (const raw of list(when.command)) {
    const name = tpl('command', raw);
    if (name !== undefined && !onPath(name, w.env)) failed.push({ condition: 'command', value: name, reason: `command \`${name}\` not on PATH` });
  }
  for (const raw of list(when.file)) {
    const f = tpl('file', raw);
    if (f !== undefined && !existsSync(resolve(w.repo.root, f))) failed.push({ condition: 'file', value: f, reason: `file \`${f}\` not in the repository root` });
  }
  for (const raw of list(when.repo)) {
    const src = tpl('repo', raw);
    if (src === undefined) continue;
    let re: RegExp;
    try { re = new RegExp(src); } catch (e) { failed.push({ condition: 'repo', value: src, reason: `repo pattern \`${src}\` is not a regular expression (${(e as Error).message})` }); continue; }
    const ids = [w.repo.id, w.repo.remote].filter((x): x is string => !!x);
    if (!ids.some(id => re.test(id))) failed.push({ condition: 'repo', value: src, reason: `repository ${ids.map(i => `\`${i}\``).join(' / ')} does not match \`${src}\`` });
  }
  for (const raw of list(when.env)) {
    const name = tpl('env', raw);
    if (name !== undefined && !w.env[name]) failed.push({ condition: 'env', value: name, reason: `environment variable \`${name}\` is not set` });
  }
  for (const raw of list(when.exists)) {
    const p = tpl('exists', raw);
    if (p !== undefined && !pathExists(p, w.repo.root)) failed.push({ condition: 'exists', value: p, reason: `nothing exists at \`${p}\`` });
  }
  return failed.length ? { ok: false, failed, reason: failed.map(f => f.reason).join('; ') } : { ok: true };
}
