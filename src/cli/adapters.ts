/**
 * `sightline adapters …`: the team's other context sources as the adapters service sees them (the
 * merged config of built-ins, the user's file, settings and each repository's `.sightline/config.toml`).
 *
 *   list [--json]                          every adapter: active, inactive (why), untrusted (how to trust), error (file:line)
 *   inspect NAME [--json]                  an mcp adapter's server tools and their input schemas
 *   test NAME [--op OP] [--query Q] [--json]  one call of an operation (default search), with its time
 *   trust [--root DIR] | untrust DIR       pin (or forget) the repository's adapter tables after reviewing them
 *   sync                                   offer every current memory to the adapters subscribed to `sync`, and deliver
 *   outbox [retry|drop [ID]…]              deliveries waiting (with their next attempt) or given up (dead, with the error)
 *   call TOOL [--args JSON]                a tool an adapter declares or exposes, its answer as text
 *
 * Nothing here needs the index; exit codes as the rest of the CLI (0 ok, 1 a failed call, 2 usage).
 */
import { resolve } from 'node:path';
import type { Engine } from '../core/engine';
import type { AdapterInfo } from '../core/adapters/service';
import { UsageError } from '../surface/options';
import { callPublished } from '../core/adapters/published';

export const ADAPTERS_USAGE = 'sightline adapters list [--json] | inspect NAME | test NAME [--op OP] [--query Q] [--target T] [--uri U] | trust [--root DIR] | untrust DIR | sync | outbox [retry|drop [ID]…] | call TOOL [--args JSON]   (also --workspace DIR --json)';

const out = (s: string) => process.stdout.write(`${s}\n`);

export function renderAdapterList(list: readonly AdapterInfo[], errors: readonly { message: string }[]): string {
  if (!list.length && !errors.length) return 'no adapters configured (see docs/adapters.md)';
  const lines = list.map(a => {
    const where = a.declared_in?.map(d => d.kind).join('+') ?? '';
    const head = `${a.state === 'active' ? '●' : a.state === 'error' ? '✗' : '○'} ${a.name} · ${a.state}${a.driver ? ` · ${a.driver}` : ''}${a.ops.length ? ` · ops ${a.ops.join(', ')}` : ''}${a.tools.length ? ` · tools ${a.tools.join(', ')}` : ''}${where ? ` · from ${where}` : ''}`;
    const more = [a.description, a.reason, a.trust_hint && `→ ${a.trust_hint}`, a.cooldown && `cooling down ${Math.ceil(a.cooldown.retry_in_ms / 1000)} s after: ${a.cooldown.last_error}`].filter(Boolean).map(s => `    ${s}`);
    return [head, ...more].join('\n');
  });
  const named = new Set(list.filter(a => a.state === 'error').map(a => a.reason));
  for (const e of errors) if (!named.has(e.message)) lines.push(`✗ ${e.message}`);
  return lines.join('\n');
}

export async function runAdapters(engine: Engine, sub: string | undefined, positionals: string[], values: Record<string, unknown>): Promise<number> {
  const json = !!values.json;
  const a = await engine.adapters();
  switch (sub) {
    case 'list': {
      const list = a.list(); const errors = a.configErrors().map(e => ({ message: e.message }));
      out(json ? JSON.stringify({ adapters: list, config_errors: errors }, null, 2) : renderAdapterList(list, errors));
      return 0;
    }
    case 'inspect': {
      const [name] = positionals; if (!name || positionals.length > 1) throw new UsageError('adapters inspect needs one NAME');
      const r = await a.inspect(name);
      if (!r.ok) { out(json ? JSON.stringify({ error: r.error }, null, 2) : `✗ ${name}: ${r.error.code}: ${r.error.message}`); return 1; }
      out(json ? JSON.stringify(r, null, 2) : r.tools.map(t => `${t.name}${t.description ? ` — ${t.description}` : ''}\n    input: ${JSON.stringify(t.inputSchema ?? {})}`).join('\n') || `${name}: the server lists no tools`);
      return 0;
    }
    case 'test': {
      const [name] = positionals; if (!name || positionals.length > 1) throw new UsageError('adapters test needs one NAME');
      const op = typeof values.op === 'string' ? values.op : 'search';
      const inputs: Record<string, unknown> = { query: values.query ?? 'test', target: values.target ?? values.query ?? 'README.md', uri: values.uri ?? '', content: values.query ?? 'test', prompt: values.query ?? 'test', limit: 5 };
      const r = await a.call(name, op, inputs);
      if (!r.ok) { out(json ? JSON.stringify(r, null, 2) : `✗ ${name}.${op}: ${r.error.code}: ${r.error.message} (${r.ms} ms)`); return 1; }
      if (json) { out(JSON.stringify(r, null, 2)); return 0; }
      out(`✓ ${name}.${op} answered in ${r.ms} ms`);
      if (r.text !== undefined) out(r.text);
      for (const [i, it] of (r.items ?? []).entries()) out(`${i + 1}. ${it.title}${it.uri ? ` <${it.uri}>` : ''}${it.snippet ? ` — ${String(it.snippet).slice(0, 160)}` : ''}`);
      return 0;
    }
    case 'trust': {
      if (positionals.length) throw new UsageError('adapters trust takes no positional arguments (--root DIR for one repository)');
      const r = a.trust({ root: typeof values.root === 'string' ? values.root : undefined });
      if (json) out(JSON.stringify(r, null, 2));
      else {
        for (const t of r.trusted) out(`trusted the adapters of ${t.path} (sha256 ${t.sha256.slice(0, 12)}…); a change to them asks again`);
        for (const s of r.skipped) out(`skipped ${s.path}: ${s.reason}`);
        if (!r.trusted.length && !r.skipped.length) out('no repository of this workspace declares adapters');
        if (!r.workspace_trusted) out('note: the editor\'s workspace is not trusted: repository adapters stay inactive there');
      }
      return 0;
    }
    case 'untrust': {
      const [dir] = positionals; if (!dir || positionals.length > 1) throw new UsageError('adapters untrust needs one repository DIR');
      const done = a.untrust(resolve(dir));
      out(json ? JSON.stringify({ untrusted: done }) : done ? `forgot the trust of ${dir}'s adapters` : `${dir} had no trusted adapters`);
      return 0;
    }
    case 'sync': {
      if (positionals.length) throw new UsageError('adapters sync takes no positional arguments');
      const memories = await engine.memories.list({});
      const r = await a.sync(memories, { flush: false });
      const f = await a.flushOutbox();
      if (json) { out(JSON.stringify({ ...r, flush: f }, null, 2)); return f.failed.length ? 1 : 0; }
      out(`offered ${memories.length} memor${memories.length === 1 ? 'y' : 'ies'}: ${r.queued.length} deliver${r.queued.length === 1 ? 'y' : 'ies'} queued${r.duplicates ? `, ${r.duplicates} already pending` : ''}`);
      for (const s of r.skipped) out(`  skipped ${s.adapter}: ${s.reason}`);
      out(`delivered ${f.delivered.length}; ${f.pending} pending, ${f.dead} dead`);
      for (const x of f.failed) out(`  ✗ ${x.adapter}.${x.op} (${x.id}): ${x.error.code}: ${x.error.message}${x.state === 'dead' ? ' — given up' : x.next_attempt_at ? ` — retry at ${x.next_attempt_at}` : ''}`);
      return f.failed.length ? 1 : 0;
    }
    case 'outbox': {
      const [action, ...ids] = positionals;
      if (action === 'retry') { const n = a.retryOutbox(ids.length ? ids : undefined); const f = await a.flushOutbox(); out(json ? JSON.stringify({ retried: n, flush: f }, null, 2) : `retrying ${n}: delivered ${f.delivered.length}; ${f.pending} pending, ${f.dead} dead`); return 0; }
      if (action === 'drop') { const n = a.dropOutbox(ids.length ? ids : undefined); out(json ? JSON.stringify({ dropped: n }) : `dropped ${n}`); return 0; }
      if (action !== undefined) throw new UsageError('adapters outbox takes retry or drop [ID]…');
      const l = a.outbox();
      if (json) { out(JSON.stringify(l, null, 2)); return 0; }
      if (l.error) out(`✗ ${l.error}`);
      if (!l.pending.length && !l.dead.length) out(`the outbox is empty (${l.path})`);
      for (const x of l.pending) out(`… ${x.id} ${x.adapter}.${x.op} (${x.event} ${x.memory_id}) attempts ${x.attempts}${x.next_attempt_at ? `, next at ${x.next_attempt_at}` : ''}${x.last_error ? ` — ${x.last_error.message}` : ''}`);
      for (const x of l.dead) out(`✗ ${x.id} ${x.adapter}.${x.op} (${x.event} ${x.memory_id}) given up after ${x.attempts}: ${x.last_error?.message ?? ''}`);
      return 0;
    }
    case 'call': {
      const [name] = positionals; if (!name || positionals.length > 1) throw new UsageError('adapters call needs one TOOL');
      let args: Record<string, unknown> = {};
      if (typeof values.args === 'string') { try { args = JSON.parse(values.args) as Record<string, unknown>; } catch (e) { throw new UsageError(`--args is not valid JSON: ${(e as Error).message}`); } }
      const r = await callPublished(a, name, args);
      if (!r.ok) { out(json ? JSON.stringify(r, null, 2) : `✗ ${name}: ${r.error.code}: ${r.error.message}`); return r.error.code === 'invalid_args' ? 2 : 1; }
      out(json ? JSON.stringify(r, null, 2) : r.text);
      return 0;
    }
    default: throw new UsageError(`adapters needs list, inspect, test, trust, untrust, sync, outbox or call\n${ADAPTERS_USAGE}`);
  }
}
