/** analytics(kind): cycles, communities, dead code and hotspots on real files and a real git repository made here. */
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { Engine } from '../src/core/engine';
import { invokeTool } from '../src/core/tools/contract';
import { findTool } from '../src/core/tools/registry';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';
import { CLI_JS, requireBuilt } from './helpers/mcp';
import { sp } from './helpers/nodes';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('analytics', function () {
  this.timeout(120_000);
  const cleanup: (() => void)[] = [];
  after(() => { for (const c of cleanup) c(); });

  async function open(files: Record<string, string>, git?: (ws: TempWorkspace) => void): Promise<{ ws: TempWorkspace; engine: Engine }> {
    const ws = tempWorkspace(files);
    git?.(ws);
    const engine = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    cleanup.push(() => { engine.close(); ws.remove(); });
    await engine.index();
    return { ws, engine };
  }
  async function call(engine: Engine, args: Json): Promise<{ data: Json; markdown: string }> {
    const out = await invokeTool(findTool('analytics')!, args, { engine });
    assert.ok(out.ok, JSON.stringify(out));
    const parsed = findTool('analytics')!.output.strict().safeParse(out.data);
    assert.ok(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 3)));
    return { data: out.data as Json, markdown: out.markdown };
  }
  const paths = (c: Json) => c.members.map((m: Json) => m.path).sort();
  const names = (c: Json) => c.members.map((m: Json) => sp(m)).sort();

  it('cycles: reports a genuine import cycle a → b → c → a with its closing edges, not the file that only imports into it', async () => {
    const { engine } = await open({
      'src/a.ts': `import { b } from './b';\nexport function a(): number { return b() + 1; }\n`,
      'src/b.ts': `import { c } from './c';\nexport function b(): number { return c() + 1; }\n`,
      'src/c.ts': `import { a } from './a';\nexport function c(): number { return 0 && a(); }\n`,
      'src/d.ts': `import { a } from './a';\nexport const d = () => a();\n`,
    });
    const { data, markdown } = await call(engine, { kind: 'cycles' });
    assert.equal(data.level, 'file');
    assert.equal(data.total, 1, markdown);
    const c = data.results[0];
    assert.deepEqual(paths(c), ['src/a.ts', 'src/b.ts', 'src/c.ts']);
    assert.equal(c.size, 3);
    assert.equal(c.cycle.length, 4, 'closed walk a → b → c → a');
    assert.equal(c.cycle[0], c.cycle[3]);
    assert.ok(c.edges.length >= 3 && c.edges.every((e: Json) => e.kind === 'imports' && e.confidence >= 0.7 && /import/.test(e.evidence)), JSON.stringify(c.edges));
    assert.equal(c.fan_in, 1, 'd.ts imports a.ts');
    assert.ok(c.members.every((m: Json) => m.line >= 1));
    assert.match(markdown, /src\/a\.ts/);
    // the same three functions form a call cycle
    const sym = await call(engine, { kind: 'cycles', level: 'symbol' });
    assert.deepEqual(sym.data.results.map(names), [['a', 'b', 'c']]);
    // a path filter that cuts the cycle finds none, and says so
    const cut = await call(engine, { kind: 'cycles', path: 'src/{a,b}.ts' });
    assert.equal(cut.data.total, 0);
    assert.match(cut.markdown, /No cycles found/);
  });

  it('cycles: a call bound by a shared name cannot close a cycle; mutual recursion through self is reported', async () => {
    const { engine } = await open({
      'pkg/shut.py': `def shutdown(resource):\n    resource.close()\n    return True\n\n\nclass Pool:\n    def close(self):\n        return shutdown(self)\n\n    def drain(self):\n        return self.refill()\n\n    def refill(self):\n        return self.drain()\n`,
      'pkg/other.py': `class Socket:\n    def close(self):\n        return 1\n`,
    });
    const { data, markdown } = await call(engine, { kind: 'cycles', level: 'symbol' });
    const all = data.results.map(names);
    assert.deepEqual(all, [['Pool.drain', 'Pool.refill']], markdown);
    const c = data.results[0];
    assert.ok(c.edges.every((e: Json) => /self/.test(e.evidence) && e.confidence >= 0.8), JSON.stringify(c.edges));
    assert.ok(!all.flat().includes('shutdown'), 'shutdown → close is bound by a name two classes share');
    assert.ok(data.boundaries.some((b: Json) => b.kind === 'ambiguous_dispatch' && /name-only/.test(b.detail)), JSON.stringify(data.boundaries));
    assert.ok(data.repos[0].excluded_name_only_edges >= 1);
    // min_size 1 lists self-recursion too, and nothing more here
    const one = await call(engine, { kind: 'cycles', level: 'symbol', min_size: 1 });
    assert.equal(one.data.total, 1);
  });

  it('communities: separates two clearly separate clusters, deterministically, with modularity and labels', async () => {
    const files: Record<string, string> = {};
    for (const [dir, n] of [['alpha', 'al'], ['beta', 'be']] as const) {
      for (let i = 0; i < 4; i++) {
        const imports = [0, 1, 2, 3].filter(j => j !== i).map(j => `import { ${n}${j} } from './${n}${j}';`).join('\n');
        files[`${dir}/${n}${i}.ts`] = `${imports}\nexport function ${n}${i}(): number { return ${[0, 1, 2, 3].filter(j => j !== i).map(j => `${n}${j}.length`).join(' + ')}; }\n`;
      }
    }
    files['alpha/al2.ts'] += `import { be1 } from '../beta/be1';\nexport const bridge = () => be1();\nexport const hub = () => al0() + al1() + al3();\n`;
    files['beta/be1.ts'] += `export const hub = () => be0() + be2() + be3();\n`;
    const { engine } = await open(files);
    const { data, markdown } = await call(engine, { kind: 'communities' });
    assert.equal(data.total, 2, markdown);
    const sets = data.results.map((c: Json) => c.files.map((f: Json) => f.path).sort());
    assert.deepEqual(sets.sort(), [['alpha/al0.ts', 'alpha/al1.ts', 'alpha/al2.ts', 'alpha/al3.ts'], ['beta/be0.ts', 'beta/be1.ts', 'beta/be2.ts', 'beta/be3.ts']]);
    assert.deepEqual(data.results.map((c: Json) => c.label).sort(), ['alpha', 'beta']);
    assert.ok(data.repos[0].modularity > 0.3, `modularity ${data.repos[0].modularity}`);
    assert.ok(data.results.every((c: Json) => c.internal_weight > c.external_weight));
    const again = await call(engine, { kind: 'communities' });
    assert.deepEqual(again.data.results, data.results, 'seeded: the same answer twice');
    const firsts = data.results.map((c: Json) => c.files[0].path).sort();
    assert.deepEqual(firsts, ['alpha/al2.ts', 'beta/be1.ts'], 'file level: the most connected file first (the bridge ends)');
    assert.ok(data.results.every((c: Json) => !('top_members' in c) && c.files.every((f: Json) => !('members' in f))), 'file level: members are the files, not repeated');
    assert.match(markdown, /most connected first:\n {2}alpha\/al2\.ts, /);
    const sym = await call(engine, { kind: 'communities', level: 'symbol' });
    assert.ok(sym.data.total >= 2);
    assert.ok(sym.data.results.every((c: Json) => c.top_members.length >= 1 && c.files.every((f: Json) => f.members >= 1)));
  });

  it('dead_code: finds an unexported uncalled function; an exported one after it, lower, with the reason; not an entry point, a test or one named in a string', async () => {
    const { engine } = await open({
      'src/lib.ts': `export function exportedUnused(): number { return 1; }\n\nfunction unusedHelper(x: number): number {\n  if (x > 1) { return x; }\n  return 0;\n}\n\nfunction usedHelper(): number { return 2; }\nexport const value = usedHelper();\n\nfunction namedInString(): number { return 3; }\n\nfunction main(): void { console.log(value); }\n`,
      'src/registry.ts': `export const handlers = ['namedInString'];\n`,
      'src/lib.test.ts': `function testOnlyHelper(): number { return 4; }\ndescribe('lib', () => { it('works', () => {}); });\n`,
      'py/mod.py': `def public_api():\n    return 1\n\n\ndef _private_unused():\n    return 2\n\n\n@app.route("/x")\ndef _route_handler():\n    return 3\n`,
    });
    const { data, markdown } = await call(engine, { kind: 'dead_code' });
    const found = data.results.map((d: Json) => sp(d.node));
    assert.deepEqual(found.slice(0, 2).sort(), ['_private_unused', 'unusedHelper'], markdown);
    assert.deepEqual(found.slice(2).sort(), ['exportedUnused', 'public_api'], 'exported ones come after, never left out');
    const ex = data.results.find((x: Json) => sp(x.node) === 'exportedUnused');
    assert.ok(ex.confidence < 0.5, String(ex.confidence));
    assert.ok(ex.reasons.some((r: string) => /exported \(export\): it may be used from outside the workspace/.test(r)), JSON.stringify(ex.reasons));
    const d = data.results.find((x: Json) => sp(x.node) === 'unusedHelper');
    assert.ok(d.reasons.some((r: string) => /no incoming edge/.test(r)) && d.reasons.some((r: string) => /not exported/.test(r)), JSON.stringify(d.reasons));
    assert.ok(d.confidence > 0 && d.confidence < 0.9 && d.resolution === 'best_effort');
    assert.equal(d.node.line, 3);
    assert.ok(data.boundaries.some((b: Json) => b.kind === 'dynamic_names' && /reflection/.test(b.detail)));
    assert.equal(data.complete, false);
    const scoped = await call(engine, { kind: 'dead_code', path: 'py' });
    assert.deepEqual(scoped.data.results.map((x: Json) => sp(x.node)), ['_private_unused', 'public_api']);
  });

  it('hotspots: a big, much-changed function ranks first in a git repository; outside git it says churn is unavailable', async () => {
    const big = (v: number) => `export function big(x: number): number {\n${Array.from({ length: 12 }, (_, i) => `  if (x === ${i}) { return ${i + v}; }\n  for (let k = 0; k < ${i}; k++) { x += k; }\n`).join('')}  return x;\n}\n`;
    const small = (v: number) => `export function small(x: number): number {\n  return x + ${v};\n}\n`;
    const tall = `export function tall(x: number): number {\n${Array.from({ length: 40 }, (_, i) => `  x += ${i};\n`).join('')}  return x;\n}\n`;
    const env = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
    const { engine } = await open({ 'src/big.ts': big(0), 'src/small.ts': small(0), 'src/tall.ts': tall }, ws => {
      const git = (...a: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...a], { cwd: ws.root, env: { ...process.env, ...env }, stdio: 'pipe' });
      git('init', '-q', '-b', 'main', '.'); git('add', '-A'); git('commit', '-qm', 'start');
      for (let v = 1; v <= 5; v++) { ws.write('src/big.ts', big(v)); if (v === 3) ws.write('src/small.ts', small(v)); git('commit', '-qam', `change ${v}`); }
    });
    const { data, markdown } = await call(engine, { kind: 'hotspots' });
    assert.equal(data.ranked_by, 'complexity_x_churn');
    assert.equal(sp(data.results[0].node), 'big', markdown);
    assert.equal(data.results[0].churn, 6);
    assert.ok(data.results[0].branches >= 24, `branches ${data.results[0].branches}`);
    const tallHit = data.results.find((h: Json) => sp(h.node) === 'tall');
    assert.equal(tallHit.churn, 1);
    assert.ok(data.results.findIndex((h: Json) => sp(h.node) === 'small') > 0);
    assert.ok(!data.boundaries.some((b: Json) => b.kind === 'history_unavailable'));
    const files = await call(engine, { kind: 'hotspots', level: 'file', limit: 1 });
    assert.equal(files.data.results[0].node.path, 'src/big.ts');
    assert.equal(files.data.truncated, true);

    const plain = await open({ 'src/big.ts': big(0), 'src/tall.ts': tall });
    const p = await call(plain.engine, { kind: 'hotspots' });
    assert.equal(p.data.ranked_by, 'complexity');
    assert.equal(p.data.repos[0].history_available, false);
    assert.ok(p.data.boundaries.some((b: Json) => b.kind === 'history_unavailable' && /churn unavailable/.test(b.detail)));
    assert.match(p.markdown, /churn unavailable/);
    assert.equal(sp(p.data.results[0].node), 'big');
  });

  it('the CLI verb: sightline analytics KIND', async () => {
    requireBuilt();
    const { ws } = await open({ 'a.ts': `import { b } from './b';\nexport const a = () => b();\n`, 'b.ts': `import { a } from './a';\nexport const b = () => a();\n` });
    const run = (args: string[]) => spawnSync(process.execPath, [CLI_JS, 'analytics', ...args, '--db', ws.db, '--workspace', ws.root], { encoding: 'utf8', timeout: 60000 });
    const j = run(['cycles', '--json', '--min-size', '2']);
    assert.equal(j.status, 0, j.stderr);
    assert.equal(JSON.parse(j.stdout).results[0].size, 2);
    const md = run(['dead-code']);
    assert.equal(md.status, 0, md.stderr);
    assert.match(md.stdout, /\*\*analytics dead_code\*\*/);
    assert.equal(run([]).status, 2);
  });
});
