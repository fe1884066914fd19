/**
 * Adapter events: `[[adapters.<name>.on]]` subscriptions and the payload an event hands to the
 * subscribed operation. Pure (the service queues deliveries in the outbox, outbox.ts).
 *
 * Rules:
 * - Events: `capture` (a project memory was added), `promote` (a memory was confirmed by a human or
 *   promoted to the repository scope), `sync` (`sightline adapters sync`: every current memory — status
 *   `current` or `relocated` — is offered to every sync subscription).
 * - A subscription `{ event, op, visibility?, kinds? }` matches when its event is the event, its
 *   `visibility` (if set) is the memory's, and its `kinds` (if set) hold the memory's kind (case aside).
 *   The filters apply to every event, not only `capture`.
 * - Visibility ⇔ memory scope: `private` (alias `user`) is a `user`-scope memory (private to this
 *   user's data folder); `shared` (aliases `team`, `repo`) is a `repo`-scope memory (the repository's
 *   `.sightline/memories.json`, shared with the team). The payload's `visibility` is `private` or
 *   `shared`; `scope` carries the raw scope.
 * - Kind and tags: a memory record has no kind and no tags field of its own, so they are derived from
 *   its text: `tags` are the `#hashtags` in it (lowercased, in order, once each; a record that carries a
 *   `tags` array or a `kind` string — a later schema — has them used first); `kind` is the record's
 *   `kind`, else a leading `Kind:` word of the text that is a known kind (KNOWN_KINDS, e.g.
 *   `Decision: use Postgres`), else the first tag that is a known kind, else `note`.
 * - Payload fields (templates see them at the top level and under `event.*`, with `event.type` the event
 *   name): `id, kind, title` (the first line, without Markdown heading marks, at most 120 characters),
 *   `status, date` (creation day, YYYY-MM-DD UTC), `summary` (the first paragraph on one line, at most
 *   280 characters), `tags, paths` (the anchored file, if any), `body` (the memory's text), `markdown`
 *   (the whole memory as a Markdown document: YAML front matter with the fields above, then the body),
 *   `path` (the anchored file, repository-relative; empty for a repository anchor), `anchor`
 *   (`path:line symbol`, `path`, or `repository`), `visibility, scope, confidence, created_by, origin`
 *   (the memory's `source`: who or what produced it), `repo_id`, and `source.repo` (the repository's
 *   origin as `host/owner/name`, else its Sightline repo id), `source.branch` (the checked-out branch,
 *   empty outside git), `source.root`.
 * - The inputs an operation gets also carry the standard inputs of its op, so a store op without
 *   templates (an mcp op bound by schema) works: `content` = markdown, `title`, `tags`; `query` = title;
 *   `target` = path; `uri` = id; `prompt` = markdown.
 */
import { stringify as yamlStringify } from 'yaml';
import type { MemoryRecord } from '../memories/model';
import type { AdapterConfig, OpName } from './config';
import { EVENTS } from './config';
import type { RepoVars } from './templates';

export type EventName = (typeof EVENTS)[number];
export type Subscription = AdapterConfig['on'][number];
export type Visibility = 'private' | 'shared';

export const KNOWN_KINDS = ['decision', 'incident', 'runbook', 'convention', 'gotcha', 'warning', 'todo', 'bug', 'question', 'howto', 'note'] as const;
const KNOWN = new Set<string>(KNOWN_KINDS);

/** The visibility values a subscription may filter on, and the memory scope each means. */
export const VISIBILITY_SCOPE: Record<string, MemoryRecord['scope']> = { private: 'user', user: 'user', shared: 'repo', team: 'repo', repo: 'repo' };

export function visibilityOf(scope: MemoryRecord['scope']): Visibility { return scope === 'repo' ? 'shared' : 'private'; }

export interface MemoryPayload {
  id: string;
  kind: string;
  title: string;
  status: string;
  date: string;
  summary: string;
  tags: string[];
  paths: string[];
  body: string;
  markdown: string;
  path: string;
  anchor: string;
  visibility: Visibility;
  scope: MemoryRecord['scope'];
  confidence: number;
  created_by: string;
  origin: string;
  repo_id: string;
  source: { repo: string; branch: string; root: string };
}

const HASHTAG = /(?:^|[\s(,;])#([A-Za-z][A-Za-z0-9_/-]*)/g;

export function tagsOf(m: MemoryRecord): string[] {
  const out: string[] = [];
  const own = (m as unknown as { tags?: unknown }).tags;
  if (Array.isArray(own)) for (const t of own) if (typeof t === 'string' && t.trim()) out.push(t.trim().toLowerCase());
  for (const x of m.text.matchAll(HASHTAG)) out.push(x[1]!.toLowerCase());
  return [...new Set(out)];
}

export function kindOf(m: MemoryRecord, tags = tagsOf(m)): string {
  const own = (m as unknown as { kind?: unknown }).kind;
  if (typeof own === 'string' && own.trim()) return own.trim().toLowerCase();
  const lead = /^\s*(?:#+\s*)?([A-Za-z]+)\s*:/.exec(m.text);
  if (lead && KNOWN.has(lead[1]!.toLowerCase())) return lead[1]!.toLowerCase();
  return tags.find(t => KNOWN.has(t)) ?? 'note';
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1).trimEnd()}…` : s);

export function anchorOf(m: MemoryRecord): string {
  if (m.anchor_kind === 'repo' || !m.anchor_path) return 'repository';
  if (m.anchor_kind === 'file') return m.anchor_path;
  const range = m.end_line !== null && m.end_line !== m.start_line && m.anchor_kind === 'span' ? `-${m.end_line}` : '';
  return `${m.anchor_path}:${m.start_line ?? 1}${range}${m.anchor_kind === 'symbol' ? ` ${m.anchor_id}` : ''}`;
}

/** The event payload of a memory (see the header); `repo` is the template vars of its repository, if known. */
export function memoryPayload(m: MemoryRecord, repo?: RepoVars): MemoryPayload {
  const tags = tagsOf(m);
  const kind = kindOf(m, tags);
  const text = m.text.replace(/\r\n/g, '\n');
  const firstLine = text.split('\n').find(l => l.trim()) ?? '';
  const title = cut(firstLine.replace(/^\s*#+\s*/, '').trim(), 120);
  const firstPara = text.trim().split(/\n\s*\n/)[0] ?? '';
  const summary = cut(firstPara.replace(/\s*\n\s*/g, ' ').replace(/^#+\s*/, '').trim(), 280);
  const date = new Date(m.created_at_ms).toISOString().slice(0, 10);
  const path = m.anchor_kind === 'repo' ? '' : m.anchor_path ?? '';
  const visibility = visibilityOf(m.scope);
  const source = { repo: repo?.remote ?? repo?.id ?? m.repo_id, branch: repo?.branch ?? '', root: repo?.root ?? '' };
  const front: Record<string, unknown> = {
    id: m.id, kind, title, status: m.status, date, visibility, tags, paths: path ? [path] : [], anchor: anchorOf(m),
    confidence: m.confidence, created_by: m.created_by, origin: m.source, source: { repo: source.repo, branch: source.branch },
  };
  const markdown = `---\n${yamlStringify(front, { lineWidth: 0 }).trimEnd()}\n---\n\n${text.trim()}\n`;
  return {
    id: m.id, kind, title, status: m.status, date, summary, tags, paths: path ? [path] : [], body: m.text, markdown, path,
    anchor: anchorOf(m), visibility, scope: m.scope, confidence: m.confidence, created_by: m.created_by, origin: m.source, repo_id: m.repo_id, source,
  };
}

/** Whether a subscription takes this event of this memory payload. */
export function matches(sub: Subscription, event: EventName, p: Pick<MemoryPayload, 'kind' | 'scope'>): boolean {
  if (sub.event !== event) return false;
  if (sub.visibility !== undefined && VISIBILITY_SCOPE[sub.visibility.toLowerCase()] !== p.scope) return false;
  if (sub.kinds?.length && !sub.kinds.some(k => k.toLowerCase() === p.kind)) return false;
  return true;
}

/** The inputs of the subscribed op: the payload, `event.*`, and the op's standard inputs. */
export function eventInputs(event: EventName, op: OpName, p: MemoryPayload): Record<string, unknown> {
  return {
    ...p,
    event: { type: event, ...p },
    content: p.markdown, title: p.title, tags: p.tags,
    query: p.title, target: p.path || p.anchor, uri: p.id, prompt: p.markdown,
    ...(op === 'search' || op === 'code' || op === 'history' || op === 'brief' ? { limit: 10 } : {}),
  };
}

/** The memories `sync` offers: the current ones (status current or relocated). */
export function syncable(m: MemoryRecord): boolean { return m.status === 'current' || m.status === 'relocated'; }
