// Impact view (runs inside the webview, no Node, no network). Receives an `impact` result from the
// extension and renders it; clicking a location asks the extension to open it.
// @ts-check
(function () {
  // eslint-disable-next-line no-undef
  const vscode = acquireVsCodeApi();
  const root = document.getElementById('root');
  /** @param {string} tag @param {Record<string,string>} attrs @param {(Node|string)[]} children */
  const h = (tag, attrs = {}, children = []) => {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    for (const c of children) el.append(c);
    return el;
  };
  const loc = (node) => {
    const a = h('a', { href: '#', title: node.id }, [`${node.symbol_path ?? node.path}`]);
    a.addEventListener('click', e => { e.preventDefault(); vscode.postMessage({ type: 'open', path: node.path, repo_id: node.repo_id, line: node.range.start_line }); });
    return h('span', {}, [a, h('span', { class: 'muted' }, [` ${node.path}:${node.range.start_line}`])]);
  };
  function render(r) {
    root.replaceChildren();
    if (!r.resolved.length) {
      root.append(h('h2', {}, [`${r.target} is ambiguous`]), h('ul', {}, r.ambiguous.map(n => h('li', {}, [loc(n)]))));
      return;
    }
    const t = r.resolved[0];
    root.append(h('h2', {}, [`Impact of ${t.kind} `, h('code', {}, [t.symbol_path ?? t.path])]));
    root.append(h('p', { class: r.complete ? 'ok' : 'warn' }, [
      `${r.total_affected} dependent(s), ${r.total_direct} direct, in ${r.total_affected_files} file(s) — `,
      r.complete ? 'complete' : 'lower bound']));
    if (r.boundaries.length) root.append(h('ul', { class: 'boundaries' }, r.boundaries.map(b => h('li', {}, [h('b', {}, [b.kind]), ` ${b.detail}`]))));
    if (r.total_affected === 0 && !r.complete) root.append(h('p', { class: 'warn' }, ['No dependents were found, but this is not "no impact": see above.']));
    const table = h('table', {}, [h('tr', {}, ['distance', 'dependent', 'resolution', 'via'].map(x => h('th', {}, [x])))]);
    for (const a of r.affected) table.append(h('tr', {}, [
      h('td', {}, [String(a.distance) + (a.via_container ? ' (container)' : '')]), h('td', {}, [loc(a.node)]),
      h('td', { class: a.resolution }, [a.name_only ? `name only ${a.confidence}` : a.resolution]), h('td', { class: 'muted' }, [a.via])]));
    root.append(h('h3', {}, ['Dependents']), table);
    const mods = Object.entries(r.affected_by_module);
    if (mods.length) root.append(h('h3', {}, ['By module']), h('ul', {}, mods.map(([m, n]) => h('li', {}, [`${m}: ${n}`]))));
    root.append(h('h3', {}, [`Related tests (${r.total_related_tests})`]), r.related_tests.length
      ? h('ul', {}, r.related_tests.map(x => h('li', {}, [loc(x.node), h('span', { class: 'muted' }, [` — ${x.reason}`])])))
      : h('p', { class: 'muted' }, ['none found']));
    if (r.affected_entry_points.length) root.append(h('h3', {}, ['Entry points']), h('ul', {}, r.affected_entry_points.map(n => h('li', {}, [loc(n)]))));
  }
  window.addEventListener('message', e => {
    const msg = e.data;
    if (msg && msg.type === 'impact') render(msg.result);
    if (msg && msg.type === 'error') root.replaceChildren(h('p', { class: 'warn' }, [msg.message]));
  });
  vscode.postMessage({ type: 'ready' });
})();
