// Search over the tenant's memory (POST /v1/search): type, user and time filters; each hit with its
// text, where it came from, and the text (BM25) and vector (cosine) scores beside the fused one.
import {api, query} from './api.js';
import {h, mount, sources, when} from './dom.js';

const TYPES = ['personal', 'procedural', 'tool', 'diary_chunk', 'dialog_chunk'];

export async function render(view, args, params, current) {
  const results = h('div', {id: 'results'});
  const q = params.get('q') || '';
  const form = h('form', {class: 'row', id: 'search-form', onsubmit: (e) => {
    e.preventDefault();
    const f = e.target.elements;
    location.hash = '#/search' + query({q: f.q.value, type: f.type.value, user: f.user.value.trim(),
      from: f.from.value, to: f.to.value, sessions: params.get('sessions')});
  }},
  h('label', {}, 'Query', h('input', {name: 'q', value: q, size: 40, placeholder: 'what to look for', required: true})),
  h('label', {}, 'Type', h('select', {name: 'type'}, h('option', {value: ''}, 'any'),
    TYPES.map((t) => h('option', {value: t, selected: t === params.get('type')}, t)))),
  h('label', {}, 'User', h('input', {name: 'user', value: params.get('user') || '', placeholder: 'any'})),
  h('label', {}, 'From', h('input', {name: 'from', type: 'date', value: params.get('from') || ''})),
  h('label', {}, 'To', h('input', {name: 'to', type: 'date', value: params.get('to') || ''})),
  h('button', {type: 'submit', class: 'primary'}, 'Search'));
  mount(view, h('h1', {}, 'Search'), form,
    params.get('sessions') ? h('p', {class: 'muted'}, 'Only session ' + params.get('sessions')) : null, results);
  if (!q) return;

  const body = {query: q, k: 20};
  if (params.get('type')) body.types = [params.get('type')];
  if (params.get('user')) body.users = [params.get('user')];
  if (params.get('sessions')) body.sessions = [params.get('sessions')];
  if (params.get('from')) body.from = params.get('from') + 'T00:00:00Z';
  if (params.get('to')) body.to = params.get('to') + 'T23:59:59Z';
  const answer = await api('POST', '/v1/search', body);
  if (!current()) return;
  const hits = answer.hits || [];
  const score = (v) => (v === null || v === undefined ? h('span', {class: 'muted'}, '—') : Number(v).toFixed(3));
  mount(results,
    answer.partial ? h('div', {class: 'notice'}, 'Some partitions did not answer: hits may be missing.') : null,
    h('p', {class: 'muted'}, `${hits.length} hits`, answer.timings?.totalMs !== undefined ? ` in ${Math.round(answer.timings.totalMs)} ms` : ''),
    hits.length ? h('div', {class: 'table-wrap'}, h('table', {id: 'hits'},
      h('thead', {}, h('tr', {}, h('th', {}, 'Text'), h('th', {}, 'Source'), h('th', {class: 'num'}, 'Fused'),
        h('th', {class: 'num'}, 'Text'), h('th', {class: 'num'}, 'Vector'))),
      h('tbody', {}, hits.map((hit) => h('tr', {class: 'hit', dataset: {id: hit.id}},
        h('td', {class: 'text'}, hit.text),
        h('td', {}, h('span', {class: 'badge'}, String(hit.type).toLowerCase()),
          hit.user ? h('a', {href: '#/user/' + encodeURIComponent(hit.user)}, hit.user) : null,
          hit.metadata?.path ? h('div', {class: 'muted'}, hit.metadata.path + (hit.metadata.startLine ? `:${hit.metadata.startLine}-${hit.metadata.endLine}` : '')) : null,
          sources(hit.sources),
          hit.session ? h('div', {}, h('a', {href: '#/session/' + encodeURIComponent(hit.session)}, hit.session)) : null,
          h('div', {}, when(hit.conversationTime || hit.updatedAt))),
        h('td', {class: 'num fused'}, score(hit.score)),
        h('td', {class: 'num text-score'}, score(hit.textScore)),
        h('td', {class: 'num vector-score'}, score(hit.vectorScore))))))) : h('p', {class: 'muted', id: 'no-hits'}, 'Nothing found.'));
}
