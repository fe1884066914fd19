/**
 * The impact view (runs in the webview: no Node, no network). Renders an `impact` answer: a header that
 * says whether the answer is complete or a lower bound, filters, the dependency graph (SVG, laid out by
 * layout.ts, keyboard navigable), the dependents table, modules, memories, related tests and entry
 * points. Opening a location or a memory is a message to the extension.
 */
import { h, s, listen, vscode, type Child } from './dom';
import { DEFAULT_FILTERS, GEOMETRY, filterAffected, labelOf, layoutGraph, moveFrom, type Filters, type GNode, type Layout, type Move } from './layout';
import type { Affected, ImpactResult, Memory, NodeRef } from './types';

const root = document.getElementById('root')!;
interface State { filters: Filters; focus?: string }
const saved = vscode().getState() as State | undefined;
let filters: Filters = { ...DEFAULT_FILTERS, ...saved?.filters };
let focusKey: string | undefined = saved?.focus;
let layout: Layout | undefined;

const save = () => vscode().setState({ filters, focus: focusKey } satisfies State);
const open = (n: NodeRef) => vscode().postMessage({ type: 'open', path: n.path, repo_id: n.repo_id, line: n.line });
const fmt = (c: number) => c.toFixed(2);
const clip = (t: string, n: number) => (t.length > n ? `${t.slice(0, n - 1)}…` : t);
const resolutionText = (a: Affected) => (a.name_only ? 'name only' : a.resolution === 'exact' ? 'exact' : 'best effort');

function link(n: NodeRef, text = labelOf(n)): HTMLElement {
  const a = h('a', { href: '#', title: n.id }, [text]);
  a.addEventListener('click', e => { e.preventDefault(); open(n); });
  return h('span', {}, [a, h('span', { class: 'muted' }, [` ${n.path}:${n.line}`])]);
}

function nodeLabel(n: GNode): string {
  const a = n.affected;
  const where = `${n.node.kind} in ${n.node.path}, line ${n.node.line}`;
  if (!a) return `Target: ${labelOf(n.node)}, ${where}`;
  return `${labelOf(n.node)}, ${where}; distance ${a.distance}, ${resolutionText(a)}, confidence ${fmt(a.confidence)}${a.via_container ? ', through a container of the target' : ''}`;
}

// ---- graph ----------------------------------------------------------------------------------------

const svg = s('svg', { id: 'graph', role: 'graphics-document', 'aria-roledescription': 'dependency graph', focusable: 'false' });
const summary = h('p', { id: 'graph-summary', class: 'muted', 'aria-live': 'polite' });

function drawGraph(r: ImpactResult, shown: Affected[]): void {
  const target = r.resolved[0]!;
  const L = layout = layoutGraph(target, shown);
  const G = GEOMETRY;
  svg.replaceChildren();
  svg.setAttribute('width', String(L.width)); svg.setAttribute('height', String(L.height));
  svg.setAttribute('viewBox', `0 0 ${L.width} ${L.height}`);
  svg.setAttribute('aria-label', `Dependents of ${labelOf(target)}: ${shown.length} node(s) by distance in ${L.bands.length} module(s). Arrow keys move between nodes, Enter opens.`);
  svg.append(s('defs', {}, [
    s('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, [s('path', { class: 'arrowhead', d: 'M0,0 L10,5 L0,10 z' })]),
  ]));
  const bands = s('g', { class: 'bands', 'aria-hidden': 'true' });
  for (const b of L.bands) {
    bands.append(s('rect', { class: 'band', x: 4 + G.nodeW + G.colGap / 2, y: b.y, width: Math.max(0, L.width - (8 + G.nodeW + G.colGap / 2)), height: b.height, rx: 4 }),
      s('text', { class: 'band-label', x: 10 + G.nodeW + G.colGap / 2, y: b.y + 13 }, [b.module]));
  }
  const edges = s('g', { class: 'edges', 'aria-hidden': 'true' });
  const spines = new Map<number, [number, number]>();
  for (const e of L.edges) {
    const mx = (e.x1 + e.x2) / 2;
    edges.append(s('path', { class: `edge ${e.kind}${e.from.affected?.via_container ? ' via-container' : ''}`, d: `M${e.x1},${e.y1} C${mx},${e.y1} ${mx},${e.y2} ${e.x2},${e.y2}`, 'marker-end': 'url(#arrow)' }));
    if (!e.to) { const c = e.from.col - 1; const [lo, hi] = spines.get(c) ?? [Infinity, -Infinity]; spines.set(c, [Math.min(lo, e.y2), Math.max(hi, e.y2)]); }
  }
  for (const [c, [lo, hi]] of spines) {
    const col = L.columns[c] ?? [];
    const top = Math.min(lo, ...col.map(n => n.y + G.nodeH / 2)); const bottom = Math.max(hi, ...col.map(n => n.y + G.nodeH / 2));
    const x = G.margin + c * (G.nodeW + G.colGap) + G.nodeW + G.colGap / 4;
    edges.append(s('line', { class: 'spine', x1: x, y1: top, x2: x, y2: bottom }));
    for (const n of col) edges.append(s('line', { class: 'spine', x1: n.x + G.nodeW, y1: n.y + G.nodeH / 2, x2: x, y2: n.y + G.nodeH / 2 }));
  }
  const heads = s('g', { class: 'columns', 'aria-hidden': 'true' });
  L.columns.forEach((_, c) => heads.append(s('text', { class: 'column-label', x: G.margin + c * (G.nodeW + G.colGap), y: G.margin + 2 }, [c === 0 ? 'target' : `distance ${c}`])));
  const nodes = s('g', { class: 'nodes' });
  // The node in the tab order: the last focused one, or the target while a filter hides it (kept for later).
  const current = L.nodes.some(n => n.key === focusKey) ? focusKey : L.nodes[0]!.key;
  for (const n of L.nodes) {
    const a = n.affected;
    const cls = ['node', a ? (a.name_only ? 'name-only' : a.resolution) : 'target', a?.via_container ? 'via-container' : ''].filter(Boolean).join(' ');
    const g = s('g', {
      class: cls, transform: `translate(${n.x},${n.y})`, tabindex: n.key === current ? 0 : -1, role: 'graphics-symbol',
      'aria-roledescription': a ? 'dependent' : 'target', 'aria-label': nodeLabel(n), 'data-key': n.key, 'data-col': n.col, 'data-path': n.node.path,
    }, [
      s('title', {}, [nodeLabel(n)]),
      s('rect', { class: 'focus-ring', x: -3, y: -3, width: G.nodeW + 6, height: G.nodeH + 6, rx: 6 }),
      s('rect', { class: 'box', width: G.nodeW, height: G.nodeH, rx: 4 }),
      s('text', { class: 'label', x: 8, y: 13 }, [clip(labelOf(n.node), 26)]),
      s('text', { class: 'sub', x: 8, y: 25 }, [clip(`${n.node.path}:${n.node.line}${a ? ` · ${a.name_only ? 'name only ' : ''}${fmt(a.confidence)}` : ''}`, 34)]),
      a?.via_container ? s('text', { class: 'badge', x: G.nodeW - 8, y: 13, 'text-anchor': 'end' }, ['◇']) : null,
    ]);
    g.addEventListener('click', () => { setFocus(n.key); open(n.node); });
    g.addEventListener('focus', () => { if (focusKey !== n.key) setFocus(n.key, false); });
    nodes.append(g);
  }
  svg.append(bands, heads, edges, nodes);
}

function nodeEl(key: string): SVGGElement | null {
  return [...svg.querySelectorAll<SVGGElement>('g.node')].find(g => g.dataset.key === key) ?? null;
}
function setFocus(key: string, move = true): void {
  focusKey = key;
  for (const g of svg.querySelectorAll<SVGGElement>('g.node')) g.setAttribute('tabindex', g.dataset.key === key ? '0' : '-1');
  const el = nodeEl(key);
  if (move && el) { el.focus(); el.scrollIntoView?.({ block: 'nearest', inline: 'nearest' }); }
  save();
}
const KEYS: Record<string, Move> = { ArrowLeft: 'left', ArrowRight: 'right', ArrowUp: 'up', ArrowDown: 'down', Home: 'first', End: 'last' };
svg.addEventListener('keydown', (e: KeyboardEvent) => {
  const key = (e.target as Element | null)?.closest?.('g.node')?.getAttribute('data-key');
  const n = key ? layout?.nodes.find(x => x.key === key) : undefined;
  if (!layout) return;
  if (!n) return;
  const move = KEYS[e.key];
  if (move) { e.preventDefault(); setFocus(moveFrom(layout, n, move).key); return; }
  if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); open(n.node); }
});

// ---- filters --------------------------------------------------------------------------------------

function filterBar(r: ImpactResult): HTMLElement {
  const maxDepth = Math.max(1, ...r.affected.map(a => a.distance));
  const depth = h('select', { id: 'f-depth' }, Array.from({ length: maxDepth }, (_, i) => h('option', { value: i + 1, selected: Math.min(filters.depth, maxDepth) === i + 1 }, [String(i + 1)])));
  const conf = h('input', { id: 'f-confidence', type: 'range', min: 0, max: 1, step: 0.05, value: filters.minConfidence, 'aria-valuetext': fmt(filters.minConfidence) });
  const confOut = h('output', { id: 'f-confidence-value', for: 'f-confidence' }, [fmt(filters.minConfidence)]);
  const nameOnly = h('input', { id: 'f-name-only', type: 'checkbox', checked: filters.showNameOnly });
  const exact = h('input', { id: 'f-exact', type: 'checkbox', checked: filters.exactOnly });
  const update = () => {
    filters = { depth: Number(depth.value), minConfidence: Number(conf.value), showNameOnly: nameOnly.checked, exactOnly: exact.checked };
    confOut.textContent = fmt(filters.minConfidence); conf.setAttribute('aria-valuetext', fmt(filters.minConfidence));
    save(); renderBody(r);
  };
  for (const el of [depth, conf, nameOnly, exact]) el.addEventListener(el === conf ? 'input' : 'change', update);
  return h('div', { class: 'filters', role: 'group', 'aria-label': 'Filters' }, [
    h('label', { for: 'f-depth' }, ['Depth ']), depth,
    h('label', { for: 'f-confidence' }, ['Min. confidence ']), conf, confOut,
    h('label', { class: 'check' }, [nameOnly, ' Name-only']),
    h('label', { class: 'check' }, [exact, ' Exact only']),
    h('span', { class: 'legend', 'aria-hidden': 'true' }, [
      h('span', { class: 'swatch exact' }), 'exact ', h('span', { class: 'swatch best_effort' }), 'best effort ',
      h('span', { class: 'swatch name_only' }), 'name only ', h('span', { class: 'swatch via-container' }), '◇ via container']),
  ]);
}

// ---- page -----------------------------------------------------------------------------------------

const body = h('div', { id: 'body' });

function table(shown: Affected[]): HTMLElement {
  return h('table', { class: 'affected' }, [
    h('thead', {}, [h('tr', {}, ['Distance', 'Dependent', 'Resolution', 'Confidence', 'Via'].map(x => h('th', { scope: 'col' }, [x])))]),
    h('tbody', {}, shown.map(a => h('tr', {}, [
      h('td', {}, [String(a.distance), a.via_container ? h('span', { class: 'muted', title: 'depends only on a container of the target' }, [' ◇ container']) : null]),
      h('td', {}, [link(a.node)]),
      h('td', { class: a.name_only ? 'name_only' : a.resolution }, [resolutionText(a)]),
      h('td', {}, [fmt(a.confidence)]),
      h('td', { class: 'muted' }, [a.via]),
    ]))),
  ]);
}

const STATUS_MARK: Record<string, string> = { current: '✓', relocated: '↪', stale: '⚠', gone: '✗' };
function memories(list: Memory[]): Child[] {
  const flagged = list.filter(m => m.status === 'stale' || m.status === 'gone').length;
  return [
    h('h3', {}, [`Memories (${list.length})`, flagged ? h('span', { class: 'warn' }, [` — ${flagged} stale or gone`]) : null]),
    list.length ? h('ul', { class: 'memories' }, list.map(m => {
      const edit = h('a', { href: '#', title: m.id }, ['edit']);
      edit.addEventListener('click', e => { e.preventDefault(); vscode().postMessage({ type: 'edit_memory', id: m.id }); });
      return h('li', { class: `memory status-${m.status}` }, [
        h('span', { class: m.status === 'stale' || m.status === 'gone' ? 'warn' : 'muted' }, [`${STATUS_MARK[m.status] ?? ''} ${m.status} `]),
        clip(m.text.replace(/\s+/g, ' '), 160), ' ', edit]);
    })) : h('p', { class: 'muted' }, ['none']),
  ];
}

function renderBody(r: ImpactResult): void {
  const shown = filterAffected(r.affected, filters);
  drawGraph(r, shown);
  summary.textContent = `${shown.length} of ${r.affected.length} dependent(s) shown${r.truncated ? ` (the answer lists ${r.affected.length} of ${r.total_affected})` : ''}.`;
  const mods = Object.entries(r.affected_by_module);
  const parts: Child[] = [
    h('div', { class: 'graph-wrap' }, [svg]), summary,
    h('h3', {}, ['Dependents']), shown.length ? table(shown) : h('p', { class: 'muted' }, ['No dependent passes the filters.']),
    mods.length ? h('h3', {}, ['By module']) : null,
    mods.length ? h('ul', {}, mods.map(([m, n]) => h('li', {}, [h('code', {}, [m]), `: ${n}`]))) : null,
    ...(Array.isArray(r.memories) ? memories(r.memories) : []),
    h('h3', {}, [`Related tests (${r.total_related_tests})`]),
    r.related_tests.length ? h('ul', {}, r.related_tests.map(x => h('li', {}, [link(x.node), h('span', { class: 'muted' }, [` — ${x.reason}`])]))) : h('p', { class: 'muted' }, ['none found']),
    h('h3', {}, ['Entry points']),
    r.affected_entry_points.length ? h('ul', {}, r.affected_entry_points.map(n => h('li', {}, [link(n)]))) : h('p', { class: 'muted' }, ['none found']),
  ];
  body.replaceChildren(...parts.filter((p): p is Node | string => !!p));
}

function render(r: ImpactResult): void {
  if (!r.resolved.length) {
    root.replaceChildren(h('h2', {}, [`${r.target} is ambiguous`]), h('p', {}, ['It names several symbols; run the impact on one of them:']),
      h('ul', {}, r.ambiguous.map(n => h('li', {}, [link(n)]))));
    return;
  }
  const t = r.resolved[0]!;
  root.replaceChildren(
    h('header', {}, [
      h('h2', {}, [`Impact of ${t.kind} `, h('code', {}, [labelOf(t)])]),
      h('p', { id: 'completeness', class: r.complete ? 'ok' : 'warn' }, [
        `${r.total_affected} dependent(s), ${r.total_direct} direct, in ${r.total_affected_files} file(s) — `,
        h('strong', {}, [r.complete ? 'complete' : 'lower bound, not "no impact"'])]),
      r.boundaries.length ? h('ul', { class: 'boundaries' }, r.boundaries.map(b => h('li', {}, [h('b', {}, [b.kind]), ` ${b.detail}`]))) : null,
      r.total_affected === 0 && !r.complete ? h('p', { class: 'warn' }, ['No dependents were found, but this is not "no impact": see above.']) : null,
    ]),
    filterBar(r), body);
  renderBody(r);
}

listen(msg => {
  if (msg.type === 'impact') render(msg.result);
  else if (msg.type === 'error') root.replaceChildren(h('p', { class: 'warn', role: 'alert' }, [msg.message]));
});
