/**
 * The adapters' search results in answers (search_code, pre_change_context): asked in parallel with the
 * local search, each adapter bounded by its own timeout; a short query goes to them as is, a long one (a
 * pasted issue) as the local search's most informative terms. Fused with the local results by weighted
 * reciprocal rank (adapters/fuse.ts).
 */
import { z } from 'zod';
import type { SearchAnswer } from '../adapters/service';
import { fuseLists, peerQuery, LOCAL_WEIGHT } from '../adapters/fuse';
import type { ToolServices } from './services';

/** Characters of a query the adapters get as is; a longer one goes as its most informative terms. */
export const PEER_QUERY_CHARS = 300;

/** A result of a configured adapter (team notes, another repository's search…), in the fused order. */
export const externalSchema = z.object({
  source: z.string().describe('The adapter that answered.'),
  uri: z.string().nullable().describe('Where it lives (a URL or notes:// URI; get_chunk reads URIs an adapter owns).'),
  title: z.string().describe('Its title.'),
  snippet: z.string().nullable().describe('A short excerpt (at most 300 characters).'),
  kind: z.string().nullable().describe('Its kind as the adapter says (issue, note, code…).'),
  date: z.string().nullable().describe('Its date as the adapter says.'),
  rank: z.number().int().describe('Its rank in the adapter\'s answer (1 = first).'),
  fused_rank: z.number().int().describe('Its place among local files and every adapter\'s results, by weighted reciprocal rank (1 = first).'),
});
export const sourceSchema = z.object({
  name: z.string().describe('Adapter name.'),
  ok: z.boolean().describe('True when it answered.'),
  items: z.number().int().describe('Results it gave.'),
  ms: z.number().int().describe('Time it took.'),
  weight: z.number().describe('Its weight in the fusion (local results 1.0).'),
  error: z.string().nullable().describe('Why it gave nothing (timeout, unreachable, cooling down…).'),
});


/**
 * Starts the adapters' search now (a short query) or once the local terms are known (a long one). Each
 * adapter is asked through its `code` operation (code in other repositories: what a code search wants),
 * else its `search` operation; timeouts and cool-downs are the service's.
 */
export function peerSearch(ctx: { engine: ToolServices; signal?: AbortSignal }, enabled: boolean, query: string, limit: number): { answer(terms: readonly string[]): Promise<SearchAnswer | undefined> } {
  if (!enabled) return { answer: async () => undefined };
  const ask = async (terms: readonly string[]) => (await ctx.engine.adapters()).search(peerQuery(query, terms, PEER_QUERY_CHARS), limit, { signal: ctx.signal, ops: ['code', 'search'] });
  const early = query.trim().length > PEER_QUERY_CHARS ? undefined : ask([]);
  return { answer: terms => early ?? ask(terms) };
}

/** The notices worth a warning (adapters that failed, timed out, cool down or are untrusted). */
export const peerNotices = (a: SearchAnswer | undefined): string[] => (a ? a.notices.filter(n => !/^no adapter has/.test(n)).map(n => `adapter ${n}`) : []);

const cut = (s: unknown, n: number): string | null => (typeof s === 'string' && s ? (s.length > n ? `${s.slice(0, n)}…` : s) : null);

/** The adapters' answers in the fused order with the page's local results (weighted reciprocal rank). */
export function fuse(peers: SearchAnswer | undefined, localCount: number): { externalItems: z.infer<typeof externalSchema>[]; sources: z.infer<typeof sourceSchema>[] } {
  if (!peers) return { externalItems: [], sources: [] };
  const ok = peers.results.filter(x => x.ok && x.items.length);
  const order = fuseLists([{ source: '\0local', weight: LOCAL_WEIGHT, count: localCount }, ...ok.map(x => ({ source: x.adapter, weight: x.weight, count: x.items.length }))], '\0local');
  const externalItems: z.infer<typeof externalSchema>[] = [];
  order.forEach((e, place) => {
    if (e.source === '\0local') return;
    const it = ok.find(x => x.adapter === e.source)!.items[e.index]!;
    externalItems.push({ source: e.source, uri: typeof it.uri === 'string' ? it.uri : null, title: cut(it.title, 200) ?? '(untitled)', snippet: cut(it.snippet, 300), kind: cut(it.kind, 40), date: cut(it.date, 40), rank: e.index + 1, fused_rank: place + 1 });
  });
  const sources = peers.results.map(x => ({ name: x.adapter, ok: x.ok, items: x.items.length, ms: Math.round(x.ms), weight: x.weight, error: x.error ? `${x.error.code}: ${x.error.message}`.slice(0, 200) : null }));
  return { externalItems, sources };
}
