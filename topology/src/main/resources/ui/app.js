// The memory browser: hash routes (#/sessions, #/session/<id>, #/user/<id>, #/memories, #/search,
// #/pipeline), each drawn by its page module into <main>. The key lives in this tab's sessionStorage.
import {ApiError, apiKey, signIn, signOut} from './api.js';
import {h, mount} from './dom.js';
import * as sessions from './sessions.js';
import * as session from './session.js';
import * as user from './user.js';
import * as memories from './memories.js';
import * as search from './search.js';
import * as pipeline from './pipeline.js';

const view = document.getElementById('view');
const PAGES = {sessions, session, user, memories, search, pipeline};

/** A key handed over in the fragment (#key=...): fragments never reach the server; it is removed at once. */
function takeKeyFromFragment() {
  const match = location.hash.match(/^#key=([^&]+)/);
  if (match) {
    signIn(decodeURIComponent(match[1]));
    history.replaceState(null, '', location.pathname + '#/sessions');
  }
}

/** "#/user/bob?x=1" → {page: 'user', args: ['bob'], params: URLSearchParams('x=1')}. */
export function parseRoute(hash) {
  const raw = (hash || '').replace(/^#\/?/, '');
  const [path, q] = raw.split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  return {page: parts[0] || 'sessions', args: parts.slice(1), params: new URLSearchParams(q || '')};
}

export function go(hash) {
  if (location.hash === hash) render();
  else location.hash = hash;
}

function drawSignIn(message) {
  const input = h('input', {type: 'password', id: 'api-key', autocomplete: 'off', placeholder: 'API key',
    'aria-label': 'API key', required: true});
  const form = h('form', {class: 'panel signin', id: 'signin', onsubmit: (e) => {
    e.preventDefault();
    signIn(input.value);
    if (parseRoute(location.hash).page === 'signin') location.hash = '#/sessions';
    else render();
  }},
  h('h1', {}, 'Sign in'),
  h('p', {class: 'muted'}, 'Everything after this is the tenant of the key. It is kept for this browser tab only.'),
  message ? h('div', {class: 'error'}, message) : null,
  h('div', {class: 'row'}, input, h('button', {class: 'primary', type: 'submit'}, 'Sign in')));
  mount(view, form);
  input.focus();
}

function drawWho() {
  const who = document.getElementById('who');
  if (!apiKey()) { mount(who); return; }
  mount(who, h('span', {}, 'signed in'), h('button', {id: 'signout', onclick: () => { signOut(); drawWho(); drawSignIn(); }},
    'Sign out'));
}

async function render() {
  takeKeyFromFragment();
  drawWho();
  const route = parseRoute(location.hash);
  for (const link of document.querySelectorAll('#nav a')) {
    link.classList.toggle('active', link.dataset.page === route.page || (route.page === 'session' && link.dataset.page === 'sessions'));
  }
  if (!apiKey() || route.page === 'signin') { drawSignIn(); return; }
  const page = PAGES[route.page];
  if (!page) { mount(view, h('div', {class: 'error'}, 'There is no page "' + route.page + '".')); return; }
  mount(view, h('p', {class: 'muted'}, 'Loading…'));
  const token = (render.token = (render.token || 0) + 1);
  try {
    await page.render(view, route.args, route.params, () => token === render.token);
  } catch (e) {
    if (token !== render.token) return;
    if (e instanceof ApiError && e.status === 401) { signOut(); drawWho(); drawSignIn(e.message); return; }
    mount(view, h('div', {class: 'error', id: 'page-error'}, e instanceof ApiError ? e.message : 'Something went wrong: ' + e.message));
  }
}

window.addEventListener('hashchange', render);
render();
