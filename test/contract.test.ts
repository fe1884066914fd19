/**
 * The contract canon, driven by the registry: naming, typed and described parameters, one accessor,
 * one error shape, one pagination scheme, output schemas that hold, and the golden tools list.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { TOOL_LIST, TOOL_NAMES } from '../src/core/tools/registry';
import { invokeTool, jsonSchema, parameterReads, fitJson, PAGE_MAX_LIMIT } from '../src/core/tools/contract';
import { TOKEN_BUDGET_MIN, TOKEN_BUDGET_MAX } from '../src/core/tools/shared';
import { toolsList } from '../src/core/tools/golden';
import { publishedOutputSchema } from '../src/core/tools/wire_schema';
import Ajv from 'ajv';
import { Engine } from '../src/core/engine';
import { VERSION } from '../src/core/version';
import { manifestTools, lmToolName } from '../src/core/tools/manifest';
import { ERROR_CODES } from '../src/core/errors';
import { tempWorkspace, SAMPLE_FILES, type TempWorkspace } from './helpers/workspace';
import { LANGUAGE_IDS } from '../src/core/languages/types';

const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const GOLDEN = join(__dirname, 'golden', 'tools_list.json');

type Json = Record<string, unknown>;

/** Every property schema in a JSON schema, with its dotted path. */
function properties(schema: Json, path = ''): { path: string; name: string; schema: Json }[] {
  const out: { path: string; name: string; schema: Json }[] = [];
  const props = (schema.properties ?? {}) as Record<string, Json>;
  for (const [name, s] of Object.entries(props)) {
    out.push({ path: path ? `${path}.${name}` : name, name, schema: s });
    const inner = s.type === 'array' ? (s.items as Json | undefined) : s;
    const variants = [inner, ...(((inner?.anyOf ?? []) as Json[]))].filter(Boolean) as Json[];
    for (const v of variants) if (v.type === 'object' || v.properties) out.push(...properties(v, path ? `${path}.${name}` : name));
  }
  return out;
}

function typed(s: Json): boolean {
  if (s.type) return true;
  if (Array.isArray(s.anyOf)) return (s.anyOf as Json[]).every(typed);
  if (Array.isArray(s.enum)) return true;
  return false;
}

describe('tool contract', () => {
  let ws: TempWorkspace;
  let engine: Engine;
  before(async () => {
    ws = tempWorkspace(SAMPLE_FILES);
    // a real git repository with the refs the examples name (context_for_change: base main, branch feature)
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ws.root, env: { ...process.env, GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '--no-verify', '-m', 'sample');
    git('checkout', '-q', '-b', 'feature');
    ws.write('src/users.ts', `${readFileSync(join(ws.root, 'src/users.ts'), 'utf8')}\nexport const FEATURE_FLAG = true;\n`);
    git('commit', '-q', '--no-verify', '-am', 'feature');
    git('checkout', '-q', 'main');
    engine = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    await engine.index();
  });
  after(() => { engine.close(); ws.remove(); });

  /** Examples name ids of a made-up repository; point them at the fixture's real ones. */
  async function withRealIds(args: Json): Promise<void> {
    const real = engine.roots[0]!.repo_id;
    const fix = (v: unknown): unknown => (typeof v === 'string' ? v.replace(/demo-0123abcd/g, real) : Array.isArray(v) ? v.map(fix) : v);
    for (const k of Object.keys(args)) args[k] = fix(args[k]);
  }

  it('registry names are snake_case, unique and match TOOL_NAMES', () => {
    const names = TOOL_LIST.map(t => t.name);
    assert.deepEqual(names, [...TOOL_NAMES]);
    assert.equal(new Set(names).size, names.length);
    for (const n of names) assert.match(n, SNAKE, n);
  });

  for (const tool of TOOL_LIST) {
    describe(tool.name, () => {
      it('has a meaningful description and title', () => {
        assert.ok(tool.description.length > 80, 'description too short');
        assert.ok(tool.title.length > 3);
      });

      for (const io of ['input', 'output'] as const) {
        it(`${io} schema: every property snake_case, typed and described; required ⊆ properties`, () => {
          const schema = jsonSchema(tool[io], io) as Json;
          assert.equal(schema.type, 'object');
          const props = properties(schema);
          if (io === 'input') assert.ok(props.length > 0 || tool.name === 'index_status');
          for (const p of props) {
            assert.match(p.name, SNAKE, `${tool.name}.${p.path} is not snake_case`);
            assert.ok(typed(p.schema), `${tool.name}.${p.path} has no type`);
            if (io === 'input' || !p.path.includes('.')) assert.ok(typeof p.schema.description === 'string' && (p.schema.description as string).length > 3, `${tool.name}.${p.path} has no description`);
          }
          const check = (s: Json, where: string) => {
            const req = (s.required ?? []) as string[];
            const keys = Object.keys((s.properties ?? {}) as Json);
            for (const r of req) assert.ok(keys.includes(r), `${where}: required ${r} is not a property`);
          };
          check(schema, tool.name);
        });
      }

      it('reads every declared parameter through the accessor, and nothing else', async () => {
        parameterReads.delete(tool.name);
        for (const ex of tool.examples) {
          const args = JSON.parse(JSON.stringify(ex)) as Json;
          if (args.repo === '.') args.repo = ws.root;
          await withRealIds(args);
          const out = await invokeTool(tool, args, { engine });
          assert.ok(out.ok, `example failed: ${JSON.stringify(out)}`);
        }
        const declared = Object.keys(tool.input.shape).sort();
        assert.deepEqual([...(parameterReads.get(tool.name) ?? [])].sort(), declared);
        const exampleKeys = new Set(tool.examples.flatMap(e => Object.keys(e as object)));
        assert.deepEqual([...exampleKeys].sort(), declared, 'examples must exercise every parameter');
      });

      it('rejects unknown and mistyped arguments with the one error shape', async () => {
        const unknown = await invokeTool(tool, { not_a_parameter: 1 }, { engine });
        assert.equal(unknown.ok, false);
        if (!unknown.ok) {
          assert.equal(unknown.error.code, 'invalid_arguments');
          assert.match(unknown.error.message, /not_a_parameter/);
          assert.ok((ERROR_CODES as readonly string[]).includes(unknown.error.code));
          assert.match(unknown.markdown, /invalid_arguments/);
        }
        const notObject = await invokeTool(tool, [1, 2], { engine });
        assert.equal(notObject.ok, false);
        if (!notObject.ok) assert.equal(notObject.error.code, 'invalid_arguments');
      });

      it('results satisfy the declared output schema', async () => {
        for (const ex of tool.examples) {
          const args = JSON.parse(JSON.stringify(ex)) as Json;
          if (args.repo === '.') args.repo = ws.root;
          await withRealIds(args);
          const out = await invokeTool(tool, args, { engine });
          assert.ok(out.ok);
          if (out.ok) {
            const parsed = tool.output.strict().safeParse(out.data);
            assert.ok(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 3)));
            const published = new Ajv({ strict: false }).compile(publishedOutputSchema(tool.output));
            assert.ok(published(out.data), `published output schema: ${JSON.stringify(published.errors?.slice(0, 3))}`);
            assert.ok(out.markdown.length > 10 && out.markdown.startsWith('**'), 'compact Markdown rendering');
          }
        }
      });
    });
  }

  it('an unknown repo is an error in every tool that takes one, never "all repositories"', async () => {
    for (const tool of TOOL_LIST.filter(t => 'repo' in t.input.shape)) {
      for (const bad of ['no_such_repo', 'src/no/such/folder']) {
        const args = JSON.parse(JSON.stringify(tool.examples[0])) as Json;
        await withRealIds(args);
        args.repo = bad;
        const out = await invokeTool(tool, args, { engine });
        assert.equal(out.ok, false, `${tool.name} accepted repo ${bad}`);
        if (!out.ok) assert.equal(out.error.code, 'not_found', `${tool.name}: ${out.error.message}`);
      }
      const args = JSON.parse(JSON.stringify(tool.examples[0])) as Json;
      await withRealIds(args);
      args.repo = basename(ws.root);
      const byName = await invokeTool(tool, args, { engine });
      assert.ok(byName.ok || byName.error.code !== 'not_found' || !/no repository/.test(byName.error.message), `${tool.name}: a root's name is a repo`);
    }
  });

  it('search_code: a path outside the workspace is an error; a path that keeps no file says so', async () => {
    const search = TOOL_LIST.find(t => t.name === 'search_code')!;
    const outside = await invokeTool(search, { query: 'user', path: '/etc/**' }, { engine });
    assert.equal(outside.ok, false);
    if (!outside.ok) assert.equal(outside.error.code, 'path_outside_workspace');
    const none = await invokeTool(search, { query: 'user', path: 'no/such/dir/**' }, { engine });
    assert.ok(none.ok);
    if (none.ok) assert.deepEqual(none.data.warnings, ['no indexed file matches path no/such/dir/**']);
    const absolute = await invokeTool(search, { query: 'user', path: `${ws.root}/src/**` }, { engine });
    assert.ok(absolute.ok && (absolute.data.total as number) > 0, 'an absolute glob inside a root is made relative to it');
  });

  it('one name and one policy per concept: limit up to PAGE_MAX_LIMIT, token budgets 100–100,000 tokens', () => {
    for (const tool of TOOL_LIST) {
      const props = (jsonSchema(tool.input, 'input') as Json).properties as Record<string, Json>;
      if (props.limit) assert.equal(props.limit.maximum, PAGE_MAX_LIMIT, `${tool.name}.limit`);
      for (const name of ['max_tokens', 'max_chars', 'tokens', 'max_results']) assert.ok(!props[name], `${tool.name} uses ${name}`);
      const budget = props.token_budget ?? (tool.name === 'overview' ? props.budget : undefined);
      if (tool.name === 'overview') assert.ok(props.budget && !props.token_budget, 'overview keeps budget (its contract names it so)');
      else assert.ok(!props.budget, `${tool.name}: the token budget is token_budget`);
      if (budget) assert.deepEqual([budget.minimum, budget.maximum], [TOKEN_BUDGET_MIN, TOKEN_BUDGET_MAX], tool.name);
    }
  });

  it('a former parameter name is accepted for one release, with a notice; both names at once are invalid', async () => {
    const getChunk = TOOL_LIST.find(t => t.name === 'get_chunk')!;
    const search = await invokeTool(TOOL_LIST.find(t => t.name === 'search_code')!, { query: 'getUserName', limit: 1 }, { engine });
    assert.ok(search.ok);
    const id = ((search.data.files as Json[])[0]!.chunks as Json[])[0]!.chunk_id as string;
    const old = await invokeTool(getChunk, { chunk_id: id, max_tokens: 100 }, { engine });
    assert.ok(old.ok, JSON.stringify(old));
    const now = await invokeTool(getChunk, { chunk_id: id, token_budget: 100 }, { engine });
    assert.ok(now.ok);
    if (old.ok && now.ok) {
      assert.deepEqual(old.data, now.data);
      assert.match(old.markdown, /`max_tokens` is the former name of `token_budget`/);
      assert.doesNotMatch(now.markdown, /former name/);
    }
    const both = await invokeTool(getChunk, { chunk_id: id, max_tokens: 100, token_budget: 100 }, { engine });
    assert.equal(both.ok, false);
    if (!both.ok) assert.equal(both.error.code, 'invalid_arguments');
  });

  it('every paged tool uses the shared limit/offset and page fields', () => {
    for (const tool of TOOL_LIST) {
      const inKeys = Object.keys(tool.input.shape);
      const outKeys = Object.keys(tool.output.shape);
      const pagedIn = inKeys.includes('limit') || inKeys.includes('offset');
      if (!pagedIn) continue;
      assert.ok(inKeys.includes('limit') && inKeys.includes('offset'), `${tool.name}: limit and offset come together`);
      for (const k of ['total', 'offset', 'limit', 'truncated', 'next_offset']) assert.ok(outKeys.includes(k), `${tool.name} output lacks ${k}`);
      for (const bad of ['max_results', 'page', 'page_size', 'cursor', 'max_depth']) assert.ok(!inKeys.includes(bad), `${tool.name} uses ${bad}`);
    }
  });

  it('pagination: the notice and next_offset agree with totals', async () => {
    const first = await invokeTool(TOOL_LIST.find(t => t.name === 'search_code')!, { query: 'id name user', limit: 1 }, { engine });
    assert.ok(first.ok);
    if (!first.ok) return;
    const d = first.data as { total: number; truncated: boolean; next_offset: number | null };
    assert.ok(d.total > 1);
    assert.equal(d.truncated, true);
    assert.equal(d.next_offset, 1);
    assert.match(first.markdown, new RegExp(`Showing 1–1 of ${d.total} files\\. Call again with offset=1`));
    const last = await invokeTool(TOOL_LIST.find(t => t.name === 'search_code')!, { query: 'id name user', limit: 100, offset: d.total - 1 }, { engine });
    assert.ok(last.ok && (last.data as { truncated: boolean }).truncated === false && (last.data as { next_offset: null }).next_offset === null);
  });

  it('the model-visible tool list (names, descriptions, input schemas) stays within ~1,000 characters a tool on average', () => {
    const sizes = TOOL_LIST.map(t => t.name.length + t.description.length + JSON.stringify(jsonSchema(t.input, 'input')).length);
    const avg = sizes.reduce((a, b) => a + b, 0) / sizes.length;
    assert.ok(avg <= 1000, `average ${Math.round(avg)} characters a tool: ${TOOL_LIST.map((t, i) => `${t.name} ${sizes[i]}`).join(', ')}`);
  });

  it('published output schemas: every top-level field typed and required as in the full schema; 40,000 characters for all', () => {
    let total = 0;
    for (const tool of TOOL_LIST) {
      const full = jsonSchema(tool.output, 'output') as Json;
      const wire = publishedOutputSchema(tool.output);
      total += JSON.stringify(wire).length;
      assert.deepEqual(Object.keys(wire.properties as Json), Object.keys(full.properties as Json), tool.name);
      assert.deepEqual(wire.required, full.required, `${tool.name}: required`);
      for (const [name, p] of Object.entries(wire.properties as Record<string, Json>)) {
        assert.ok(typed(p) || typeof p.$ref === 'string', `${tool.name}.${name} has no type`);
      }
      const refs = JSON.stringify(wire).match(/#\/\$defs\/[a-z_0-9]+/g) ?? [];
      for (const r of refs) assert.ok((wire.$defs as Json)[r.slice(8)], `${tool.name}: ${r} is defined`);
    }
    assert.ok(total <= 40_000, `published output schemas take ${total} characters`);
  });

  it('a published output schema refuses what the tool would never answer', () => {
    const impact = TOOL_LIST.find(t => t.name === 'impact')!;
    const validate = new Ajv({ strict: false }).compile(publishedOutputSchema(impact.output));
    assert.equal(validate({ target: 'x' }), false, 'missing required fields');
    assert.equal(validate({}), false);
  });

  it('structured answers are trimmed to the budget from the end of their lists, with paging that resumes exactly', () => {
    const items = Array.from({ length: 400 }, (_, i) => ({ id: `item-${i}`, text: 'x'.repeat(200) }));
    const data = { results: items, other: items.slice(0, 50), total: 400, offset: 0, limit: 400, truncated: false, next_offset: null };
    const fit = fitJson(data, 20_000, 'results');
    assert.ok(JSON.stringify(fit).length <= 20_000, String(JSON.stringify(fit).length));
    const kept = (fit.results as unknown[]).length;
    assert.ok(kept > 0 && kept < 400);
    assert.equal(fit.truncated, true);
    assert.equal(fit.next_offset, kept, 'the next page starts at the first item left out');
    assert.deepEqual((fit.results as { id: string }[])[kept - 1]!.id, `item-${kept - 1}`, 'items are dropped from the end');
    assert.equal(fitJson(data, 1_000_000, 'results'), data, 'an answer within budget is untouched');
  });

  it('golden tools list matches byte for byte (regenerate with SIGHTLINE_UPDATE_GOLDEN=1)', () => {
    const now = JSON.stringify(toolsList(), null, 2) + '\n';
    if (process.env.SIGHTLINE_UPDATE_GOLDEN === '1') writeFileSync(GOLDEN, now);
    assert.ok(existsSync(GOLDEN), 'golden file missing: run with SIGHTLINE_UPDATE_GOLDEN=1 once, on purpose');
    assert.equal(now, readFileSync(GOLDEN, 'utf8'), 'the tools list changed: if on purpose, regenerate with SIGHTLINE_UPDATE_GOLDEN=1 and commit the diff');
  });

  it('the sightline.index.languages setting offers every language of the table (npm run sync-manifest)', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { contributes: { configuration: unknown } };
    const sections = [pkg.contributes.configuration].flat() as { properties?: Record<string, { items?: { enum?: string[] } }> }[];
    const setting = sections.map(x => x.properties?.['sightline.index.languages']).find(Boolean);
    assert.deepEqual(setting?.items?.enum, [...LANGUAGE_IDS]);
  });

  it('package.json language-model tools are generated from the registry (npm run sync-manifest)', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { contributes: Record<string, unknown> };
    const want = manifestTools();
    assert.deepEqual(pkg.contributes.languageModelTools, want.languageModelTools, 'package.json is out of date: run npm run sync-manifest');
    assert.deepEqual(pkg.contributes.languageModelToolSets, want.languageModelToolSets);
    const names = (pkg.contributes.languageModelTools as { name: string; inputSchema: unknown }[]).map(t => t.name);
    assert.deepEqual(names, TOOL_LIST.map(t => lmToolName(t.name)));
    for (const t of pkg.contributes.languageModelTools as { name: string; modelDescription: string; inputSchema: unknown }[]) {
      const def = TOOL_LIST.find(d => lmToolName(d.name) === t.name)!;
      assert.equal(t.modelDescription, def.description);
      assert.deepEqual(t.inputSchema, jsonSchema(def.input, 'input'));
    }
  });

  it('package.json version matches the engine version', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
    assert.equal(pkg.version, VERSION);
  });

  it('zod is the only schema source (no hand-written JSON schema in tools)', () => {
    for (const tool of TOOL_LIST) {
      assert.ok(tool.input instanceof z.ZodObject);
      assert.ok(tool.output instanceof z.ZodObject);
    }
  });
});
