/**
 * The Markdown subset a memory is shown in: paragraphs, bullet and numbered lists, fenced code blocks,
 * code spans and bold. Parsed into a small tree that the view builds with text nodes only, so no text
 * is ever read as HTML.
 */
export type Inline = { kind: 'text' | 'code' | 'strong'; text: string };
export type Block =
  | { kind: 'p'; inlines: Inline[] }
  | { kind: 'ul' | 'ol'; items: Inline[][] }
  | { kind: 'pre'; text: string };

export function inlines(text: string): Inline[] {
  const out: Inline[] = [];
  const re = /`([^`]+)`|\*\*([^*]+)\*\*/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) out.push({ kind: 'text', text: text.slice(last, m.index) });
    out.push(m[1] !== undefined ? { kind: 'code', text: m[1] } : { kind: 'strong', text: m[2]! });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ kind: 'text', text: text.slice(last) });
  return out;
}

const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d+[.)]\s+(.*)$/;

export function parseMarkdown(src: string): Block[] {
  const lines = src.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let para: string[] = [];
  const flush = () => { if (para.length) blocks.push({ kind: 'p', inlines: inlines(para.join(' ')) }); para = []; };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*```/.test(line)) {
      flush();
      const body: string[] = [];
      for (i++; i < lines.length && !/^\s*```/.test(lines[i]!); i++) body.push(lines[i]!);
      blocks.push({ kind: 'pre', text: body.join('\n') });
      continue;
    }
    const list = BULLET.test(line) ? 'ul' : NUMBERED.test(line) ? 'ol' : null;
    if (list) {
      flush();
      const re = list === 'ul' ? BULLET : NUMBERED;
      const items: Inline[][] = [];
      for (; i < lines.length && re.test(lines[i]!); i++) items.push(inlines(re.exec(lines[i]!)![1]!));
      i--;
      blocks.push({ kind: list, items });
      continue;
    }
    if (!line.trim()) flush(); else para.push(line.trim());
  }
  flush();
  return blocks;
}
