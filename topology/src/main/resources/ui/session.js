// One session: summary (Markdown, with its version), live messages with roles, tool calls with
// their results beside them, truncated outputs with a link to the stored full text, and the
// compaction history the session keeps (counters, what is pending, the last failure).
import {ApiError, api} from './api.js';
import {fmt, gauge, h, mount, when} from './dom.js';
import {renderMarkdown} from './markdown.js';

const STORED = /is stored in tool_result\/([0-9a-f]{32})\.txt/;
const COUNTERS = [
  ['COMPACTIONS_REQUESTED', 'requested'], ['COMPACTIONS_APPLIED', 'applied'], ['COMPACTIONS_FAILED', 'failed'],
  ['COMPACTIONS_TIMED_OUT', 'timed out'], ['INVALID_SUMMARIES', 'invalid summaries'], ['NO_VALID_CUT', 'no valid cut'],
  ['SPANS_SHRUNK', 'spans shrunk'], ['UNANSWERED_CALLS', 'unanswered calls compacted'],
  ['TRUNCATED_OUTPUTS', 'outputs truncated'], ['MESSAGES', 'messages'], ['DUPLICATE_MESSAGES', 'duplicates dropped'],
  ['DIARY_FAILURES', 'diary failures'], ['DIARY_DEAD_LETTERED', 'diary spans dead-lettered'],
];

export async function render(view, args, params, current) {
  const id = args[0];
  const c = await api('GET', '/v1/sessions/' + encodeURIComponent(id) + '/context?window=all');
  if (!current()) return;
  const t = c.tokens || {};
  const comp = c.compaction || {};
  const counters = comp.counters || {};

  const summary = h('section', {class: 'panel', id: 'summary'},
    h('h2', {}, 'Summary ', c.summaryVersion ? h('span', {class: 'badge', id: 'summary-version'}, 'version ' + c.summaryVersion)
      : h('span', {class: 'badge'}, 'none yet'), ' ', comp.lastSummaryAt ? when(comp.lastSummaryAt) : null),
    c.summary ? renderMarkdown(c.summary) : h('p', {class: 'muted'}, 'No compaction has been applied to this session yet.'));

  const history = h('section', {class: 'panel', id: 'compaction'},
    h('h2', {}, 'Compaction'),
    h('dl', {class: 'kv'},
      h('dt', {}, 'Window'), h('dd', {}, gauge(t.thresholdRatio, 'live tokens against the threshold'), ' ',
        `${fmt(t.messages)} live + ${fmt(t.summary)} summary tokens; threshold ${fmt(t.threshold)} of ${fmt(t.maxInputLength)}`),
      h('dt', {}, 'In flight'), h('dd', {id: 'pending'}, comp.pending
        ? `${comp.pending.messageCount} messages (${fmt(comp.pending.tokens)} tokens), requested ` : 'nothing',
        comp.pending ? when(comp.pending.requestedAt) : null),
      comp.lastFailure ? [h('dt', {}, 'Last failure'), h('dd', {class: 'error'}, comp.lastFailure, ' ', when(comp.lastFailureAt))] : null,
      comp.nextAttemptAt ? [h('dt', {}, 'Next attempt'), h('dd', {}, when(comp.nextAttemptAt))] : null,
      h('dt', {}, 'Epoch'), h('dd', {}, fmt(comp.epoch))),
    h('div', {class: 'table-wrap'}, h('table', {id: 'counters'}, h('tbody', {},
      COUNTERS.filter(([k]) => counters[k]).map(([k, label]) => h('tr', {}, h('td', {}, label), h('td', {class: 'num'}, fmt(counters[k]))))))));

  mount(view,
    h('h1', {}, 'Session ', h('span', {id: 'session-id'}, c.session)),
    h('p', {}, 'User ', h('a', {href: '#/user/' + encodeURIComponent(c.user), id: 'session-user'}, c.user), ' · ',
      h('a', {href: '#/search?sessions=' + encodeURIComponent(c.session)}, 'search this session\'s memories')),
    h('div', {class: 'split'}, summary, history),
    h('h2', {}, `Live messages (${(c.messages || []).length})`),
    h('div', {id: 'messages'}, messages(c.messages || [])));
}

/** The messages, each tool result drawn under the call it answers (the oldest unanswered call with its id). */
function messages(list) {
  const shown = new Set();
  const results = [];
  list.forEach((m, mi) => (m.message?.content || []).forEach((b, bi) => {
    if (b.type === 'tool_result') results.push({b, mi, bi, key: mi + ':' + bi, time: m.message.time});
  }));
  function answerOf(call, mi, bi) {
    const r = results.find((x) => !shown.has(x.key) && x.b.id === call.id && (x.mi > mi || (x.mi === mi && x.bi > bi)));
    if (r) shown.add(r.key);
    return r;
  }
  return list.map((stored, mi) => {
    const m = stored.message || {};
    const blocks = (m.content || []).map((b, bi) => {
      const key = mi + ':' + bi;
      if (b.type === 'tool_result' && shown.has(key)) return null;
      if (b.type === 'tool_use') {
        const r = answerOf(b, mi, bi);
        return h('div', {class: 'call'},
          h('div', {}, h('strong', {}, 'call '), h('code', {}, b.name || '?'), ' ', h('span', {class: 'muted'}, b.id)),
          h('pre', {}, b.input ?? ''),
          r ? h('div', {class: 'result'}, h('div', {class: 'muted'}, 'result ', when(r.time)), output(r.b.output))
            : h('div', {class: 'result muted'}, 'no result yet'));
      }
      if (b.type === 'tool_result') {
        return h('div', {class: 'result'}, h('div', {class: 'muted'}, 'result of ', h('code', {}, b.name || b.id),
          ' (its call is no longer live)'), output(b.output));
      }
      if (b.type === 'thinking') return h('details', {}, h('summary', {}, 'thinking'), h('div', {class: 'text'}, b.thinking));
      if (b.type === 'image') return h('div', {class: 'muted'}, '[image ' + (b.mediaType || '') + ']');
      return h('div', {class: 'text'}, b.text ?? '');
    }).filter(Boolean);
    if (blocks.length === 0) return null;
    return h('article', {class: 'msg ' + String(m.role || '').toLowerCase(), dataset: {seq: stored.seq}},
      h('header', {}, h('span', {class: 'role'}, m.role), m.name ? h('span', {}, m.name) : null, when(m.time),
        h('span', {}, fmt(stored.tokens) + ' tokens'), h('span', {}, '#' + stored.seq)),
      blocks);
  }).filter(Boolean);
}

/** A tool output; a truncated one gets a link that loads the full text the sink stored. */
function output(text) {
  const pre = h('pre', {class: 'output'}, text ?? '');
  const stored = String(text ?? '').match(STORED);
  if (!stored) return pre;
  const status = h('span', {class: 'muted'});
  const link = h('a', {href: '#', class: 'full-output', dataset: {id: stored[1]}, onclick: async (e) => {
    e.preventDefault();
    mount(status, ' loading…');
    try {
      const full = await api('GET', '/v1/tool-results/' + stored[1]);
      mount(pre, full);
      pre.classList.add('full');
      link.remove();
      mount(status, ` full output, ${fmt(new TextEncoder().encode(full).length)} bytes`);
    } catch (err) {
      mount(status, h('span', {class: 'error'}, err instanceof ApiError ? err.message : String(err)));
    }
  }}, 'Load the full output');
  return h('div', {}, h('div', {}, h('span', {class: 'badge warn'}, 'truncated'), link, status), pre);
}
