// Sessions of the tenant, most recently active first, a page at a time (GET /v1/sessions).
import {api, query} from './api.js';
import {fmt, gauge, h, mount, when} from './dom.js';

const PAGE = 25;

export async function render(view, args, params, current) {
  const userFilter = params.get('user') || '';
  const cursor = params.get('cursor') || '';
  // The cursors of the pages before this one ('-' is the first page), for going back.
  const back = params.getAll('back').map((c) => (c === '-' ? '' : c));
  const answer = await api('GET', '/v1/sessions' + query({user: userFilter, cursor, limit: PAGE}));
  if (!current()) return;
  let rows = answer.sessions || [];
  let sort = params.get('sort') || 'activity';

  const form = h('form', {class: 'row', onsubmit: (e) => {
    e.preventDefault();
    location.hash = '#/sessions' + query({user: e.target.elements.user.value.trim()});
  }},
  h('label', {}, 'User', h('input', {name: 'user', value: userFilter, placeholder: 'any user'})),
  h('button', {type: 'submit'}, 'Filter'));

  const table = h('table', {id: 'sessions'});
  const sorters = {
    activity: (a, b) => String(b.lastActivity).localeCompare(String(a.lastActivity)),
    oldest: (a, b) => String(a.lastActivity).localeCompare(String(b.lastActivity)),
    window: (a, b) => (b.windowUsage ?? 0) - (a.windowUsage ?? 0),
    failures: (a, b) => (b.compactionFailures ?? 0) - (a.compactionFailures ?? 0),
  };
  const sortLink = (key, label) => h('a', {href: '#/sessions' + query({user: userFilter, cursor, sort: key}),
    'aria-current': sort === key ? 'true' : null}, label);
  function draw() {
    const sorted = [...rows].sort(sorters[sort] || sorters.activity);
    mount(table,
      h('thead', {}, h('tr', {},
        h('th', {}, 'Session'), h('th', {}, 'User'),
        h('th', {}, sortLink(sort === 'activity' ? 'oldest' : 'activity', 'Last activity ' + (sort === 'oldest' ? '↑' : '↓'))),
        h('th', {class: 'num wide-only'}, 'Live msgs'),
        h('th', {}, sortLink('window', 'Window')),
        h('th', {class: 'wide-only'}, 'Summary'),
        h('th', {}, sortLink('failures', 'Compaction')))),
      h('tbody', {}, sorted.map((s) => h('tr', {dataset: {session: s.session}},
        h('td', {}, h('a', {href: '#/session/' + encodeURIComponent(s.session), class: 'session-link'}, s.session)),
        h('td', {}, h('a', {href: '#/user/' + encodeURIComponent(s.user)}, s.user)),
        h('td', {}, when(s.lastActivity)),
        h('td', {class: 'num wide-only'}, fmt(s.liveMessages)),
        h('td', {}, gauge(s.windowUsage, `${fmt((s.liveTokens ?? 0) + (s.summaryTokens ?? 0))} of ${fmt(s.threshold)} tokens (live + summary against the threshold)`)),
        h('td', {class: 'wide-only summary'}, s.summaryVersion ? 'v' + s.summaryVersion : h('span', {class: 'muted'}, 'none')),
        h('td', {},
          s.pendingCompaction ? h('span', {class: 'badge warn'}, 'pending') : null,
          s.compactionFailures ? h('span', {class: 'badge bad'}, fmt(s.compactionFailures) + ' failed') : null,
          !s.pendingCompaction && !s.compactionFailures ? h('span', {class: 'muted'}, '—') : null)))));
  }
  draw();

  const pager = h('div', {class: 'pager'},
    back.length ? h('a', {class: 'button', href: '#/sessions' +
        query({user: userFilter, cursor: back[back.length - 1] || null, back: back.slice(0, -1).map((c) => c || '-')})}, '← Newer') : null,
    answer.nextCursor ? h('a', {class: 'button', id: 'next-page', href: '#/sessions' +
        query({user: userFilter, cursor: answer.nextCursor, back: [...back, cursor].map((c) => c || '-')})}, 'Older →') : null,
    h('span', {class: 'muted'}, `${rows.length} on this page`));

  mount(view,
    h('h1', {}, 'Sessions'),
    form,
    answer.partial ? h('div', {class: 'notice'}, 'Some partitions did not answer (' + (answer.missingPartitions || []).join(', ') +
        '): the list may miss sessions. Reload in a moment.') : null,
    rows.length ? h('div', {class: 'table-wrap'}, table) : h('p', {class: 'muted', id: 'no-sessions'}, 'No sessions yet.'),
    pager);
}
