/** DOM helpers for the webviews: elements from attributes and children, never from HTML strings. */
import type { FromView, ToView } from './types';

interface VsCodeApi { postMessage(msg: FromView): void; getState(): unknown; setState(s: unknown): void }
declare function acquireVsCodeApi(): VsCodeApi;
let api: VsCodeApi | undefined;
/** The webview's channel to the extension (acquired once per page). */
export const vscode = (): VsCodeApi => (api ??= acquireVsCodeApi());

export type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined>;

function apply(el: Element, attrs: Attrs, children: Child[]): void {
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== false) el.setAttribute(k, v === true ? '' : String(v));
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
}
/** An HTML element. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, children: Child[] = []): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  apply(el, attrs, children);
  return el;
}
const SVG = 'http://www.w3.org/2000/svg';
/** An SVG element; geometry goes in attributes (the CSP allows no inline style). */
export function s<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Attrs = {}, children: Child[] = []): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  apply(el, attrs, children);
  return el;
}

/** Calls `fn` with each message the extension posts, then says the view is ready. */
export function listen(fn: (msg: ToView) => void): void {
  window.addEventListener('message', (e: MessageEvent<ToView>) => { if (e.data && typeof e.data === 'object' && 'type' in e.data) fn(e.data); });
  vscode().postMessage({ type: 'ready' });
}
