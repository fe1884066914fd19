/**
 * The link site: one place in a file that names a cross-boundary key — an HTTP route or a client call,
 * an environment variable or config key and its readers, a SQL table and its queries or models, a
 * message topic, a feature flag. Sites are extracted per file (code files in the parser worker, config
 * files by the links phase) and matched into links by key (match.ts).
 */

export const LINK_KINDS = ['http', 'env', 'config', 'sql', 'topic', 'flag'] as const;
export type LinkKind = (typeof LINK_KINDS)[number];

/** provider: a route, a definition (.env line, config key), a table (model, DDL), a producer; consumer: what uses it. */
export type LinkRole = 'provider' | 'consumer';

export interface LinkSite {
  kind: LinkKind;
  role: LinkRole;
  /** the normalised key sites are matched on (http: `GET /users/{}`; topics carry their transport: `kafka:orders`) */
  key: string;
  /** the key as the code spells it, placeholders named (`GET /users/{id}`) */
  label: string;
  /** 1-based line, 0-based column of the site */
  line: number; col: number; end_line: number; end_col: number;
  /** how sure the extraction is that this site names this key (0..1) */
  confidence: number;
  /** the recognising rule (rules.ts `id`) */
  rule: string;
  /** the definition the site belongs to (innermost enclosing, or the decorated one), null at top level */
  symbol_path: string | null;
  /** a route's handler named by identifier (`app.get('/x', getUser)`) when it is not defined in the file */
  handler?: string;
  /** http: the client's path was relative to a base it did not spell (`${API}/users`) or had a host */
  base?: 'dynamic' | 'host';
  /** http routes: the router variable they hang on (`router` of `@router.get`), for mounts in other files */
  receiver?: string;
  /** a provider that nothing using it is normal for (a YAML file's environment, mostly a service's own): not listed unmatched */
  quiet?: true;
}
