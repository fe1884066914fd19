/**
 * The adapters engine's pure parts and config loading, on real files: templates, formats, result
 * mapping and the path language, MCP argument binding, `when` conditions, config layers, validation
 * errors (file, line, field), trust hashing. The peers (http, command, MCP over stdio and HTTP, Sightline's
 * own MCP server) are in adapters-engine.test.ts, whose header maps the spec's tables to the tests.
 */
import { strict as assert } from 'node:assert';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseContext, extend, render, renderDeep, renderString, TemplateError, type RepoVars } from '../src/core/adapters/templates';
import { FormatError, parsePayload } from '../src/core/adapters/format';
import { getPath, mapItems, mapText, mcpPayload, MappingError, parsePath, selectItems, selectPath, splitText } from '../src/core/adapters/mapping';
import { bindArguments, convert } from '../src/core/adapters/binding';
import { evaluateWhen, onPath, pathExists } from '../src/core/adapters/when';
import { lineOfKey, loadAdapterConfig, userConfigPath } from '../src/core/adapters/config';
import { adaptersHash, canonicalJson } from '../src/core/adapters/trust';
import { exposedName, paramsSchema, remoteIdentity } from '../src/core/adapters/service';

const REPO: RepoVars = { id: 'shop-1a2b3c4d', slug: 'acme-shop', name: 'shop', dir: 'shop', root: '/work/shop', branch: 'main', remote: 'github.com/acme/shop' };
const ctx = (more: Record<string, unknown> = {}, vars: Record<string, string> = {}) =>
  extend(baseContext({ repo: REPO, projectName: 'proj', env: { HOME: '/home/u', TOKEN: 'abc', EMPTY: '' }, vars, now: new Date('2025-03-04T05:06:07Z') }), more);

describe('adapters: templates', () => {
  it('renders repo, project, vars (templates themselves), env, now and inputs', () => {
    const c = ctx({ query: 'a b', limit: 5, args: { query: 'a b', limit: 5 } }, { base: 'https://x/{{repo.slug}}', deep: '{{vars.base}}/api' });
    assert.equal(renderString('{{repo.id}} {{repo.slug}} {{repo.name}} {{repo.dir}} {{repo.root}} {{repo.branch}} {{project.name}}', c, 'f'), 'shop-1a2b3c4d acme-shop shop shop /work/shop main proj');
    assert.equal(renderString('{{vars.deep}}?q={{query|urlencode}}&n={{args.limit}}', c, 'f'), 'https://x/acme-shop/api?q=a%20b&n=5');
    assert.equal(renderString('{{env.TOKEN}} {{now.date}}', c, 'f'), 'abc 2025-03-04');
  });
  it('a whole {{x}} keeps its JSON type; deep rendering over objects and arrays', () => {
    const c = ctx({ limit: 7, tags: ['a', 'b'], flag: true });
    assert.equal(render('{{limit}}', c, 'f'), 7);
    assert.deepEqual(renderDeep({ n: '{{limit}}', list: ['{{tags}}', 'x{{limit}}'], keep: 3, nested: { f: '{{flag}}' } }, c, 'body'), { n: 7, list: [['a', 'b'], 'x7'], keep: 3, nested: { f: true } });
    assert.equal(render('{{tags|json}}', c, 'f'), '["a","b"]');
    assert.equal(render('{{tags|join:;}}', c, 'f'), 'a;b');
  });
  it('an undefined variable is a TemplateError naming it and the field, except under default:', () => {
    assert.throws(() => render('x {{vars.nope}}', ctx(), 'adapters.n.ops.search.path'), (e: unknown) => e instanceof TemplateError && e.variable === 'vars.nope' && /adapters\.n\.ops\.search\.path/.test(e.message));
    assert.throws(() => render('{{env.MISSING}}', ctx(), 'f'), TemplateError);
    assert.equal(render('{{env.MISSING|default:http://localhost:1933}}', ctx(), 'f'), 'http://localhost:1933');
    assert.equal(render('{{env.EMPTY|default:d}}', ctx(), 'f'), 'd');
    assert.equal(render('{{env.TOKEN|default:d}}', ctx(), 'f'), 'abc');
    assert.throws(() => render('{{query|bogus}}', ctx({ query: 'q' }), 'f'), /unknown filter `bogus`/);
    assert.throws(() => render('{{vars.a}}', ctx({}, { a: '{{vars.b}}', b: '{{vars.a}}' }), 'f'), /cycle/);
  });
  it('filters lower, upper, trim, slug', () => {
    const c = ctx({ t: '  Hello Wörld/X  ' });
    assert.equal(render('{{t|trim|lower}}', c, 'f'), 'hello wörld/x');
    assert.equal(render('{{t|upper|trim}}', c, 'f'), 'HELLO WÖRLD/X');
    assert.equal(render('{{t|slug}}', c, 'f'), 'hello-world-x');
  });
});

describe('adapters: formats', () => {
  it('json, jsonl, lines, text', () => {
    assert.deepEqual(parsePayload('{"a":1}', 'json'), { a: 1 });
    assert.throws(() => parsePayload('{nope', 'json'), FormatError);
    assert.deepEqual(parsePayload('{"a":1}\n\n{"a":2}\n', 'jsonl'), [{ a: 1 }, { a: 2 }]);
    assert.throws(() => parsePayload('{"a":1}\nbad\n', 'jsonl'), /line 2/);
    assert.deepEqual(parsePayload('x\r\n\ny\n', 'lines'), ['x', 'y']);
    assert.equal(parsePayload(' t ', 'text'), ' t ');
  });
  it('auto: JSON, JSON after log lines, JSON lines, else text; empty is null', () => {
    assert.deepEqual(parsePayload('[1,2]'), [1, 2]);
    assert.deepEqual(parsePayload('INFO starting\nwarn: slow\n{\n "results": [1]\n}\n'), { results: [1] });
    assert.deepEqual(parsePayload('{"type":"match"}\n{"type":"end"}'), [{ type: 'match' }, { type: 'end' }]);
    assert.equal(parsePayload('plain answer\n'), 'plain answer\n');
    assert.equal(parsePayload('  \n'), null);
  });
});

describe('adapters: result mapping', () => {
  const payload = { result: { a: [{ name: 'n1', summary: 's1', url: 'u1', score: '0.5', type: 'note' }], b: [{ name: 'n2' }] }, items: [{ title: 'x' }] };
  it('the path language: a.b, a[0], a[*], result.*[*]', () => {
    assert.deepEqual(parsePath('result.*[*].name'), [{ key: 'result' }, { all: 'values' }, { all: 'elements' }, { key: 'name' }]);
    assert.deepEqual(selectPath(payload, 'result.*[*].name').values, ['n1', 'n2']);
    assert.equal(getPath(payload, 'result.a[0].url'), 'u1');
    assert.deepEqual(selectPath(payload, 'items[*].title').values, ['x']);
    assert.equal(getPath(payload, 'result.zz'), undefined);
  });
  it('items, top-level array, first array under the usual keys, whole payload, where', () => {
    assert.equal(selectItems(payload, { items: 'result.*[*]' }).length, 2);
    assert.deepEqual(selectItems([1, 2], {}), [1, 2]);
    assert.deepEqual(selectItems({ meta: 1, hits: [{ a: 1 }], data: [{ b: 1 }] }, {}), [{ a: 1 }]);
    for (const k of ['results', 'items', 'hits', 'data', 'matches', 'entries', 'memories', 'documents']) assert.deepEqual(selectItems({ [k]: [k] }, {}), [k]);
    assert.deepEqual(selectItems({ one: 'thing' }, {}), [{ one: 'thing' }]);
    assert.deepEqual(selectItems(null, {}), []);
    assert.deepEqual(selectItems([{ type: 'match', n: 1 }, { type: 'end' }, { type: 'match', n: 2 }], { where: { type: 'match' } }).length, 2);
    assert.deepEqual(selectItems([{ id: '1' }, { id: 2 }], { where: { id: 1 } }), [{ id: '1' }]);
    assert.throws(() => selectItems({ other: 1 }, { items: 'results' }), MappingError);
  });
  it('split cuts text at lines starting with the prefix into {title, text, raw}', () => {
    const pieces = splitText('preamble\n### One\nbody 1\n### Two\nbody 2\nmore\n', '### ');
    assert.deepEqual(pieces, [{ title: 'One', text: 'body 1', raw: '### One\nbody 1' }, { title: 'Two', text: 'body 2\nmore', raw: '### Two\nbody 2\nmore' }]);
    assert.deepEqual(mapItems('### A\nx\n', { split: '### ' }, 'n').map(i => [i.title, i.snippet]), [['A', 'x']]);
  });
  it('map: path, a|b, re:, tpl:, =literal; fallbacks to the usual names', () => {
    const items = mapItems(payload, { items: 'result.*[*]', map: { title: 'missing|name', uri: 'tpl:notes://{{name}}', kind: '=note', snippet: 're:^.*"summary":"([^"]+)"' } }, 'notes');
    assert.equal(items[0]!.title, 'n1');
    assert.equal(items[0]!.uri, 'notes://n1');
    assert.equal(items[0]!.kind, 'note');
    assert.equal(items[0]!.snippet, 's1');
    assert.equal(items[0]!.score, 0.5);
    const fb = mapItems([{ name: 'N', abstract: 'A', link: 'L', relevance: 3, created_at: '2024-01-01', file: 'f.ts', line_number: '12' }], {}, 'x')[0]!;
    assert.deepEqual([fb.title, fb.snippet, fb.uri, fb.score, fb.date, fb.path, fb.line], ['N', 'A', 'L', 3, '2024-01-01', 'f.ts', 12]);
    assert.equal(mapItems([{ weird: true }], {}, 'x')[0]!.title, 'x result 1');
  });
  it('text answers: a path, or the usual text fields, or JSON', () => {
    assert.equal(mapText({ result: 'R' }, { text: 'result' }), 'R');
    assert.throws(() => mapText({}, { text: 'result' }), MappingError);
    assert.equal(mapText({ content: 'C' }, {}), 'C');
    assert.equal(mapText('plain', {}), 'plain');
    assert.match(mapText({ a: 1 }, {}), /"a": 1/);
  });
  it('MCP payload: structuredContent, else text parsed as JSON, else text', () => {
    assert.deepEqual(mcpPayload({ structuredContent: { a: 1 }, content: [{ type: 'text', text: 'x' }] }), { a: 1 });
    assert.deepEqual(mcpPayload({ content: [{ type: 'text', text: '{"b":2}' }] }), { b: 2 });
    assert.equal(mcpPayload({ content: [{ type: 'text', text: '{broken' }] }), '{broken');
  });
});

describe('adapters: MCP argument binding', () => {
  const schema = (props: Record<string, string>, required: string[] = []) => ({ type: 'object', properties: Object.fromEntries(Object.entries(props).map(([k, t]) => [k, { type: t }])), required });
  it('query role in the spec order, limit and project by name, types converted', () => {
    const r = bindArguments('search', schema({ substring_pattern: 'string', max_results: 'integer', projectPath: 'string' }), { query: 'foo', limit: 5.7, project: '/r' });
    assert.deepEqual(r.args, { substring_pattern: 'foo', max_results: 5, projectPath: '/r' });
    assert.equal(bindArguments('search', schema({ name: 'string', query: 'string' }), { query: 'q' }).args.query, 'q');
    assert.deepEqual(bindArguments('code', schema({ Q: 'string', top_k: 'string' }), { query: 'x', limit: 3 }).args, { Q: 'x', top_k: '3' });
  });
  it('history target, read uri, store content/title/tags, llm prompt', () => {
    assert.deepEqual(bindArguments('history', schema({ relative_path: 'string', n: 'number' }), { target: 'a.ts:3', limit: 2 }).args, { relative_path: 'a.ts:3', n: 2 });
    assert.deepEqual(bindArguments('read', schema({ resource: 'string' }), { uri: 'notes://1' }).args, { resource: 'notes://1' });
    assert.deepEqual(bindArguments('store', schema({ markdown: 'string', subject: 'string', labels: 'array' }), { content: '# x', title: 'T', tags: 'a, b' }).args, { markdown: '# x', subject: 'T', labels: ['a', 'b'] });
    assert.deepEqual(bindArguments('store', schema({ text: 'string', name: 'string' }), { content: 'C', title: 'T' }).args, { text: 'C', name: 'T' });
    assert.deepEqual(bindArguments('llm', schema({ message: 'string' }), { prompt: 'hi' }).args, { message: 'hi' });
  });
  it('a required string that nothing matched gets the main value; others are reported missing', () => {
    const r = bindArguments('search', schema({ zzz: 'string', count: 'integer', other: 'integer' }, ['zzz', 'other']), { query: 'main', limit: 4 });
    assert.deepEqual(r.args, { zzz: 'main', count: 4 });
    assert.deepEqual(r.missing, ['other']);
    assert.equal(r.bound.zzz, 'main');
  });
  it('type conversion', () => {
    assert.equal(convert('12', 'integer'), 12);
    assert.equal(convert('x', 'integer'), undefined);
    assert.equal(convert('false', 'boolean'), false);
    assert.equal(convert(['a', 'b'], 'string'), 'a, b');
    assert.deepEqual(convert(3, 'array'), [3]);
    assert.equal(bindArguments('search', { type: 'object', properties: { query: { anyOf: [{ type: 'null' }, { type: 'integer' }] } } }, { query: '42' }).args.query, 42);
  });
});

describe('adapters: when', () => {
  let dir: string;
  before(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'sightline-when-')));
    mkdirSync(join(dir, 'bin')); mkdirSync(join(dir, 'notes'));
    writeFileSync(join(dir, 'bin', 'codegraph'), '#!/bin/sh\n'); chmodSync(join(dir, 'bin', 'codegraph'), 0o755);
    writeFileSync(join(dir, 'bin', 'notexec'), 'x'); chmodSync(join(dir, 'bin', 'notexec'), 0o644);
    writeFileSync(join(dir, '.codegraph'), '');
    writeFileSync(join(dir, 'notes', 'acme-shop.json'), '{}');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const w = (env: NodeJS.ProcessEnv) => {
    const repo = { ...REPO, root: dir };
    return { repo, env, ctx: baseContext({ repo, projectName: 'p', env }) };
  };
  it('command: on PATH (executable), never run', () => {
    const env = { PATH: join(dir, 'bin') };
    assert.ok(onPath('codegraph', env));
    assert.equal(onPath('notexec', env), undefined);
    assert.deepEqual(evaluateWhen({ command: 'codegraph', file: '.codegraph' }, w(env)), { ok: true });
    const r = evaluateWhen({ command: 'nope-cmd', file: '.codegraph' }, w(env));
    assert.ok(!r.ok && r.reason === 'command `nope-cmd` not on PATH' && r.failed.length === 1);
  });
  it('file: in the repository root', () => {
    const r = evaluateWhen({ file: '.missing' }, w({}));
    assert.ok(!r.ok && /file `.missing` not in the repository root/.test(r.reason));
  });
  it('repo: a regex on the repository id or its origin identity', () => {
    assert.ok(evaluateWhen({ repo: 'github.com/acme/(shop|billing)' }, w({})).ok);
    assert.ok(evaluateWhen({ repo: '^shop-' }, w({})).ok);
    const r = evaluateWhen({ repo: 'github.com/other/x' }, w({}));
    assert.ok(!r.ok && /does not match/.test(r.reason));
    assert.ok(!evaluateWhen({ repo: '(' }, w({})).ok);
  });
  it('env: set and non-empty', () => {
    assert.ok(evaluateWhen({ env: 'NOTES_TOKEN' }, w({ NOTES_TOKEN: 't' })).ok);
    const r = evaluateWhen({ env: 'NOTES_TOKEN' }, w({ NOTES_TOKEN: '' }));
    assert.ok(!r.ok && /`NOTES_TOKEN` is not set/.test(r.reason));
  });
  it('exists: templated, `*` in the last segment only', () => {
    const env = { HOME: dir };
    assert.ok(evaluateWhen({ exists: '{{env.HOME}}/notes/{{repo.slug}}.json' }, w(env)).ok);
    assert.ok(evaluateWhen({ exists: '{{env.HOME}}/notes/*.json' }, w(env)).ok);
    assert.ok(!evaluateWhen({ exists: '{{env.HOME}}/notes/*.yaml' }, w(env)).ok);
    assert.equal(pathExists(join(dir, '*', 'acme-shop.json'), dir), false);
    const t = evaluateWhen({ exists: '{{env.NOPE}}/x' }, w(env));
    assert.ok(!t.ok && /undefined variable `env.NOPE`/.test(t.reason));
  });
  it('all conditions must hold; every failure is named', () => {
    const r = evaluateWhen({ command: 'codegraph', env: 'NOPE', file: '.missing' }, w({ PATH: join(dir, 'bin') }));
    assert.ok(!r.ok && r.failed.map(f => f.condition).join(',') === 'file,env');
  });
});

describe('adapters: config', () => {
  let dir: string;
  beforeEach(() => { dir = realpathSync(mkdtempSync(join(tmpdir(), 'sightline-adcfg-'))); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const file = (rel: string, text: string) => { const p = join(dir, rel); mkdirSync(join(p, '..'), { recursive: true }); writeFileSync(p, text); return p; };

  it('the user file follows XDG_CONFIG_HOME', () => {
    if (process.platform === 'linux') assert.equal(userConfigPath({ XDG_CONFIG_HOME: '/x/cfg' }), '/x/cfg/sightline/config.toml');
  });
  it('layers merge per adapter and per field; defaults apply', () => {
    const user = file('user.toml', `[adapters.notes]\ndriver = "http"\nbase_url = "http://127.0.0.1:1"\ntimeout_ms = 500\nvars = { a = "1", b = "2" }\n[adapters.notes.ops.search]\npath = "/s"\n[adapters.notes.ops.read]\npath = "/r"\n`);
    const root = join(dir, 'repo'); mkdirSync(root);
    file('repo/.sightline/config.toml', `[adapters.notes]\nweight = 0.5\nvars = { b = "3" }\n[adapters.notes.ops.search]\npath = "/s2"\n`);
    const c = loadAdapterConfig({ roots: [root], userConfigPath: user, settings: { notes: { timeout_ms: 700 } } });
    assert.deepEqual(c.errors, []);
    const n = c.adapters.get('notes')!;
    assert.equal(n.config.timeout_ms, 700);
    assert.equal(n.config.weight, 0.5);
    assert.deepEqual(n.config.vars, { a: '1', b: '3' });
    assert.equal(n.config.ops.search!.path, '/s2');
    assert.equal(n.config.ops.read!.path, '/r');
    assert.equal(n.config.expose, 'none');
    assert.equal(n.config.prefix, 'notes_');
    assert.equal(n.fromRepo, true);
    assert.deepEqual(n.layers.map(l => l.kind), ['user', 'settings', 'repo']);
    const d = loadAdapterConfig({ roots: [], settings: { x: { driver: 'command', command: ['true'], ops: { brief: {} } } }, userConfigPath: null }).adapters.get('x')!;
    assert.deepEqual([d.config.timeout_ms, d.config.weight, d.config.enabled, d.fromRepo], [10000, 0.9, true, false]);
  });
  it('a TOML syntax error names the file, line and column', () => {
    const p = file('bad.toml', `[adapters.a]\ndriver = "http"\nurl = "x\n`);
    const e = loadAdapterConfig({ roots: [], userConfigPath: p }).errors[0]!;
    assert.equal(e.source, p);
    assert.equal(e.line, 3);
    assert.match(e.message, new RegExp(`^${p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:3:\\d+: TOML syntax error`));
  });
  it('an unknown field (a typo) is an error naming the field, its line and path', () => {
    const p = file('typo.toml', `# notes\n[adapters.notes]\ndriver = "http"\nbase_url = "http://x"\n\n[adapters.notes.ops.search]\npath = "/s"\ntiemout_ms = 5\n`);
    const c = loadAdapterConfig({ roots: [], userConfigPath: p });
    assert.equal(c.adapters.size, 0);
    const e = c.errors[0]!;
    assert.equal(e.line, 8);
    assert.equal(e.field, 'adapters.notes.ops.search');
    assert.match(e.message, /typo\.toml:8: adapters\.notes\.ops\.search: unknown field `tiemout_ms`/);
  });
  it('a wrong type, an unknown op, inline tables, and checks across fields', () => {
    const p = file('types.toml', `[adapters.a]\ndriver = "http"\nbase_url = "http://x"\ntimeout_ms = "fast"\n[adapters.b]\ndriver = "http"\nurl = "http://x"\nops.serch = { path = "/" }\n[adapters.c]\ndriver = "mcp"\nwhen = { command = "x", fiel = "y" }\ncommand = ["x"]\n[adapters.d]\ndriver = "mcp"\ncommand = ["srv"]\n[adapters.d.ops.search]\nmethod = "GET"\n[adapters.e]\ndriver = "command"\n[adapters.e.ops.brief]\nstdin = "x"\n[[adapters.e.on]]\nevent = "sync"\nop = "store"\n`);
    const errs = loadAdapterConfig({ roots: [], userConfigPath: p }).errors;
    const by = (n: string) => errs.find(e => e.adapter === n)!;
    assert.equal(by('a').line, 4); assert.equal(by('a').field, 'adapters.a.timeout_ms');
    assert.equal(by('b').line, 8); assert.match(by('b').message, /unknown operation `serch`/);
    assert.equal(by('c').line, 11); assert.match(by('c').message, /adapters\.c\.when: unknown field `fiel`/);
    assert.equal(by('d').line, 17); assert.match(by('d').message, /adapters\.d\.ops\.search\.method: does not apply to driver mcp/);
    assert.match(by('e').message, /a command operation needs `command`/);
  });
  it('on, tools and expose are parsed and validated', () => {
    const ok = loadAdapterConfig({ roots: [], userConfigPath: null, settings: { notes: { driver: 'http', base_url: 'http://x', ops: { store: { path: '/s' }, search: { path: '/q' } }, on: [{ event: 'sync', op: 'store', kinds: ['decision'] }], tools: [{ name: 'notes_recent', description: 'Recent', params: { tag: 'string', q: 'string!' }, op: { method: 'GET', path: '/recent', text: 'items' } }, { name: 'notes_find', description: 'Find', op: 'search' }] }, cg: { driver: 'mcp', command: ['cg'], expose: ['cg_explore'] } } });
    assert.deepEqual(ok.errors, []);
    assert.equal(ok.adapters.get('notes')!.config.on[0]!.event, 'sync');
    const bad = loadAdapterConfig({ roots: [], userConfigPath: null, settings: { n: { driver: 'http', base_url: 'http://x', ops: { search: {} }, on: [{ event: 'sync', op: 'store' }] }, t: { driver: 'http', base_url: 'http://x', tools: [{ name: 'x', description: 'd', op: 'read' }] }, v: { driver: 'http', base_url: 'http://x', on: [{ event: 'later', op: 'x' }] } } }).errors;
    assert.match(bad.find(e => e.adapter === 'n')!.message, /settings sightline\.adapters: adapters\.n\.on\.0\.op: `store` is not an operation/);
    assert.match(bad.find(e => e.adapter === 't')!.message, /`read` is not an operation/);
    assert.match(bad.find(e => e.adapter === 'v')!.message, /adapters\.v\.on\.0\.event/);
  });
  it('lineOfKey finds headers, dotted keys, array tables and inline keys', () => {
    const t = `[adapters.n]\ndriver = "mcp"\nops.search.tool = "s"\n[[adapters.n.tools]]\nname = "a"\n[[adapters.n.tools]]\nname = "b"\nop = { path = "/x", bogus = 1 }\n`;
    assert.equal(lineOfKey(t, ['adapters', 'n', 'driver']), 2);
    assert.equal(lineOfKey(t, ['adapters', 'n', 'ops', 'search', 'tool']), 3);
    assert.equal(lineOfKey(t, ['adapters', 'n', 'tools', 1, 'name']), 7);
    assert.equal(lineOfKey(t, ['adapters', 'n', 'tools', 1, 'op', 'bogus']), 8);
  });
});

describe('adapters: trust hashing, declared tools, names', () => {
  it('canonical JSON sorts keys at every level; the hash follows any change', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } }), '{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}');
    assert.equal(adaptersHash({ a: { x: 1, y: 2 } }), adaptersHash({ a: { y: 2, x: 1 } }));
    assert.notEqual(adaptersHash({ a: { x: 1 } }), adaptersHash({ a: { x: 2 } }));
  });
  it('params → JSON schema with `!` required; a full schema passes through', () => {
    assert.deepEqual(paramsSchema({ tag: 'string', q: 'string!', n: 'integer' }), { type: 'object', properties: { tag: { type: 'string' }, q: { type: 'string' }, n: { type: 'integer' } }, required: ['q'] });
    const full = { type: 'object' as const, properties: { a: { type: 'string' } } };
    assert.equal(paramsSchema(full), full);
  });
  it('the prefix is not doubled; origin identities', () => {
    assert.equal(exposedName('codegraph_', 'codegraph_explore'), 'codegraph_explore');
    assert.equal(exposedName('codegraph_', 'explore'), 'codegraph_explore');
    assert.equal(remoteIdentity('git@github.com:acme/shop.git'), 'github.com/acme/shop');
    assert.equal(remoteIdentity('https://user@GitHub.com/acme/billing/'), 'github.com/acme/billing');
  });
});
