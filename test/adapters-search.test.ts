/**
 * search_code with adapters: a team-notes HTTP peer on loopback answers and its results are fused with
 * the local files by weighted reciprocal rank; a hung peer is skipped after its timeout (the answer
 * comes back within it, with a notice), then cools down (the next call does not wait); external=false
 * asks nobody; a repository-declared adapter runs only once trusted.
 */
import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Engine } from '../src/core/engine';
import { invokeTool } from '../src/core/tools/contract';
import { findTool } from '../src/core/tools/registry';
import { fuseLists, peerQuery, RRF_K } from '../src/core/adapters/fuse';
import { execFile } from 'node:child_process';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';
import { CLI_JS, requireBuilt } from './helpers/mcp';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  return new Promise(res => server.listen(0, '127.0.0.1', () => res({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

describe('adapters: fusion by weighted reciprocal rank', () => {
  it('orders by weight / (K + rank); ties to local; deterministic', () => {
    const order = fuseLists([{ source: 'local', weight: 1, count: 3 }, { source: 'notes', weight: 0.9, count: 2 }, { source: 'wiki', weight: 2, count: 1 }]);
    assert.deepEqual(order.map(e => `${e.source}${e.index}`), ['wiki0', 'local0', 'local1', 'local2', 'notes0', 'notes1']);
    assert.equal(order[0]!.score, 2 / (RRF_K + 1));
    // equal weights: the local list first at each rank
    assert.deepEqual(fuseLists([{ source: 'b', weight: 1, count: 1 }, { source: 'local', weight: 1, count: 1 }]).map(e => e.source), ['local', 'b']);
  });
  it('a long query goes to peers as its terms, a short one as is', () => {
    assert.equal(peerQuery('retry payment', ['x']), 'retry payment');
    const long = `Traceback ${'x '.repeat(400)}`;
    assert.equal(peerQuery(long, ['PaymentError', 'retry', 'charge'], 300), 'PaymentError retry charge');
  });
});

describe('search_code with adapters', function () {
  this.timeout(60_000);
  let ws: TempWorkspace; let engine: Engine;
  let notes: { server: Server; url: string }; let hung: { server: Server; url: string };
  let hungRequests = 0;
  const asked: string[] = [];
  const call = async (args: Json, e = engine): Promise<{ data: Json; markdown: string }> => {
    const out = await invokeTool(findTool('search_code')!, args, { engine: e });
    assert.ok(out.ok, JSON.stringify(out));
    return { data: out.data as Json, markdown: out.markdown };
  };
  before(async () => {
    notes = await listen((req, res) => {
      const q = new URL(req.url!, 'http://x').searchParams.get('q') ?? '';
      asked.push(q);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ hits: [
        { name: 'ADR 7: retries use exponential backoff', url: 'notes://adr/7', summary: `decision about ${q}`, type: 'decision', created_at: '2026-05-01' },
        { name: 'Incident: double charge on retry', url: 'notes://inc/12', summary: 'postmortem', type: 'incident' },
      ] }));
    });
    hung = await listen(() => { hungRequests++; /* never answers */ });
    ws = tempWorkspace({
      'src/payments.ts': 'export function retryPayment(id: string) {\n  return chargeWithBackoff(id, 3);\n}\nfunction chargeWithBackoff(id: string, n: number) { return n; }\n',
      'src/users.ts': 'export function loadUser(id: string) { return id; }\n',
    });
    engine = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0, adapters: { settings: {
      notes: { driver: 'http', base_url: notes.url, weight: 0.9, ops: { search: { method: 'GET', path: '/search', query: { q: '{{query}}' }, map: { title: 'name', uri: 'url', snippet: 'summary', kind: 'type', date: 'created_at' } } } },
      slow: { driver: 'http', base_url: hung.url, timeout_ms: 400, ops: { search: { path: '/s', body: { q: '{{query}}' } } } },
    } } });
    await engine.index({});
  });
  after(async () => { engine.close(); ws.remove(); notes.server.close(); hung.server.closeAllConnections(); hung.server.close(); });

  it('fuses the notes with local files; the hung peer is skipped within its timeout, then cools down', async () => {
    const t0 = Date.now();
    const { data, markdown } = await call({ query: 'retry payment' });
    const took = Date.now() - t0;
    assert.ok(took < 400 + 1500, `took ${took} ms`);
    assert.equal(data.files[0].path, 'src/payments.ts');
    assert.deepEqual(data.external.map((x: Json) => [x.source, x.uri, x.rank]), [['notes', 'notes://adr/7', 1], ['notes', 'notes://inc/12', 2]]);
    assert.equal(data.external[0].kind, 'decision'); assert.equal(data.external[0].date, '2026-05-01');
    assert.match(data.external[0].snippet, /decision about retry payment/);
    // one local file matches: local rank 1 (1/61) > notes rank 1 (0.9/61)
    assert.equal(data.external[0].fused_rank, 2);
    assert.deepEqual(data.sources.map((s: Json) => [s.name, s.ok]).sort(), [['notes', true], ['slow', false]]);
    assert.match(data.sources.find((s: Json) => s.name === 'slow').error, /timeout/);
    assert.ok(data.warnings.some((w: string) => /adapter slow: timeout/.test(w)), JSON.stringify(data.warnings));
    // the Markdown lists them in the fused order
    const lines = markdown.split('\n');
    const iNotes = lines.findIndex(l => l.includes('[notes] [ADR 7'));
    const iPay = lines.findIndex(l => l.includes('src/payments.ts'));
    assert.ok(iPay >= 0 && iNotes > iPay, markdown);
    // the next call does not wait for the hung peer: it is cooling down
    const asked = hungRequests;
    assert.ok(asked >= 1, 'the first call asked the hung peer');
    const again = await call({ query: 'retry payment' });
    assert.equal(hungRequests, asked, 'the hung peer is not asked again while it cools down');
    assert.match(again.data.sources.find((s: Json) => s.name === 'slow')?.error ?? again.data.warnings.join(' '), /cool/);
  });

  it('pre_change_context carries what the adapters know beside its pack', async () => {
    const out = await invokeTool(findTool('pre_change_context')!, { query: 'retry payment', token_budget: 2000 }, { engine });
    assert.ok(out.ok, JSON.stringify(out));
    const d = out.data as Json;
    assert.equal(d.external[0]?.source, 'notes'); assert.equal(d.external[0].uri, 'notes://adr/7');
    assert.ok(d.context_pack.some((p: Json) => p.path === 'src/payments.ts'));
    assert.match(out.markdown, /\[notes\] \[ADR 7/);
  });

  it('external=false asks nobody; a later page asks nobody', async () => {
    const n = asked.length;
    const { data } = await call({ query: 'retry payment', external: false });
    assert.deepEqual(data.external, []); assert.deepEqual(data.sources, []);
    await call({ query: 'payment', offset: 1, limit: 1 });
    assert.equal(asked.length, n);
  });

  it('a long pasted issue reaches the peer as its informative terms', async () => {
    await call({ query: `When a retry happens the chargeWithBackoff path charges twice.\n${'Some log line here. '.repeat(40)}` });
    const q = asked.at(-1)!;
    assert.ok(q.length <= 300 && /chargewithbackoff|charge/i.test(q), q);
  });

  it('a repository-declared adapter does not run until trusted', async () => {
    const repo = tempWorkspace({
      'a.ts': 'export const retryPayment = () => 1;\n',
      '.sightline/config.toml': `[adapters.team]\ndriver = "http"\nbase_url = "${notes.url}"\n[adapters.team.ops.search]\nmethod = "GET"\npath = "/search"\nquery = { q = "{{query}}" }\nmap = { title = "name", uri = "url" }\n`,
    }, 'repo');
    const e = await Engine.open({ roots: [repo.root], dbPath: repo.db, threads: 0 });
    try {
      await e.index({});
      const before = await call({ query: 'retry' }, e);
      assert.deepEqual(before.data.external, []);
      const a = await e.adapters();
      assert.equal(a.list().find(x => x.name === 'team')?.state, 'untrusted');
      a.trust();
      await a.reload();
      const after = await call({ query: 'retry' }, e);
      assert.equal(after.data.external[0]?.source, 'team');
    } finally { e.close(); repo.remove(); }
  });
});

describe('sightline adapters (dist/cli.js)', function () {
  this.timeout(60_000);
  it('lists, trusts, and tests adapters; a config error names its file and line', async () => {
    requireBuilt();
    const peer = await listen((_req, res) => { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ results: [{ title: 'ADR 3', url: 'notes://adr/3' }] })); });
    const ws = tempWorkspace({ 'a.ts': 'export const a = 1;\n', '.sightline/config.toml': `[adapters.notes]\ndriver = "http"\nbase_url = "${peer.url}"\n[adapters.notes.ops.search]\npath = "/s"\nbody = { q = "{{query}}" }\n\n[adapters.typo]\ndriver = "http"\nbase_url = "http://x"\ntiemout_ms = 5\n` });
    // asynchronous: the peer answers from this process while the CLI runs
    const cli = (...args: string[]) => new Promise<{ status: number | null; stdout: string; stderr: string }>(res => {
      execFile(process.execPath, [CLI_JS, 'adapters', ...args, '--workspace', ws.root, '--db', ws.db], { encoding: 'utf8', timeout: 30_000 }, (err, stdout, stderr) => res({ status: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }));
    });
    try {
      const before = JSON.parse((await cli('list', '--json')).stdout);
      assert.equal(before.adapters.find((a: Json) => a.name === 'notes').state, 'untrusted');
      assert.match(before.adapters.find((a: Json) => a.name === 'notes').trust_hint, /sightline adapters trust/);
      const typo = before.adapters.find((a: Json) => a.name === 'typo');
      assert.equal(typo.state, 'error'); assert.match(typo.reason, /config\.toml:11: adapters\.typo: unknown field `tiemout_ms`/);
      assert.equal((await cli('test', 'notes')).status, 1, 'an untrusted adapter is not called');
      assert.match((await cli('trust')).stdout, /trusted the adapters of .*config\.toml/);
      assert.match((await cli('list')).stdout, /● notes · active · http · ops search/);
      const t = await cli('test', 'notes', '--query', 'retry');
      assert.equal(t.status, 0, t.stdout + t.stderr); assert.match(t.stdout, /✓ notes\.search answered in \d+ ms\n1\. ADR 3 <notes:\/\/adr\/3>/);
      assert.equal((await cli('bogus')).status, 2);
    } finally { ws.remove(); peer.server.close(); }
  });
});

describe('history and read_external with adapters', function () {
  this.timeout(60_000);
  it('history adds an adapter\'s history items; read_external reads a URI the adapter owns, and says why when none does', async () => {
    const peer = await listen((req, res) => {
      const u = new URL(req.url!, 'http://x');
      res.setHeader('content-type', 'application/json');
      if (u.pathname === '/history') res.end(JSON.stringify({ entries: [{ title: `PR 12 touched ${u.searchParams.get('t')}`, url: 'https://example.test/pr/12', created_at: '2026-02-03' }] }));
      else if (u.pathname === '/note') res.end(JSON.stringify({ body: `# ADR ${u.searchParams.get('id')}\nWe retry with backoff.` }));
      else { res.statusCode = 404; res.end('{}'); }
    });
    const ws = tempWorkspace({ 'src/pay.ts': 'export function retryPayment() { return 1; }\n' });
    ws.git('init', '-q'); ws.git('add', '.'); ws.git('-c', 'user.email=a@b', '-c', 'user.name=A', 'commit', '-qm', 'first');
    const e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0, adapters: { userConfigPath: null, settings: {
      notes: { driver: 'http', base_url: peer.url, ops: {
        history: { method: 'GET', path: '/history', query: { t: '{{target}}' }, map: { uri: 'url', date: 'created_at' } },
        read: { method: 'GET', path: '/note', query: { id: '{{uri|basename}}' }, text: 'body', owns: ['notes://'] },
      } },
    } } });
    try {
      await e.index({});
      const h = await invokeTool(findTool('history')!, { symbol: 'retryPayment' }, { engine: e });
      assert.ok(h.ok, JSON.stringify(h));
      const hd = h.data as Json;
      assert.deepEqual(hd.external.map((x: Json) => [x.source, x.uri, x.date]), [['notes', 'https://example.test/pr/12', '2026-02-03']]);
      assert.match(hd.external[0].title, /PR 12 touched src\/pay\.ts:1/);
      assert.match(h.markdown, /\[notes\] \[PR 12/);
      const r = await invokeTool(findTool('read_external')!, { uri: 'notes://adr/7' }, { engine: e });
      assert.ok(r.ok, JSON.stringify(r));
      assert.equal((r.data as Json).source, 'notes'); assert.match((r.data as Json).text, /^# ADR 7\nWe retry/);
      const none = await invokeTool(findTool('read_external')!, { uri: 'jira://X-1' }, { engine: e });
      assert.ok(none.ok);
      assert.equal((none.data as Json).found, false); assert.match((none.data as Json).reason, /no active adapter owns jira:\/\/X-1 \(adapters with a read operation: notes\)/);
    } finally { e.close(); ws.remove(); peer.server.close(); }
  });
});

describe('search_code asks a code operation before a search one', function () {
  this.timeout(60_000);
  it('an adapter with both is asked through code (code in other repositories)', async () => {
    const paths: string[] = [];
    const peer = await listen((req, res) => { paths.push(new URL(req.url!, 'http://x').pathname); res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ results: [{ title: 'billing/retry.go', url: 'https://code.example/billing/retry.go' }] })); });
    const ws = tempWorkspace({ 'a.ts': 'export function retryPayment() { return 1; }\n' });
    const e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0, adapters: { userConfigPath: null, settings: {
      org: { driver: 'http', base_url: peer.url, ops: { search: { method: 'GET', path: '/search', query: { q: '{{query}}' } }, code: { method: 'GET', path: '/code', query: { q: '{{query}}' } } } },
    } } });
    try {
      await e.index({});
      const out = await invokeTool(findTool('search_code')!, { query: 'retry payment' }, { engine: e });
      assert.ok(out.ok, JSON.stringify(out));
      assert.deepEqual(paths, ['/code']);
      assert.equal((out.data as Json).external[0].uri, 'https://code.example/billing/retry.go');
    } finally { e.close(); ws.remove(); peer.server.close(); }
  });
});
