#!/usr/bin/env node
// TypeScript declarations found by the tree-sitter extraction against the TypeScript compiler's own
// list, file by file, on real projects. A declaration the compiler sees (a function, class, interface,
// type alias, enum or namespace, at the top level or in a namespace; a class's named methods) is found
// when the extraction has a definition of that name starting on the same line. Target: 0 lost.
//
//   npm run bench:ts-declarations -- [--project NAME=DIR]... [--no-write]
//
// Default projects: the TypeScript checkouts under ../benchdata (zod, ts/trpc, ts/query, ts/elysia) that exist.
import { readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { PROJECT_DIR, loadCore } from './lib/common.mjs';
import { writeResults } from './lib/results.mjs';

const ts = createRequire(join(PROJECT_DIR, 'package.json'))('typescript');
const { extractSource } = loadCore();

const argv = process.argv.slice(2);
const projects = [];
let write = true;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--project') { const [name, dir] = argv[++i].split('='); projects.push({ name, dir: resolve(dir) }); }
  else if (argv[i] === '--no-write') write = false;
  else { console.error(`bench:ts-declarations: unknown option ${argv[i]}`); process.exit(2); }
}
if (!projects.length) {
  const data = resolve(PROJECT_DIR, '..', 'benchdata');
  for (const [name, rel] of [['zod', 'zod'], ['trpc', 'ts/trpc'], ['tanstack-query', 'ts/query'], ['elysia', 'ts/elysia']]) {
    if (existsSync(join(data, rel))) projects.push({ name, dir: join(data, rel) });
  }
}
if (!projects.length) { console.error('bench:ts-declarations: no project (give --project NAME=DIR)'); process.exit(2); }

const DECLS = new Set([ts.SyntaxKind.FunctionDeclaration, ts.SyntaxKind.ClassDeclaration, ts.SyntaxKind.InterfaceDeclaration,
  ts.SyntaxKind.TypeAliasDeclaration, ts.SyntaxKind.EnumDeclaration, ts.SyntaxKind.ModuleDeclaration]);

/** The compiler's declarations of a file: name and 1-based line of each. */
function compilerDeclarations(path, text) {
  const kind = path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const out = [];
  const lineOf = node => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
  const visitStatements = statements => {
    for (const s of statements) {
      if (!DECLS.has(s.kind) || !s.name || !ts.isIdentifier(s.name)) continue;
      // `declare global { … }` augments the global scope: no declaration of its own, its members are
      const global = ts.isModuleDeclaration(s) && (s.flags & ts.NodeFlags.GlobalAugmentation) !== 0;
      if (!global) out.push({ name: s.name.text, line: lineOf(s.name) });
      if (ts.isModuleDeclaration(s) && s.body && ts.isModuleBlock(s.body)) visitStatements(s.body.statements);
      if (ts.isClassDeclaration(s)) {
        for (const m of s.members) if (ts.isMethodDeclaration(m) && m.name && ts.isIdentifier(m.name)) out.push({ name: m.name.text, line: lineOf(m.name) });
      }
    }
  };
  visitStatements(sf.statements);
  return out;
}

async function measure({ name, dir }) {
  const files = execFileSync('git', ['ls-tree', '-r', '--name-only', 'HEAD'], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28 }).split('\n')
    .filter(f => /\.tsx?$/.test(f) && !f.includes('node_modules/') && existsSync(join(dir, f)));
  let declared = 0; let lost = 0; let errorsReported = 0; const examples = [];
  for (const f of files) {
    const text = readFileSync(join(dir, f), 'utf8');
    const want = compilerDeclarations(f, text);
    if (!want.length) continue;
    const ex = await extractSource(f.endsWith('.tsx') ? 'tsx' : 'typescript', text);
    errorsReported += ex.lost_declarations.length;
    const have = new Set(ex.definitions.map(d => `${d.name}@${d.start_line}`));
    // a definition starts at its declaration (its decorators or export keyword may come first): the name's line or a few above
    const found = w => [0, 1, 2, 3].some(k => have.has(`${w.name}@${w.line - k}`));
    for (const w of want) {
      declared++;
      if (!found(w)) { lost++; if (examples.length < 5) examples.push(`${f}:${w.line} ${w.name}`); }
    }
  }
  return { name, files: files.length, declared, lost, errorsReported, examples };
}

const rows = [];
for (const p of projects) { console.error(`bench:ts-declarations: ${p.name} (${p.dir})`); rows.push(await measure(p)); }
const commitOf = dir => { try { return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim(); } catch { return 'unknown'; } };
const body = [
  'TypeScript declarations (functions, classes, interfaces, type aliases, enums, namespaces, class methods) the TypeScript compiler lists per file, against the extraction\'s definitions (same name, starting on the name\'s line or up to 3 lines above). Target: 0 lost.',
  '',
  '| project | files | declarations (compiler) | lost | lost declarations the extraction reported itself | examples of lost |',
  '| --- | --- | --- | --- | --- | --- |',
  ...rows.map(r => `| ${r.name} | ${r.files} | ${r.declared} | ${r.lost} | ${r.errorsReported} | ${r.examples.join('; ') || '–'} |`),
  '',
  'Projects (public, at the commit shown):',
  '',
  ...projects.map(p => `- ${p.name}: \`${commitOf(p.dir)}\``),
].join('\n');
console.log(body);
if (write) console.error(`bench:ts-declarations: wrote ${writeResults('ts-declarations', 'TypeScript declarations against the compiler (bench:ts-declarations)', body)}`);
