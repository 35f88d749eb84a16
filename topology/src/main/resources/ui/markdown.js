// A small Markdown renderer that builds DOM nodes, never HTML text: summaries and diaries are
// written by a model from what users said, so they are untrusted. Raw HTML in the source is shown
// as text. Links keep only http(s), mailto and in-page targets. Covers what the summaries and
// diaries use: headings, paragraphs, lists, code (fenced and inline), quotes, rules, bold, italic.
import {h} from './dom.js';

const SAFE_URL = /^(https?:\/\/|mailto:|#)/i;

export function renderMarkdown(source) {
  const root = h('div', {class: 'md'});
  const lines = String(source ?? '').replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (/^\s*$/.test(line)) { i++; continue; }
    const fence = line.match(/^\s*(```|~~~)(.*)$/);
    if (fence) {
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i++]);
      i++;
      root.append(h('pre', {}, h('code', {}, body.join('\n'))));
      continue;
    }
    const heading = line.match(/^(#{1,6})\s+(.*?)\s*#*\s*$/);
    if (heading) {
      root.append(h(`h${Math.min(6, heading[1].length + 2)}`, {}, inline(heading[2])));
      i++;
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) { root.append(h('hr')); i++; continue; }
    if (/^\s*>/.test(line)) {
      const quoted = [];
      while (i < lines.length && /^\s*>/.test(lines[i])) quoted.push(lines[i++].replace(/^\s*>\s?/, ''));
      root.append(h('blockquote', {}, renderMarkdown(quoted.join('\n'))));
      continue;
    }
    const item = line.match(/^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/);
    if (item) {
      const ordered = /\d/.test(item[2]);
      const list = h(ordered ? 'ol' : 'ul');
      while (i < lines.length) {
        const m = lines[i].match(/^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/);
        if (!m) {
          // A continuation line (indented, not blank) belongs to the last item.
          if (/^\s{2,}\S/.test(lines[i]) && list.lastChild) {
            list.lastChild.append(' ', ...inline(lines[i].trim()));
            i++;
            continue;
          }
          break;
        }
        const nested = m[1].length >= 2;
        const li = h('li', {class: nested ? 'nested' : null}, inline(m[3]));
        list.append(li);
        i++;
      }
      root.append(list);
      continue;
    }
    const para = [];
    while (i < lines.length && !/^\s*$/.test(lines[i]) && !/^(#{1,6}\s|\s*```|\s*~~~|\s*>|\s*([-*+]|\d{1,9}[.)])\s)/.test(lines[i])) {
      para.push(lines[i++].trim());
    }
    if (para.length === 0) { para.push(lines[i++]); }
    const p = h('p');
    para.forEach((text, n) => { if (n > 0) p.append(h('br')); p.append(...inline(text)); });
    root.append(p);
  }
  return root;
}

/** Inline spans: `code`, **bold**, *italic* / _italic_, [text](url). Returns nodes. */
export function inline(text) {
  const out = [];
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*|\b_([^_]+)_\b|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  let m;
  while ((m = pattern.exec(text)) !== null) {
    if (m.index > last) out.push(document.createTextNode(text.slice(last, m.index)));
    if (m[1] !== undefined) out.push(h('code', {}, m[1]));
    else if (m[2] !== undefined || m[3] !== undefined) out.push(h('strong', {}, inline(m[2] ?? m[3])));
    else if (m[4] !== undefined || m[5] !== undefined) out.push(h('em', {}, inline(m[4] ?? m[5])));
    else if (SAFE_URL.test(m[7])) {
      out.push(h('a', {href: m[7], rel: 'noopener noreferrer nofollow', target: m[7].startsWith('#') ? null : '_blank'}, m[6]));
    } else {
      out.push(document.createTextNode(m[0]));
    }
    last = pattern.lastIndex;
  }
  if (last < text.length) out.push(document.createTextNode(text.slice(last)));
  return out;
}
