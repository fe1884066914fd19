/**
 * Compiler-grade references from the editor's live language servers. For a symbol, asks VS Code for its
 * references (vscode.executeReferenceProvider), its incoming and outgoing calls (call hierarchy) and
 * its implementations (vscode.executeImplementationProvider), and hands the locations to the engine,
 * which stores them as `lsp:<language>` edges with confidence 1.
 *
 * Every request is budgeted (deadline, result cap, cancellation). A language server that is missing
 * (no document symbols for the file) is not asked, and nothing is recorded, so answers keep saying they
 * come from the heuristic index. Servers answer partially while they load a project: results are asked
 * again until two answers agree.
 */
import * as vscode from 'vscode';
import type { EngineProcess } from './engineProcess';

export interface Target { id: string; path: string; abs_path: string; name: string; language: string; start_line: number; start_col: number; end_line: number; checked: boolean }

const MAX_RESULTS = 5000;

function withDeadline<T>(p: Thenable<T>, ms: number, token?: vscode.CancellationToken): Promise<T | undefined> {
  return new Promise(resolve => {
    const timer = setTimeout(() => resolve(undefined), ms);
    const sub = token?.onCancellationRequested(() => { clearTimeout(timer); resolve(undefined); });
    Promise.resolve(p).then(v => { clearTimeout(timer); sub?.dispose(); resolve(v); }, () => { clearTimeout(timer); sub?.dispose(); resolve(undefined); });
  });
}

export class LspEnricher {
  constructor(private readonly engine: EngineProcess, private readonly log: vscode.LogOutputChannel) {}

  async targets(opts: { symbol?: string; path?: string; limit: number }): Promise<Target[]> {
    try {
      const r = await this.engine.request<{ targets: Target[] }>('sightline/enrichment_targets', opts);
      return r.targets;
    } catch (e) { this.log.warn(`enrichment targets: ${(e as Error).message}`); return []; }
  }

  /** Where the name of the definition is, for the position-based language-server requests. */
  private namePosition(doc: vscode.TextDocument, t: Target): vscode.Position | undefined {
    const re = new RegExp(`(^|[^\\w$])(${t.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})(?![\\w$])`);
    for (let line = t.start_line - 1; line < Math.min(doc.lineCount, t.end_line); line++) {
      const text = doc.lineAt(line).text;
      const from = line === t.start_line - 1 ? t.start_col : 0;
      const m = re.exec(text.slice(from));
      if (m) return new vscode.Position(line, from + m.index + m[1]!.length);
    }
    return undefined;
  }

  /** Asks the language server about one symbol; returns what happened. */
  async enrich(t: Target, budgetMs: number, token?: vscode.CancellationToken): Promise<'recorded' | 'partial' | 'no_server' | 'not_found'> {
    const deadline = Date.now() + budgetMs;
    const left = () => Math.max(0, deadline - Date.now());
    const uri = vscode.Uri.file(t.abs_path);
    let doc: vscode.TextDocument;
    try { doc = await vscode.workspace.openTextDocument(uri); } catch { return 'not_found'; }
    const pos = this.namePosition(doc, t);
    if (!pos) return 'not_found';
    // A language server is there when it can list the document's symbols (retried while it starts).
    let symbols: unknown[] | undefined;
    while (left() > 0 && !token?.isCancellationRequested) {
      symbols = await withDeadline(vscode.commands.executeCommand<unknown[]>('vscode.executeDocumentSymbolProvider', uri), Math.min(left(), 3000), token);
      if (symbols && symbols.length) break;
      await new Promise(r => setTimeout(r, 300));
    }
    if (!symbols || !symbols.length) return 'no_server';
    // References, asked until two answers agree (servers answer partially while loading a project).
    let refs: vscode.Location[] | undefined; let stable = false;
    for (let attempt = 0; attempt < 6 && left() > 0 && !token?.isCancellationRequested; attempt++) {
      const r = await withDeadline(vscode.commands.executeCommand<vscode.Location[]>('vscode.executeReferenceProvider', uri, pos), left(), token);
      if (r && refs && r.length === refs.length) { stable = true; refs = r; break; }
      refs = r ?? refs;
      await new Promise(res => setTimeout(res, 250 * (attempt + 1)));
    }
    if (!refs) return 'partial';
    // Call sites: incoming calls of the call hierarchy item at the definition.
    const calls = new Set<string>();
    const items = await withDeadline(vscode.commands.executeCommand<vscode.CallHierarchyItem[]>('vscode.prepareCallHierarchy', uri, pos), Math.min(left(), 5000), token);
    if (items?.length) {
      const incoming = await withDeadline(vscode.commands.executeCommand<vscode.CallHierarchyIncomingCall[]>('vscode.provideIncomingCalls', items[0]), Math.min(left(), 5000), token);
      for (const c of incoming ?? []) for (const r of c.fromRanges) calls.add(`${c.from.uri.fsPath}\0${r.start.line}\0${r.start.character}`);
    }
    type Kind = 'calls' | 'references' | 'implements' | 'callee';
    const locations: { path: string; line: number; col: number; kind: Kind }[] = refs.slice(0, MAX_RESULTS).map(l => {
      const key = `${l.uri.fsPath}\0${l.range.start.line}\0${l.range.start.character}`;
      return { path: l.uri.fsPath, line: l.range.start.line + 1, col: l.range.start.character, kind: calls.has(key) ? 'calls' as const : 'references' as const };
    });
    // What the target calls (outgoing calls), and what implements it (interfaces, abstract methods).
    if (items?.length && left() > 0) {
      const outgoing = await withDeadline(vscode.commands.executeCommand<vscode.CallHierarchyOutgoingCall[]>('vscode.provideOutgoingCalls', items[0]), Math.min(left(), 5000), token);
      for (const c of (outgoing ?? []).slice(0, MAX_RESULTS)) locations.push({ path: c.to.uri.fsPath, line: c.to.selectionRange.start.line + 1, col: c.to.selectionRange.start.character, kind: 'callee' });
    }
    if (left() > 0) {
      const impls = await withDeadline(vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[]>('vscode.executeImplementationProvider', uri, pos), Math.min(left(), 5000), token);
      for (const l of (impls ?? []).slice(0, MAX_RESULTS)) {
        const u = 'targetUri' in l ? l.targetUri : l.uri; const r = 'targetUri' in l ? (l.targetSelectionRange ?? l.targetRange) : l.range;
        if (u.fsPath === uri.fsPath && r.start.line === pos.line) continue; // the target itself
        locations.push({ path: u.fsPath, line: r.start.line + 1, col: r.start.character, kind: 'implements' });
      }
    }
    const complete = stable && refs.length < MAX_RESULTS && !token?.isCancellationRequested;
    const provider = `lsp:${doc.languageId.replace(/[^a-z0-9_-]/gi, '').toLowerCase()}`;
    try {
      const r = await this.engine.request<{ stored: number; ignored: number }>('sightline/record_references', { target_id: t.id, provider, complete, locations });
      this.log.info(`${provider}: ${t.id} — ${r.stored} edge(s) from ${locations.length} location(s)${complete ? '' : ' (partial)'}`);
    } catch (e) {
      this.log.warn(`could not record ${provider} references of ${t.id}: ${(e as Error).message}`);
      return 'partial';
    }
    return complete ? 'recorded' : 'partial';
  }

  /** Background pass over the most depended-on symbols without a fresh check, within a time budget. */
  async background(budgetMs: number, token: vscode.CancellationToken): Promise<number> {
    const end = Date.now() + budgetMs;
    const targets = await this.targets({ limit: 40 });
    let done = 0;
    for (const t of targets) {
      if (token.isCancellationRequested || Date.now() > end) break;
      const r = await this.enrich(t, Math.min(8000, end - Date.now()), token);
      if (r === 'recorded' || r === 'partial') done++;
      if (r === 'no_server') continue;
    }
    return done;
  }
}
