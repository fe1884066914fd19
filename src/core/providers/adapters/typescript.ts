/**
 * `sightline provider typescript`: compiler-grade references through the TypeScript language service.
 *
 * The `typescript` package is loaded at run time (never bundled): first the analysed repository's own
 * copy, then Sightline's. A program is built from the repository's tsconfig.json (or, without one, from
 * the TS/JS files of the input symbols with `--strict`), its diagnostics are counted (type errors never
 * fail the run), then for every TS/JS input symbol `findReferences` runs at the symbol's name. Each
 * reference group's definition (aliases such as `import { a as b }` followed to their target) gives
 * `to`; the innermost input symbol around each reference gives `from`; the AST at the reference says
 * whether it is the callee of a call / `new` / tagged template / JSX element (`calls`), a heritage clause
 * (`extends` / `implements`) or anything else (`references`).
 */
import type * as TS from 'typescript';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import {
  describeEdge, EdgeSet, loadRuntimeModule, ProviderError, resolveRuntimeModule,
  SymbolTable, type Deadline, type EdgeKind, type InputSymbol, type ProviderInput, type ProviderOutput,
} from './common';

const TS_LANGUAGES = new Set(['typescript', 'tsx', 'javascript']);
const TS_EXTENSIONS = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;

export function loadTypeScript(repo: string): { ts: typeof TS; file: string; from: string } {
  const found = resolveRuntimeModule('typescript', repo);
  if (!found) throw new ProviderError(`the "typescript" package was found neither in ${repo} (node_modules) nor in Sightline's installation; install it (npm install typescript) in the repository`);
  return { ts: loadRuntimeModule<typeof TS>(found.file), file: found.file, from: found.from };
}

export interface TypeScriptOptions { diagnostics?: boolean }

export function runTypeScriptProvider(input: ProviderInput, deadline: Deadline, options: TypeScriptOptions = {}): ProviderOutput {
  const { ts, file: tsFile, from } = loadTypeScript(input.repo);
  const diagnostics: string[] = [`TypeScript ${ts.version} from ${from === 'repo' ? 'the repository' : "Sightline's installation"} (${tsFile})`];
  const repo = input.repo;
  const symbols = input.symbols.filter(s => TS_LANGUAGES.has(s.language) || (!s.language && TS_EXTENSIONS.test(s.path)));
  const table = new SymbolTable(symbols);
  const edges = new EdgeSet();
  if (!symbols.length) { diagnostics.push('no TypeScript/JavaScript symbols in the input'); return { edges: [], diagnostics }; }

  // ---------------------------------------------------------------- program
  const absOf = (rel: string) => resolve(repo, rel);
  const relOf = (abs: string) => relative(repo, abs).split(sep).join('/');
  const inputFiles = table.paths().map(absOf).filter(f => existsSync(f));
  let compilerOptions: TS.CompilerOptions;
  let rootNames: string[];
  const configPath = join(repo, 'tsconfig.json');
  if (existsSync(configPath)) {
    const read = ts.readConfigFile(configPath, p => ts.sys.readFile(p));
    if (read.error) diagnostics.push(`tsconfig.json: ${ts.flattenDiagnosticMessageText(read.error.messageText, ' ')}`);
    const parsed = ts.parseJsonConfigFileContent(read.config ?? {}, ts.sys, repo, undefined, configPath);
    compilerOptions = { ...parsed.options, noEmit: true };
    const inConfig = new Set(parsed.fileNames.map(f => resolve(f)));
    const extra = inputFiles.filter(f => !inConfig.has(f));
    if (extra.some(f => /\.(js|jsx|mjs|cjs)$/.test(f))) compilerOptions.allowJs = true;
    rootNames = [...inConfig, ...extra];
    diagnostics.push(`program from tsconfig.json: ${inConfig.size} files${extra.length ? ` + ${extra.length} input files outside it` : ''}`);
  } else {
    compilerOptions = {
      noEmit: true, strict: true, allowJs: true, checkJs: false, skipLibCheck: true, target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10, jsx: ts.JsxEmit.Preserve, esModuleInterop: true,
    };
    rootNames = inputFiles;
    diagnostics.push(`no tsconfig.json: program from the ${inputFiles.length} input files (--strict)`);
  }

  const snapshots = new Map<string, TS.IScriptSnapshot | undefined>();
  const host: TS.LanguageServiceHost = {
    getCompilationSettings: () => compilerOptions,
    getScriptFileNames: () => rootNames,
    getScriptVersion: () => '1',
    getScriptSnapshot: fileName => {
      if (!snapshots.has(fileName)) {
        let text: string | undefined;
        try { text = readFileSync(fileName, 'utf8'); } catch { text = undefined; }
        snapshots.set(fileName, text === undefined ? undefined : ts.ScriptSnapshot.fromString(text));
      }
      return snapshots.get(fileName);
    },
    getCurrentDirectory: () => repo,
    getDefaultLibFileName: o => ts.getDefaultLibFilePath(o),
    fileExists: f => ts.sys.fileExists(f),
    readFile: (f, enc) => ts.sys.readFile(f, enc),
    readDirectory: (...args) => ts.sys.readDirectory(...args),
    directoryExists: d => ts.sys.directoryExists(d),
    getDirectories: d => ts.sys.getDirectories(d),
    realpath: ts.sys.realpath ? p => ts.sys.realpath!(p) : undefined,
    useCaseSensitiveFileNames: () => ts.sys.useCaseSensitiveFileNames,
  };
  const service = ts.createLanguageService(host, ts.createDocumentRegistry(ts.sys.useCaseSensitiveFileNames, repo));
  const program = service.getProgram();
  if (!program) throw new ProviderError('the TypeScript language service built no program');
  const checker = program.getTypeChecker();
  deadline.check();

  // ---------------------------------------------------------------- diagnostics (tsc --noEmit)
  if (options.diagnostics !== false) {
    let count = 0; let errors = 0;
    const add = (ds: readonly TS.Diagnostic[]) => { count += ds.length; errors += ds.filter(d => d.category === ts.DiagnosticCategory.Error).length; };
    add(program.getOptionsDiagnostics()); add(program.getGlobalDiagnostics());
    for (const sf of program.getSourceFiles()) {
      if (sf.isDeclarationFile && program.isSourceFileDefaultLibrary(sf)) continue;
      if (program.isSourceFileFromExternalLibrary(sf) || sf.fileName.includes('/node_modules/')) continue;
      add(program.getSyntacticDiagnostics(sf)); add(program.getSemanticDiagnostics(sf));
      deadline.check();
    }
    diagnostics.push(`TypeScript diagnostics (tsc --noEmit${compilerOptions.strict ? ' --strict' : ''}): ${count} (${errors} errors)`);
  }

  // ---------------------------------------------------------------- name positions
  /** `file\0pos` of each input symbol's name → symbol. */
  const byNamePos = new Map<string, InputSymbol>();
  const namePos = new Map<InputSymbol, number>();
  const sourceFile = (rel: string) => program.getSourceFile(absOf(rel));
  let unplaced = 0;
  for (const rel of table.paths()) {
    const sf = sourceFile(rel);
    if (!sf) { diagnostics.push(`${rel}: not part of the TypeScript program`); continue; }
    const names = declarationNames(ts, sf);
    for (const s of table.byPath.get(rel) ?? []) {
      const pos = placeSymbol(sf, names, s);
      if (pos === undefined) { unplaced++; continue; }
      namePos.set(s, pos);
      byNamePos.set(`${sf.fileName}\u0000${pos}`, s);
    }
  }
  if (unplaced) diagnostics.push(`${unplaced} input symbols whose name was not found at their range (skipped)`);
  deadline.check();

  /** The input symbol a reference group's definition stands for, following import/export aliases. */
  const targetCache = new Map<string, InputSymbol | null>();
  const targetOf = (def: TS.ReferencedSymbolDefinitionInfo): InputSymbol | undefined => {
    const key = `${def.fileName}\u0000${def.textSpan.start}`;
    if (targetCache.has(key)) return targetCache.get(key) ?? undefined;
    let target = byNamePos.get(key);
    if (!target) {
      const sf = program.getSourceFile(def.fileName);
      const node = sf && tokenAt(ts, sf, def.textSpan.start);
      let sym = node && checker.getSymbolAtLocation(node);
      if (sym && sym.flags & ts.SymbolFlags.Alias) {
        try { sym = checker.getAliasedSymbol(sym); } catch { sym = undefined; }
      }
      for (const decl of sym?.declarations ?? []) {
        const name = ts.getNameOfDeclaration(decl);
        const at = name ? name.getStart() : decl.getStart();
        target = byNamePos.get(`${decl.getSourceFile().fileName}\u0000${at}`);
        if (!target && ts.isConstructorDeclaration(decl)) target = byNamePos.get(`${decl.getSourceFile().fileName}\u0000${constructorKeywordPos(ts, decl)}`);
        if (target) break;
      }
    }
    targetCache.set(key, target ?? null);
    return target;
  };

  // ---------------------------------------------------------------- references, file by file
  let references = 0; let outside = 0; let external = 0; let declarations = 0;
  const asked = input.query_ids ? new Set(input.query_ids) : null;
  for (const rel of table.paths()) {
    const sf = sourceFile(rel);
    if (!sf) continue;
    for (const s of table.byPath.get(rel) ?? []) {
      const pos = namePos.get(s);
      if (pos === undefined || (asked && !asked.has(s.id))) continue;
      deadline.check();
      let groups: TS.ReferencedSymbol[] | undefined;
      try { groups = service.findReferences(sf.fileName, pos); } catch (e) { diagnostics.push(`${rel}: findReferences(${s.symbol_path}) failed: ${(e as Error).message}`); continue; }
      for (const group of groups ?? []) {
        const to = targetOf(group.definition);
        if (!to) { external += group.references.length; continue; }
        for (const ref of group.references) {
          if (ref.isDefinition) continue;
          const refFile = program.getSourceFile(ref.fileName);
          if (!refFile) continue;
          const refRel = relOf(ref.fileName);
          const lc = refFile.getLineAndCharacterOfPosition(ref.textSpan.start);
          const fromSym = table.innermost(refRel, lc.line + 1, lc.character);
          if (!fromSym) { outside++; continue; }
          const node = tokenAt(ts, refFile, ref.textSpan.start);
          // A declaration that merely shares the symbol (an override, an implementing member) is no use of it.
          if (node && isDeclarationName(ts, node)) { declarations++; continue; }
          references++;
          const { kind, how } = node ? classify(ts, node) : { kind: 'references' as EdgeKind, how: '' };
          edges.add(fromSym, to, kind, `TypeScript language service: ${describeEdge(fromSym, kind, to, refRel, lc.line + 1)}${how}`);
        }
      }
    }
  }
  diagnostics.push(`findReferences on ${asked ? asked.size : namePos.size} symbols: ${references} references inside input symbols, ${outside} at top level or outside any symbol, ${external} to targets outside the input, ${declarations} overriding/implementing declarations; ${edges.size} edges`);
  return { edges: edges.list(), diagnostics };
}

/** Declaration name nodes of a file, by name text. */
function declarationNames(ts: typeof TS, sf: TS.SourceFile): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const add = (text: string, pos: number) => { let l = out.get(text); if (!l) out.set(text, l = []); l.push(pos); };
  const visit = (node: TS.Node): void => {
    if (ts.isConstructorDeclaration(node)) add('constructor', constructorKeywordPos(ts, node));
    else {
      const name = (node as { name?: TS.Node }).name;
      if (name && (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) && name.parent === node) {
        add(ts.isStringLiteral(name) ? name.text : name.getText(sf), name.getStart(sf) + (ts.isStringLiteral(name) ? 1 : 0));
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  for (const l of out.values()) l.sort((a, b) => a - b);
  return out;
}

function constructorKeywordPos(ts: typeof TS, node: TS.ConstructorDeclaration): number {
  const sf = node.getSourceFile();
  const kw = node.getChildren(sf).find(c => c.kind === ts.SyntaxKind.ConstructorKeyword);
  return kw ? kw.getStart(sf) : node.getStart(sf);
}

/** The name position of `s`: the first declaration name equal to its name inside its range. */
function placeSymbol(sf: TS.SourceFile, names: Map<string, number[]>, s: InputSymbol): number | undefined {
  const lineStarts = sf.getLineStarts();
  const lineStart = (line: number) => lineStarts[Math.min(Math.max(line - 1, 0), lineStarts.length - 1)] ?? 0;
  const start = lineStart(s.start_line); // from the start of the line: columns from the indexer may be byte-based
  const end = s.end_line < lineStarts.length ? lineStart(s.end_line + 1) : sf.end;
  const key = s.name.startsWith('#') ? s.name : s.name.replace(/^["']|["']$/g, '');
  const hit = (names.get(key) ?? []).find(p => p >= start && p < end);
  return hit;
}

/** `node` is the name of a member/function/class/variable declaration (not a use). */
function isDeclarationName(ts: typeof TS, node: TS.Node): boolean {
  const p = node.parent as (TS.Node & { name?: TS.Node }) | undefined;
  if (!p || p.name !== node) return false;
  return ts.isMethodDeclaration(p) || ts.isMethodSignature(p) || ts.isPropertyDeclaration(p) || ts.isPropertySignature(p)
    || ts.isGetAccessorDeclaration(p) || ts.isSetAccessorDeclaration(p) || ts.isFunctionDeclaration(p) || ts.isClassDeclaration(p)
    || ts.isInterfaceDeclaration(p) || ts.isTypeAliasDeclaration(p) || ts.isEnumDeclaration(p) || ts.isEnumMember(p)
    || ts.isModuleDeclaration(p) || ts.isVariableDeclaration(p) || ts.isParameter(p) || ts.isClassExpression(p) || ts.isFunctionExpression(p);
}

/** The innermost token at `pos`. */
function tokenAt(ts: typeof TS, sf: TS.SourceFile, pos: number): TS.Node | undefined {
  let node: TS.Node = sf;
  for (;;) {
    let next: TS.Node | undefined;
    ts.forEachChild(node, child => {
      if (next) return true;
      if (child.getStart(sf) <= pos && pos < child.getEnd()) { next = child; return true; }
      return undefined;
    });
    if (!next) return node === sf ? undefined : node;
    node = next;
  }
}

/** calls (callee of call/new/tagged template/JSX), extends/implements (heritage clause) or references. */
function classify(ts: typeof TS, node: TS.Node): { kind: EdgeKind; how: string } {
  let expr: TS.Node = node;
  // `a.b.name` / `a?.name`: the reference is the name of a property access.
  while (expr.parent && (ts.isPropertyAccessExpression(expr.parent) && expr.parent.name === expr
    || ts.isQualifiedName(expr.parent) && expr.parent.right === expr)) expr = expr.parent;
  let callee: TS.Node = expr;
  while (callee.parent && (ts.isParenthesizedExpression(callee.parent) || ts.isNonNullExpression(callee.parent)
    || ts.isExpressionWithTypeArguments(callee.parent) && !ts.isHeritageClause(callee.parent.parent))) callee = callee.parent;
  const p = callee.parent;
  if (p) {
    if (ts.isCallExpression(p) && p.expression === callee) return { kind: 'calls', how: ' (call expression)' };
    if (ts.isNewExpression(p) && p.expression === callee) return { kind: 'calls', how: ' (new expression)' };
    if (ts.isTaggedTemplateExpression(p) && p.tag === callee) return { kind: 'calls', how: ' (tagged template)' };
    if (ts.isDecorator(p)) return { kind: 'calls', how: ' (decorator)' };
    if ((ts.isJsxOpeningElement(p) || ts.isJsxSelfClosingElement(p)) && p.tagName === callee) return { kind: 'calls', how: ' (JSX element)' };
    if (ts.isExpressionWithTypeArguments(p) && ts.isHeritageClause(p.parent)) {
      return p.parent.token === ts.SyntaxKind.ImplementsKeyword ? { kind: 'implements', how: ' (implements clause)' } : { kind: 'extends', how: ' (extends clause)' };
    }
  }
  return { kind: 'references', how: '' };
}
