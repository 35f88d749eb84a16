// Builds elements from data without ever parsing text as HTML: strings become text nodes, so
// whatever a session, diary or memory holds is shown as written and never run.

/** h('a', {href: '#/x', class: 'c'}, 'text', child) → an element; null and false children are skipped. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2), value);
    } else if (name === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (name === 'value') {
      el.value = value;
    } else {
      el.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Replaces an element's content. */
export function mount(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/** "3 min ago" style, with the exact time as a tooltip. */
export function when(iso) {
  if (!iso) return h('span', {class: 'muted'}, '—');
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return h('span', {}, String(iso));
  const s = Math.round((Date.now() - t.getTime()) / 1000);
  let text;
  if (s < 0) text = t.toLocaleString();
  else if (s < 60) text = `${s} s ago`;
  else if (s < 3600) text = `${Math.round(s / 60)} min ago`;
  else if (s < 86400) text = `${Math.round(s / 3600)} h ago`;
  else text = t.toLocaleDateString() + ' ' + t.toLocaleTimeString();
  return h('time', {datetime: t.toISOString(), title: t.toISOString()}, text);
}

/** A bar for a 0..1+ ratio (over 1 shows full, in the warning colour). */
export function gauge(ratio, label) {
  const r = Number.isFinite(ratio) ? ratio : 0;
  const pct = Math.max(0, Math.min(1, r)) * 100;
  const level = r >= 1 ? 'over' : r >= 0.8 ? 'high' : 'ok';
  const fill = h('span', {class: `gauge-fill ${level}`});
  // Through the CSSOM: the page's policy refuses inline style attributes, not script-set styles.
  fill.style.width = `${pct}%`;
  return h('span', {class: 'gauge', title: label || `${Math.round(r * 100)} %`, role: 'meter',
      'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': Math.round(r * 100)},
    fill, h('span', {class: 'gauge-text'}, `${Math.round(r * 100)} %`));
}

export function fmt(n) {
  return n === null || n === undefined ? '—' : Number(n).toLocaleString();
}

// Where a memory or diary chunk came from: each span of dialog as its session (a link to it), its first and
// last message ids and its message count; the newest span last, as the API lists them.
export function sources(list) {
  if (!list || !list.length) return null;
  return h('div', {class: 'muted sources'}, 'from ', ...list.flatMap((s, i) => [
    i ? ', ' : '',
    h('a', {href: '#/session/' + encodeURIComponent(s.session)}, s.session),
    ` ${s.firstMessageId}…${s.lastMessageId} (${s.messages})`]));
}
