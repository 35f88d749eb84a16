// A user: MEMORY.md and the diaries by date, rendered, each with an editor that saves a new
// version through PUT /v1/diary/{user}/{document}; a conflicting save is shown beside the current
// text and nothing typed is lost. Below them, the user's memories.
import {ApiError, api, query} from './api.js';
import {h, mount, when} from './dom.js';
import {renderMarkdown} from './markdown.js';
import {memoryList} from './memories.js';

function today() {
  const d = new Date();
  return new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 10);
}

function shift(date, days) {
  const d = new Date(date + 'T12:00:00Z');
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

export async function render(view, args, params, current) {
  const user = args[0];
  // The dates that have a diary, from the diary chunks the index holds (newest first, one page).
  let dates = [];
  try {
    const chunks = await api('GET', '/v1/memories' + query({type: 'diary_chunk', user, sort: 'updated', order: 'desc', limit: 500}));
    dates = [...new Set((chunks.memories || []).map((m) => (m.metadata?.path || '').match(/(\d{4}-\d{2}-\d{2})/)?.[1]).filter(Boolean))]
      .sort().reverse();
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) throw e;
  }
  if (!current()) return;
  const date = params.get('date') || dates[0] || today();
  const go = (d) => { location.hash = '#/user/' + encodeURIComponent(user) + query({date: d}); };

  const memoryPanel = h('section', {class: 'panel', id: 'memory-md'});
  const diaryPanel = h('section', {class: 'panel', id: 'diary'});
  const memoriesPanel = h('section', {id: 'user-memories'});
  mount(view,
    h('h1', {}, 'User ', h('span', {id: 'user-id'}, user)),
    h('p', {}, h('a', {href: '#/sessions' + query({user})}, 'sessions of ' + user)),
    h('div', {class: 'split'}, memoryPanel, diaryPanel),
    memoriesPanel);

  await Promise.all([
    documentEditor(memoryPanel, user, 'MEMORY', 'MEMORY.md', null),
    documentEditor(diaryPanel, user, date, 'Diary of ' + date, h('div', {class: 'row'},
      h('button', {onclick: () => go(shift(date, -1)), title: 'the day before'}, '←'),
      h('input', {type: 'date', value: date, 'aria-label': 'diary date', onchange: (e) => e.target.value && go(e.target.value)}),
      h('button', {onclick: () => go(shift(date, 1)), title: 'the day after'}, '→'),
      dates.length ? h('select', {'aria-label': 'dates with a diary', onchange: (e) => e.target.value && go(e.target.value)},
        h('option', {value: ''}, `${dates.length} dates with a diary`),
        dates.map((d) => h('option', {value: d, selected: d === date}, d))) : null)),
    memoryList(memoriesPanel, {user, title: 'Memories of ' + user}),
  ]);
}

/** Shows a document and lets it be edited; the expected version travels with every save. */
async function documentEditor(panel, user, name, title, controls) {
  const path = '/v1/diary/' + encodeURIComponent(user) + '/' + name;
  let doc = null;
  let problem = null;
  try {
    doc = await api('GET', path);
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 404) problem = e.message;
  }
  const status = h('div', {class: 'status'});

  function showView(message) {
    mount(panel,
      h('h2', {}, title, ' ', doc ? h('span', {class: 'badge doc-version'}, 'version ' + doc.version) : null),
      controls,
      message ? h('div', {class: 'notice saved'}, message) : null,
      problem ? h('div', {class: 'error'}, problem) : null,
      doc ? h('p', {class: 'muted'}, 'by ', doc.author || '?', ' ', when(doc.updatedAt)) : null,
      doc ? renderMarkdown(doc.content) : h('p', {class: 'muted'}, 'No document yet.'),
      h('div', {class: 'row'}, h('button', {class: 'edit', onclick: () => showEditor(doc ? doc.content : '', doc ? doc.version : 0)},
        doc ? 'Edit' : 'Write it')));
  }

  function showEditor(text, base, conflict) {
    const area = h('textarea', {class: 'editor', 'aria-label': title + ' text'});
    area.value = text;
    const save = h('button', {class: 'primary save', onclick: async () => {
      save.disabled = true;
      mount(status, h('span', {class: 'muted'}, 'Saving…'));
      try {
        const answer = await api('PUT', path, {content: area.value, expectedVersion: base});
        if (answer && answer.applied === false) {
          mount(status, h('div', {class: 'notice'}, 'Submitted; it is not applied yet. Reload in a moment to see it.'));
          save.disabled = false;
          return;
        }
        doc = answer;
        showView('Saved as version ' + doc.version + '.');
      } catch (e) {
        if (e instanceof ApiError && e.status === 409) {
          const now = e.body?.current ?? null;
          doc = now;
          showEditor(area.value, now ? now.version : 0, now);
          return;
        }
        save.disabled = false;
        mount(status, h('div', {class: 'error'}, e.message));
      }
    }}, conflict !== undefined ? `Save mine as version ${(conflict ? conflict.version : 0) + 1}` : 'Save');
    mount(panel,
      h('h2', {}, title, ' ', h('span', {class: 'badge'}, base ? 'editing version ' + base : 'new')),
      conflict !== undefined ? h('div', {class: 'error conflict'},
        'Someone else saved ', conflict ? 'version ' + conflict.version : 'a change', ' while you were editing. ',
        'Your text is kept below; the current text is shown first. Merge what you need, then save.') : null,
      conflict ? h('details', {open: true}, h('summary', {}, 'Current version ' + conflict.version + ' by ' + (conflict.author || '?')),
        h('pre', {class: 'current-text'}, conflict.content)) : null,
      area,
      h('div', {class: 'row'}, save, h('button', {class: 'cancel', onclick: () => showView()}, conflict !== undefined ? 'Discard mine' : 'Cancel')),
      status);
    area.focus();
  }

  showView();
}
