// The pipeline on this instance (GET /v1/pipeline): readiness, input lag, dead letters by reason,
// LLM request outcomes and attempts, compactions, a change of embedding model. The same numbers /metrics exports.
import {api} from './api.js';
import {fmt, h, mount} from './dom.js';

function table(id, head, rows) {
  if (!rows.length) return h('p', {class: 'muted', id}, 'Nothing yet.');
  return h('div', {class: 'table-wrap'}, h('table', {id},
    h('thead', {}, h('tr', {}, head.map((t, i) => h('th', {class: i ? 'num' : null}, t)))),
    h('tbody', {}, rows.map((r) => h('tr', {}, r.map((c, i) => h('td', {class: i ? 'num' : null}, c)))))));
}

function nested(map) {
  const columns = [...new Set(Object.values(map || {}).flatMap((m) => Object.keys(m)))].sort();
  const rows = Object.entries(map || {}).filter(([, m]) => Object.values(m).some((v) => v > 0))
    .map(([k, m]) => [k, ...columns.map((c) => fmt(m[c] ?? 0))]);
  return {columns, rows};
}

export async function render(view, args, params, current) {
  const p = await api('GET', '/v1/pipeline');
  if (!current()) return;
  const m = p.metrics || {};
  const health = p.health || {};
  const requests = nested(m.llmRequests);
  const calls = nested(m.llmCalls);
  const dead = Object.entries(m.deadLetters || {}).filter(([, v]) => v > 0);
  const r = m.reembedding || {};
  const restoring = m.indexRestore || {};
  const done = r.partitions > 0 && r.switchedPartitions === r.partitions;
  mount(view,
    h('h1', {}, 'Pipeline'),
    h('section', {class: 'panel', id: 'health'},
      h('h2', {}, 'Health ', h('span', {class: 'badge ' + (health.ready ? 'good' : 'bad')}, health.ready ? 'ready' : 'not ready')),
      h('dl', {class: 'kv'}, h('dt', {}, 'Streams'), h('dd', {}, health.streamsState),
        h('dt', {}, 'Thread failures'), h('dd', {}, fmt(health.threadFailures)),
        health.lastThreadError ? [h('dt', {}, 'Last error'), h('dd', {class: 'error'}, health.lastThreadError)] : null,
        h('dt', {}, 'Messages in'), h('dd', {}, fmt(m.messagesIn)),
        h('dt', {}, 'Indexed memories'), h('dd', {}, fmt(m.indexedMemories)),
        h('dt', {}, 'Index restoring'), h('dd', {id: 'index-restore'}, restoring.partitions
          ? fmt(restoring.remaining) + ' records left in ' + fmt(restoring.partitions) + ' partition(s); searches report them missing'
          : 'no'))),
    h('section', {class: 'panel', id: 'reembedding'},
      h('h2', {}, 'Embedding model ', h('span', {class: 'badge ' + (done ? 'good' : 'bad')},
        r.partitions ? (done ? 'current' : 're-embedding') : 'not here')),
      h('dl', {class: 'kv'},
        h('dt', {}, 'Progress'), h('dd', {id: 'reembed-progress'}, fmt(Math.floor((r.progress || 0) * 100)) + ' %'),
        h('dt', {}, 'Offsets left'), h('dd', {}, fmt(r.remaining)),
        h('dt', {}, 'Partitions switched'), h('dd', {}, fmt(r.switchedPartitions) + ' of ' + fmt(r.partitions)),
        h('dt', {}, 'Memories re-embedded'), h('dd', {}, fmt(r.reembedded)))),
    h('p', {class: 'muted'}, 'Totals of this instance since it started, all tenants together.'),
    h('div', {class: 'split'},
      h('section', {class: 'panel'}, h('h2', {}, 'Input lag'),
        table('lag', ['Topic', 'Records behind'], Object.entries(m.inputLag || {}).map(([k, v]) => [k, fmt(v)]))),
      h('section', {class: 'panel'}, h('h2', {}, 'Dead letters'),
        table('dead-letters', ['Reason', 'Records'], dead.map(([k, v]) => [k, fmt(v)])))),
    h('section', {class: 'panel'}, h('h2', {}, 'LLM requests (final outcome)'), table('llm-requests', ['Kind', ...requests.columns], requests.rows)),
    h('section', {class: 'panel'}, h('h2', {}, 'LLM calls (each attempt)'), table('llm-calls', ['Kind', ...calls.columns], calls.rows)),
    h('section', {class: 'panel'}, h('h2', {}, 'Compactions'),
      table('compactions', ['Event', 'Count'], Object.entries(m.compactions || {}).filter(([, v]) => v > 0).map(([k, v]) => [k, fmt(v)]))));
}
