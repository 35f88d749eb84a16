// Memories: a filtered, paged list (GET /v1/memories) with add, edit (PUT, keeps the id, the old
// text goes to the history), delete, and each memory's version history.
import {ApiError, api, query} from './api.js';
import {h, mount, sources, when} from './dom.js';

const TYPES = ['personal', 'procedural', 'tool', 'diary_chunk', 'dialog_chunk'];
const WRITABLE = ['personal', 'procedural', 'tool'];
const PAGE = 20;

export async function render(view, args, params, current) {
  const panel = h('section', {id: 'all-memories'});
  mount(view, h('h1', {}, 'Memories'), panel);
  await memoryList(panel, {title: null, params});
}

/** A memory list in `panel`; with `user` set it is that user's, else filters come from the page. */
export async function memoryList(panel, {user = null, title = 'Memories', params = new URLSearchParams()}) {
  const state = {type: params.get('type') || '', user: user || params.get('user') || '', target: params.get('target') || '',
    cursors: [''], page: 0};
  const list = h('div', {class: 'memory-list'});
  const status = h('div');

  async function load() {
    mount(list, h('p', {class: 'muted'}, 'Loading…'));
    try {
      const answer = await api('GET', '/v1/memories' + query({type: state.type, user: state.user, target: state.target,
        sort: 'updated', order: 'desc', limit: PAGE, cursor: state.cursors[state.page]}));
      draw(answer);
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) throw e;
      mount(list, h('div', {class: 'error'}, e.message));
    }
  }

  function draw(answer) {
    const rows = answer.memories || [];
    if (answer.nextCursor) state.cursors[state.page + 1] = answer.nextCursor;
    mount(list,
      answer.partial ? h('div', {class: 'notice'}, 'Some partitions did not answer: the list may be incomplete.') : null,
      rows.length ? h('div', {class: 'table-wrap'}, h('table', {class: 'memories'},
        h('thead', {}, h('tr', {}, h('th', {}, 'Memory'), h('th', {}, 'Type'), h('th', {class: 'wide-only'}, 'User'),
          h('th', {class: 'wide-only'}, 'Updated'), h('th', {}, ''))),
        h('tbody', {}, rows.map(row)))) : h('p', {class: 'muted no-memories'}, 'No memories match.'),
      h('div', {class: 'pager'},
        state.page > 0 ? h('button', {onclick: () => { state.page--; load(); }}, '← Newer') : null,
        answer.nextCursor ? h('button', {class: 'next', onclick: () => { state.page++; load(); }}, 'Older →') : null,
        h('span', {class: 'muted'}, `page ${state.page + 1}`)));
  }

  function row(m) {
    const text = h('div', {class: 'text memory-text'}, m.content);
    const cell = h('td', {}, text, m.target ? h('div', {class: 'muted'}, 'about ' + m.target) : null,
      m.metadata?.path ? h('div', {class: 'muted'}, m.metadata.path + (m.metadata.startLine ? `:${m.metadata.startLine}-${m.metadata.endLine}` : '')) : null,
      sources(m.sources));
    const tr = h('tr', {dataset: {id: m.id}},
      cell,
      h('td', {}, h('span', {class: 'badge'}, m.type), ' v' + m.version),
      h('td', {class: 'wide-only'}, m.user ? h('a', {href: '#/user/' + encodeURIComponent(m.user)}, m.user) : '—'),
      h('td', {class: 'wide-only'}, when(m.updatedAt)),
      h('td', {class: 'actions'},
        h('button', {class: 'history', onclick: () => history(m, cell)}, 'History'),
        WRITABLE.includes(m.type) ? h('button', {class: 'edit', onclick: () => edit(m, cell)}, 'Edit') : null,
        WRITABLE.includes(m.type) ? h('button', {class: 'danger delete', onclick: () => remove(m)}, 'Delete') : null));
    return tr;
  }

  async function history(m, cell) {
    try {
      const full = await api('GET', '/v1/memories/' + encodeURIComponent(m.id));
      const changes = full.history || [];
      cell.append(h('ol', {class: 'history'}, changes.length
        ? changes.map((c) => h('li', {}, h('span', {class: 'badge'}, 'v' + c.version), c.content, ' ', when(c.replacedAt)))
        : h('li', {class: 'muted'}, 'No earlier versions.')));
    } catch (e) {
      cell.append(h('div', {class: 'error'}, e.message));
    }
  }

  function edit(m, cell) {
    const area = h('textarea', {class: 'memory-editor', 'aria-label': 'memory text'});
    area.value = m.content;
    area.style.minHeight = '5rem';
    const problem = h('div');
    mount(cell, area, h('div', {class: 'row'},
      h('button', {class: 'primary save', onclick: async () => {
        try {
          await api('PUT', '/v1/memories/' + encodeURIComponent(m.id), {content: area.value, version: m.version});
          mount(status, h('div', {class: 'notice'}, 'Saved.'));
          load();
        } catch (e) {
          mount(problem, h('div', {class: 'error'}, e.status === 409
            ? 'The memory changed while you edited it: ' + e.message + ' Your text is still here; reload the list to see the current one.'
            : e.message));
        }
      }}, 'Save'),
      h('button', {onclick: load}, 'Cancel')), problem);
    area.focus();
  }

  async function remove(m) {
    if (!confirm('Delete this memory?\n\n' + m.content)) return;
    try {
      await api('DELETE', '/v1/memories/' + encodeURIComponent(m.id));
      mount(status, h('div', {class: 'notice'}, 'Deleted.'));
      load();
    } catch (e) {
      mount(status, h('div', {class: 'error'}, e.message));
    }
  }

  const addText = h('input', {name: 'content', placeholder: 'New memory', 'aria-label': 'new memory text', required: true});
  const addType = h('select', {name: 'type', 'aria-label': 'new memory type'}, WRITABLE.map((t) => h('option', {value: t}, t)));
  const addUser = h('input', {name: 'user', placeholder: 'user', value: state.user, 'aria-label': 'new memory user'});
  const add = h('form', {class: 'row add-memory', onsubmit: async (e) => {
    e.preventDefault();
    try {
      const body = {type: addType.value, content: addText.value};
      if (addUser.value.trim()) body.user = addUser.value.trim();
      await api('POST', '/v1/memories', body);
      addText.value = '';
      mount(status, h('div', {class: 'notice'}, 'Added.'));
      state.page = 0;
      load();
    } catch (err) {
      mount(status, h('div', {class: 'error'}, err.message));
    }
  }}, addType, addText, user ? null : addUser, h('button', {type: 'submit', class: 'primary'}, 'Add'));

  const filters = h('form', {class: 'row', onsubmit: (e) => {
    e.preventDefault();
    state.type = e.target.elements.type.value;
    if (!user) state.user = e.target.elements.user.value.trim();
    state.target = e.target.elements.target.value.trim();
    state.cursors = [''];
    state.page = 0;
    load();
  }},
  h('label', {}, 'Type', h('select', {name: 'type'}, h('option', {value: ''}, 'any'),
    TYPES.map((t) => h('option', {value: t, selected: t === state.type}, t)))),
  user ? null : h('label', {}, 'User', h('input', {name: 'user', value: state.user, placeholder: 'any'})),
  h('label', {}, 'About', h('input', {name: 'target', value: state.target, placeholder: 'any target'})),
  h('button', {type: 'submit'}, 'Filter'));

  mount(panel, title ? h('h2', {}, title) : null, filters, add, status, list);
  await load();
}
