/**
 * The memory editor (runs in the webview). Shows one memory: its status, its anchor, its text rendered
 * from a Markdown subset (markdown.ts, text nodes only) and a text area to edit it; Save, Re-anchor,
 * Delete (asked twice: the first press arms it) and Open anchor are messages to the extension, which
 * answers with a status line.
 */
import { h, listen, vscode, type Child } from './dom';
import { parseMarkdown, type Inline } from './markdown';
import type { Memory } from './types';

const root = document.getElementById('root')!;
let memory: Memory | undefined;

const inline = (xs: Inline[]): Child[] => xs.map(x => (x.kind === 'code' ? h('code', {}, [x.text]) : x.kind === 'strong' ? h('strong', {}, [x.text]) : x.text));
function preview(text: string): HTMLElement {
  return h('div', { class: 'preview', id: 'm-preview' }, parseMarkdown(text).map(b =>
    b.kind === 'p' ? h('p', {}, inline(b.inlines))
      : b.kind === 'pre' ? h('pre', {}, [h('code', {}, [b.text])])
        : h(b.kind, {}, b.items.map(i => h('li', {}, inline(i))))));
}

export function anchorText(m: Memory): string {
  if (m.anchor_kind === 'repo') return `repository ${m.repo_id}`;
  const lines = m.start_line !== null ? `:${m.start_line}${m.end_line !== null && m.end_line !== m.start_line ? `-${m.end_line}` : ''}` : '';
  return `${m.anchor_path ?? m.anchor_id}${lines}${m.anchor_kind === 'symbol' ? ` · symbol ${m.anchor_id}` : ''}`;
}

const status = h('p', { id: 'm-status', role: 'status', 'aria-live': 'polite' });
function say(ok: boolean, message: string): void { status.className = ok ? 'ok' : 'warn'; status.textContent = message; }

/** Delete asks first, in the page: the first press arms it, the second deletes; Escape or leaving it disarms. */
function deleteButton(m: Memory): HTMLButtonElement {
  const b = h('button', { id: 'm-delete', type: 'button', class: 'secondary danger' }, ['Delete']);
  let armed = false;
  const disarm = () => { if (!armed) return; armed = false; b.textContent = 'Delete'; b.classList.remove('armed'); say(true, ''); };
  b.addEventListener('click', () => {
    if (!armed) {
      armed = true; b.textContent = 'Confirm delete'; b.classList.add('armed');
      say(false, 'Delete this memory for good? Press Confirm delete again, or Escape to keep it.');
      return;
    }
    armed = false; say(true, 'Deleting…');
    vscode().postMessage({ type: 'memory_delete', id: m.id });
  });
  b.addEventListener('keydown', e => { if (e.key === 'Escape') disarm(); });
  b.addEventListener('blur', disarm);
  return b;
}

function render(m: Memory): void {
  memory = m;
  const flagged = m.status === 'stale' || m.status === 'gone';
  const text = h('textarea', { id: 'm-text', rows: 8, 'aria-label': 'Memory text (Markdown)', spellcheck: 'true' });
  text.value = m.text;
  const shown = { el: preview(m.text) };
  text.addEventListener('input', () => { const p = preview(text.value); shown.el.replaceWith(p); shown.el = p; });
  const button = (id: string, label: string, onClick: () => void, extra: Record<string, string> = {}) => {
    const b = h('button', { id, type: 'button', ...extra }, [label]);
    b.addEventListener('click', onClick);
    return b;
  };
  const canOpen = m.anchor_kind !== 'repo' && !!m.anchor_path;
  root.replaceChildren(
    h('header', {}, [
      h('h2', {}, ['Memory ', h('span', { id: 'm-badge', class: `badge status-${m.status}${flagged ? ' warn' : ''}` }, [m.status])]),
      h('p', { id: 'm-anchor' }, [h('span', { class: 'muted' }, [`${m.anchor_kind} anchor: `]), h('code', {}, [anchorText(m)])]),
      flagged ? h('p', { class: 'warn' }, [m.status === 'stale' ? 'The anchored code changed: check the text, then Re-anchor it to where it belongs now.' : 'The anchored file is no longer indexed.']) : null,
      h('p', { class: 'muted' }, [`${m.scope} scope · source ${m.source} · confidence ${m.confidence} · updated ${new Date(m.updated_at_ms).toLocaleString()} · `, h('code', {}, [m.id])]),
    ]),
    h('h3', {}, ['Text']), shown.el,
    h('label', { for: 'm-text', class: 'muted' }, ['Edit (Markdown: paragraphs, lists, `code`, **bold**)']), text,
    h('div', { class: 'buttons', role: 'group', 'aria-label': 'Memory actions' }, [
      button('m-save', 'Save', () => { say(true, 'Saving…'); vscode().postMessage({ type: 'memory_save', id: m.id, text: text.value }); }),
      button('m-reanchor', 'Re-anchor', () => { say(true, 'Re-anchoring…'); vscode().postMessage({ type: 'memory_reanchor', id: m.id }); }, { class: 'secondary' }),
      canOpen ? button('m-open', 'Open anchor', () => vscode().postMessage({ type: 'open', path: m.anchor_path!, repo_id: m.repo_id, line: m.start_line ?? 1 }), { class: 'secondary' }) : null,
      deleteButton(m),
    ]),
    status,
  );
}

listen(msg => {
  if (msg.type === 'memory') render(msg.memory);
  else if (msg.type === 'status') { if (!memory) root.replaceChildren(status); say(msg.ok, msg.message); }
  else if (msg.type === 'deleted') { memory = undefined; root.replaceChildren(h('h2', {}, ['Memory deleted']), status); say(true, `${msg.id} was deleted.`); }
  else if (msg.type === 'error') { memory = undefined; root.replaceChildren(status); say(false, msg.message); }
});
