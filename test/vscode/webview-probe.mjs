// The harness side of the webview tests. A webview's page is an iframe inside an iframe of the
// workbench, out of reach of the extension-host suite; the suite logs
//   [sightline-webview] {"id": "...", "scenario": "impact" | "memory" | "memory-delete", "screenshot": "NAME.png"?, "waitFor": "text"?}
// and run.mjs hands the request to `probe`, which finds the frame whose document is that Sightline view
// (`main#root[data-view=…]`), checks what it rendered, drives it with the keyboard only, takes the
// screenshot and writes `<id>.json` into the results folder the suite polls.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Console errors and CSP reports of every frame of the page, from the first load on. */
export function watchConsole(page) {
  const messages = [];
  page.on('console', (m) => {
    if (m.type() !== 'error' && m.type() !== 'warning' && !/Content Security Policy/i.test(m.text())) return;
    messages.push({ type: m.type(), text: m.text(), url: m.location()?.url ?? '' });
  });
  page.on('pageerror', (e) => messages.push({ type: 'pageerror', text: e.message, url: '' }));
  // In every frame, before its scripts: keep the CSP violations the document reports.
  return page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window.__sightlineCsp ||= []).push({ directive: e.violatedDirective, blocked: e.blockedURI, source: e.sourceFile, sample: e.sample });
    });
  }).then(() => messages);
}

const webviewMessage = (m) => /Content Security Policy/i.test(m.text) || /webview|vscode-resource|vscode-cdn/i.test(m.url);

async function findView(page, view, ms = 20000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    for (const f of page.frames()) {
      try {
        if (await f.evaluate((v) => !!document.querySelector(`main#root[data-view="${v}"]`) && document.getElementById('root').textContent !== 'Loading…', view)) return f;
      } catch { /* detached or not ready */ }
    }
    await new Promise(r => setTimeout(r, 250));
  }
  throw new Error(`no webview frame shows the ${view} view after ${ms} ms (frames: ${page.frames().map(f => f.url()).join(' | ')})`);
}

const active = (frame) => frame.evaluate(() => {
  const a = document.activeElement;
  return a ? { tag: a.tagName.toLowerCase(), id: a.id || null, key: a.getAttribute('data-key'), col: a.getAttribute('data-col'), path: a.getAttribute('data-path'), label: a.getAttribute('aria-label') } : null;
});

/** Presses `key` on whatever has the focus in `frame`. */
const press = (frame, key) => frame.locator(':focus').press(key);

/** The panel's picture, taken in a larger window (the panel gets half of it), which is restored after. */
async function screenshot(frame, file, page) {
  const size = page.viewportSize();
  await page.setViewportSize({ width: 1800, height: 1000 });
  await new Promise(r => setTimeout(r, 800)); // relayout
  try {
    // The panel down to the end of its content (no empty page below).
    const box = await (await frame.frameElement()).boundingBox();
    const content = await frame.evaluate(() => Math.ceil(document.getElementById('root').getBoundingClientRect().bottom) + 12);
    await page.screenshot({ path: file, clip: { x: box.x, y: box.y, width: box.width, height: Math.min(box.height, content) } });
  } finally {
    if (size) await page.setViewportSize(size);
  }
  await new Promise(r => setTimeout(r, 500));
  return file;
}

const SCENARIOS = {
  /** The impact graph: rendered, reachable by Tab, ArrowRight to a dependent, Enter opens it. */
  async impact(frame, req, out, page) {
    Object.assign(out, await frame.evaluate(() => {
      const nodes = [...document.querySelectorAll('#graph g.node')];
      return {
        nodes: nodes.length, target: document.querySelectorAll('#graph g.node.target').length,
        targetLabel: document.querySelector('#graph g.node.target')?.getAttribute('aria-label') ?? null,
        edges: document.querySelectorAll('#graph path.edge').length,
        edgeStyles: [...new Set([...document.querySelectorAll('#graph path.edge')].map(e => e.getAttribute('class')))],
        focusable: nodes.filter(n => n.getAttribute('tabindex') === '0').length,
        labelled: nodes.filter(n => n.getAttribute('role') === 'graphics-symbol' && n.getAttribute('aria-label')).length,
        graphRole: document.getElementById('graph')?.getAttribute('role') ?? null,
        tableRows: document.querySelectorAll('table.affected tbody tr').length,
        completeness: document.getElementById('completeness')?.textContent ?? null,
        filters: ['f-depth', 'f-confidence', 'f-name-only', 'f-exact'].filter(id => document.getElementById(id)),
        inlineStyles: document.body.querySelectorAll('[style]').length,
      };
    }));
    if (req.screenshot) out.screenshot = await screenshot(frame, req.screenshotPath, page);
    // Keyboard only: from the first filter, Tab until a graph node has the focus.
    await frame.focus('#f-depth');
    let tabs = 0;
    for (; tabs < 12; tabs++) { const a = await active(frame); if (a?.key) break; await press(frame, 'Tab'); }
    out.tabsToGraph = tabs;
    out.focusedFirst = await active(frame);
    await press(frame, 'ArrowRight');
    out.afterRight = await active(frame);
    await press(frame, 'ArrowDown');
    out.afterDown = await active(frame);
    await press(frame, 'ArrowUp');
    out.afterUp = await active(frame);
    out.focusRing = await frame.evaluate(() => { const r = document.activeElement?.querySelector('.focus-ring'); return r ? getComputedStyle(r).stroke : null; });
    // Filters by keyboard too: exact-only keeps only exact dependents (and the target), unchecking restores.
    await frame.focus('#f-exact');
    await press(frame, ' ');
    out.exactOnly = await frame.evaluate(() => ({ nodes: document.querySelectorAll('#graph g.node').length, notExact: document.querySelectorAll('#graph g.node.best_effort, #graph g.node.name-only').length }));
    await press(frame, ' ');
    out.nodesAfterReset = await frame.evaluate(() => document.querySelectorAll('#graph g.node').length);
    // Back into the graph with Tab: the roving tabindex kept the node, Enter opens its file.
    for (let i = 0; i < 12; i++) { const a = await active(frame); if (a?.key) break; await press(frame, 'Tab'); }
    out.refocused = await active(frame);
    await press(frame, 'Enter');
    out.opened = out.refocused;
  },

  /** The memory editor: rendered text and anchor; edit and Save with the keyboard; the answer shown. */
  async memory(frame, req, out, page) {
    Object.assign(out, await frame.evaluate(() => ({
      badge: document.getElementById('m-badge')?.textContent ?? null,
      anchor: document.getElementById('m-anchor')?.textContent ?? null,
      preview: document.getElementById('m-preview')?.innerHTML ?? null,
      text: document.getElementById('m-text')?.value ?? null,
      buttons: [...document.querySelectorAll('.buttons button')].map(b => b.textContent),
      inlineStyles: document.body.querySelectorAll('[style]').length,
    })));
    if (req.screenshot) out.screenshot = await screenshot(frame, req.screenshotPath, page);
    await frame.focus('#m-text');
    await frame.locator('#m-text').press('End');
    await frame.locator('#m-text').pressSequentially(req.append ?? '');
    await press(frame, 'Tab');
    out.tabbedTo = await active(frame);
    await press(frame, 'Enter');
    await frame.waitForFunction(() => { const s = document.getElementById('m-status')?.textContent ?? ''; return s && s !== 'Saving…'; }, null, { timeout: 15000 });
    out.status = await frame.evaluate(() => ({ text: document.getElementById('m-status').textContent, cls: document.getElementById('m-status').className }));
    out.textAfter = await frame.evaluate(() => document.getElementById('m-text')?.value ?? null);
  },

  /** Delete asks first: the first Enter arms the button (and says so), Escape disarms, a second Enter deletes. */
  async 'memory-delete'(frame, req, out) {
    const state = () => frame.evaluate(() => ({ button: document.getElementById('m-delete')?.textContent ?? null, status: document.getElementById('m-status')?.textContent ?? null, title: document.querySelector('h2')?.textContent ?? null }));
    await frame.focus('#m-delete');
    await press(frame, 'Enter');
    out.armed = await state();
    await press(frame, 'Escape');
    out.disarmed = await state();
    await press(frame, 'Enter');
    await press(frame, 'Enter');
    await frame.waitForFunction(() => document.querySelector('h2')?.textContent === 'Memory deleted', null, { timeout: 15000 });
    out.deleted = await state();
  },
};

/** Runs one request; always writes a result file (with `error` when something failed). */
export async function probe(page, req, { resultsDir, screenshotDir, messages }) {
  mkdirSync(resultsDir, { recursive: true });
  const out = { id: req.id, scenario: req.scenario };
  const seen = messages.length;
  try {
    const scenario = SCENARIOS[req.scenario];
    if (!scenario) throw new Error(`unknown scenario ${req.scenario}`);
    const view = req.scenario.startsWith('memory') ? 'memory' : 'impact';
    const frame = await findView(page, view);
    out.frameUrl = frame.url();
    if (req.waitFor) await frame.waitForFunction((s) => document.body.textContent.includes(s), req.waitFor, { timeout: 15000 });
    if (req.screenshot) { mkdirSync(screenshotDir ?? resultsDir, { recursive: true }); req.screenshotPath = join(screenshotDir ?? resultsDir, req.screenshot); }
    await scenario(frame, req, out, page);
    await new Promise(r => setTimeout(r, 300)); // late console messages
    out.csp = await frame.evaluate(() => window.__sightlineCsp ?? []).catch(() => []);
  } catch (e) {
    out.error = String(e?.stack ?? e);
  }
  out.consoleErrors = messages.filter(webviewMessage);
  out.newConsoleErrors = messages.slice(seen).filter(webviewMessage).length;
  writeFileSync(join(resultsDir, `${req.id}.json`), JSON.stringify(out, null, 2));
  return out;
}
