// The webviews' pure parts: the impact graph's layout, filters and keyboard moves, and the Markdown
// subset a memory is shown in (never HTML).
import { strict as assert } from 'node:assert';
import { filterAffected, layoutGraph, moveFrom, usedName, DEFAULT_FILTERS, GEOMETRY } from '../src/webview/layout';
import { parseMarkdown, inlines } from '../src/webview/markdown';
import type { Affected, NodeRef } from '../src/webview/types';

const node = (symbol_path: string, path: string, line = 1): NodeRef => ({ id: `symbol:r:${path}:${symbol_path}`, path, kind: 'function', line, repo_id: 'r', symbol_path });
const sp = (n: NodeRef) => n.symbol_path;
const dep = (n: NodeRef, distance: number, via: string, extra: Partial<Affected> = {}): Affected => ({
  node: n, distance, resolution: 'best_effort', confidence: 0.8, via_container: false, name_only: false, via, provider: 'heuristic', ...extra,
});

const target = node('money', 'src/money.ts', 7);
const affected: Affected[] = [
  dep(node('orderTotal', 'src/orders.ts', 15), 1, 'heuristic: orderTotal calls money at src/orders.ts:16 (imported ./money)', { resolution: 'exact', confidence: 1 }),
  dep(node('demo', 'src/main.ts', 5), 1, 'heuristic: demo calls money at src/main.ts:13 (imported ./money)'),
  dep(node('guess', 'lib/x.ts', 3), 1, 'heuristic: guess calls money at lib/x.ts:4', { name_only: true, confidence: 0.3 }),
  dep(node('placeOrder', 'src/orders.ts', 20), 2, 'heuristic: placeOrder calls orderTotal at src/orders.ts:32 (defined in the same file)'),
  dep(node('Other.run', 'lib/y.ts', 9), 2, 'lsp:typescript: something odd'),
];

describe('impact webview layout', () => {
  it('puts the target in column 0 and each dependent in the column of its distance, one band per module', () => {
    const L = layoutGraph(target, affected);
    assert.equal(L.columns.length, 3);
    assert.deepEqual(L.columns[0]!.map(n => n.key), [target.id]);
    assert.equal(L.columns[1]!.length, 3);
    assert.equal(L.columns[2]!.length, 2);
    for (const n of L.nodes) assert.equal(n.x, GEOMETRY.margin + n.col * (GEOMETRY.nodeW + GEOMETRY.colGap));
    assert.deepEqual(L.bands.map(b => b.module), ['src', 'lib']); // most dependents first
    // a module's nodes sit inside its band, and nodes never overlap within a column
    for (const n of L.nodes.slice(1)) {
      const b = L.bands.find(x => x.module === n.module)!;
      assert.ok(n.y >= b.y && n.y + GEOMETRY.nodeH <= b.y + b.height, `${n.key} inside band ${b.module}`);
    }
    for (const col of L.columns) for (let i = 1; i < col.length; i++) assert.ok(col[i]!.y >= col[i - 1]!.y + GEOMETRY.nodeH, 'no overlap');
  });

  it('draws an edge to the node the evidence names, else to the previous column', () => {
    const L = layoutGraph(target, affected);
    const to = (sym: string) => L.edges.find(e => sp(e.from.node) === sym)!;
    assert.equal(to('orderTotal').to?.key, target.id);
    assert.equal(to('orderTotal').kind, 'exact');
    assert.equal(to('guess').kind, 'name_only');
    const placed = to('placeOrder').to;
    assert.equal(placed ? sp(placed.node) : undefined, 'orderTotal');
    assert.equal(to('placeOrder').kind, 'best_effort');
    assert.equal(to('Other.run').to, null);
    assert.equal(usedName('lsp:typescript: placeOrder calls Inventory.reserve (defined at src/inventory.ts:21)'), 'Inventory.reserve');
    assert.equal(usedName('no evidence sentence'), null);
  });

  it('filters by depth, confidence, name-only and exact', () => {
    assert.equal(filterAffected(affected, DEFAULT_FILTERS).length, 5);
    assert.equal(filterAffected(affected, { ...DEFAULT_FILTERS, depth: 1 }).length, 3);
    assert.equal(filterAffected(affected, { ...DEFAULT_FILTERS, minConfidence: 0.5 }).length, 4);
    assert.equal(filterAffected(affected, { ...DEFAULT_FILTERS, showNameOnly: false }).length, 4);
    assert.deepEqual(filterAffected(affected, { ...DEFAULT_FILTERS, exactOnly: true }).map(a => sp(a.node)), ['orderTotal']);
  });

  it('moves focus right by distance to the nearest node, up and down within a column, and stops at the edges', () => {
    const L = layoutGraph(target, affected);
    const t = L.columns[0]![0]!;
    const right = moveFrom(L, t, 'right');
    assert.equal(right.col, 1);
    assert.equal(moveFrom(L, right, 'left').key, t.key);
    assert.equal(moveFrom(L, t, 'left').key, t.key);
    const first = L.columns[1]![0]!;
    assert.equal(moveFrom(L, first, 'up').key, first.key);
    assert.equal(moveFrom(L, first, 'down').key, L.columns[1]![1]!.key);
    assert.equal(moveFrom(L, first, 'last').key, L.columns[1]![2]!.key);
    assert.equal(moveFrom(L, moveFrom(L, first, 'right'), 'right').col, 2); // last column: stays
  });

  it('lays out a target without dependents', () => {
    const L = layoutGraph(target, []);
    assert.equal(L.nodes.length, 1);
    assert.equal(L.edges.length, 0);
    assert.ok(L.width > GEOMETRY.nodeW && L.height > GEOMETRY.nodeH);
  });
});

describe('memory Markdown subset', () => {
  it('parses paragraphs, lists, fenced code, code spans and bold', () => {
    const b = parseMarkdown('Totals are **rounded once**,\nat the `end`.\n\n- one\n- `two`\n\n1. first\n2) second\n\n```\n<b>x</b>\n```');
    assert.deepEqual(b.map(x => x.kind), ['p', 'ul', 'ol', 'pre']);
    assert.deepEqual(b[0], { kind: 'p', inlines: [{ kind: 'text', text: 'Totals are ' }, { kind: 'strong', text: 'rounded once' }, { kind: 'text', text: ', at the ' }, { kind: 'code', text: 'end' }, { kind: 'text', text: '.' }] });
    assert.equal(b[1]!.kind === 'ul' && b[1]!.items.length, 2);
    assert.equal(b[3]!.kind === 'pre' && b[3]!.text, '<b>x</b>');
  });
  it('keeps HTML as text', () => {
    assert.deepEqual(inlines('<img src=x onerror=alert(1)>'), [{ kind: 'text', text: '<img src=x onerror=alert(1)>' }]);
  });
});
