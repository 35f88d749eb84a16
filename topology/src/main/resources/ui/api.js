// Every call to the API: the tenant's key from this tab's sessionStorage as a bearer token, and
// errors turned into sentences a person can act on.
const KEY = 'reme.apiKey';

export function apiKey() {
  return sessionStorage.getItem(KEY);
}

export function signIn(key) {
  sessionStorage.setItem(KEY, key.trim());
}

export function signOut() {
  sessionStorage.removeItem(KEY);
}

export class ApiError extends Error {
  constructor(status, code, message, body) {
    super(message);
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

/** Calls the API and returns the parsed JSON (or text for text answers); throws ApiError with words. */
export async function api(method, path, body) {
  const headers = {Authorization: `Bearer ${apiKey() ?? ''}`};
  const init = {method, headers, cache: 'no-store'};
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, 'network', 'The server could not be reached. Is it running? (' + e.message + ')');
  }
  const type = response.headers.get('Content-Type') || '';
  const payload = type.includes('json') ? await response.json().catch(() => null) : await response.text();
  if (response.ok) return payload;
  const code = payload?.error?.code ?? 'http_' + response.status;
  let message = payload?.error?.message ?? `The server answered ${response.status}.`;
  if (response.status === 401) message = 'This key is not accepted. Sign in with the tenant\'s API key.';
  if (response.status === 503) message = 'The server is busy or rebalancing: ' + message + ' Try again in a moment.';
  if (response.status === 404 && code === 'not_found') message = 'This server does not offer that call yet (' + method + ' ' + path.split('?')[0] + ').';
  throw new ApiError(response.status, code, message, payload);
}

export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    for (const one of Array.isArray(v) ? v : [v]) {
      if (one !== undefined && one !== null && one !== '') q.append(k, one);
    }
  }
  const s = q.toString();
  return s ? '?' + s : '';
}
