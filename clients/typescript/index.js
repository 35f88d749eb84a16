// A client of the ReMe Streams HTTP API on the platform's fetch: typed by index.d.ts, errors by status with the
// API's code, 429 and 503 sent again after their Retry-After, pages followed by cursor.

/** An answer of the API that is not a success. */
export class RemeError extends Error {
  constructor(status, code, message, retryAfter) {
    super(`${status} ${code}: ${message}`);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.apiMessage = message;
    this.retryAfter = retryAfter;
  }
}
export class BadRequest extends RemeError {}
export class Unauthorized extends RemeError {}
export class NotFound extends RemeError {}
export class Conflict extends RemeError {}
export class PayloadTooLarge extends RemeError {}
export class RateLimited extends RemeError {}
export class Unavailable extends RemeError {}
export class ServerError extends RemeError {}

const BY_STATUS = {400: BadRequest, 401: Unauthorized, 404: NotFound, 409: Conflict, 413: PayloadTooLarge,
  429: RateLimited, 503: Unavailable};
const RETRIED = new Set([429, 503]);

async function errorOf(response) {
  const text = await response.text();
  let code = `http_${response.status}`;
  let message = text.slice(0, 500);
  try {
    const error = JSON.parse(text).error ?? {};
    code = error.code ?? code;
    message = error.message ?? message;
  } catch {
    // Not the API's JSON (a proxy's page): the status and the text say it.
  }
  const header = response.headers.get('retry-after');
  const retryAfter = header !== null && !Number.isNaN(Number(header)) ? Number(header) : undefined;
  const Kind = BY_STATUS[response.status] ?? (response.status >= 500 ? ServerError : RemeError);
  return new Kind(response.status, code, message, retryAfter);
}

const segment = (value) => encodeURIComponent(value);

function defined(object) {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined && v !== null));
}

export class RemeClient {
  constructor(baseUrl, apiKey, {timeoutMs = 10_000, maxRetries = 5, maxWaitMs = 30_000, fetch: fetchImpl,
    sleep} = {}) {
    if (!/^https?:\/\//.test(baseUrl)) {
      throw new TypeError(`baseUrl must start with http:// or https://, got ${JSON.stringify(baseUrl)}`);
    }
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.apiKey = apiKey;
    this.timeoutMs = timeoutMs;
    this.maxRetries = maxRetries;
    this.maxWaitMs = maxWaitMs;
    this.fetch = fetchImpl ?? globalThis.fetch;
    this.sleep = sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  sendMessages(messages) {
    return this.call('POST', '/v1/messages', {body: messages});
  }

  context(session, {format, wholeWindow = false} = {}) {
    return this.call('GET', `/v1/sessions/${segment(session)}/context`,
      {query: defined({format, window: wholeWindow ? 'all' : undefined})});
  }

  search(query, {k = 10, types, users, sessions, since, until, minScore} = {}) {
    return this.call('POST', '/v1/search',
      {body: defined({query, k, types, users, sessions, from: since, to: until, minScore})});
  }

  createMemory(content, {type = 'personal', user, session, target, metadata, conversationTime} = {}) {
    return this.call('POST', '/v1/memories',
      {body: defined({type, content, user, session, target, metadata, conversationTime})});
  }

  getMemory(id) {
    return this.call('GET', `/v1/memories/${segment(id)}`);
  }

  updateMemory(id, {content, target, metadata, version} = {}) {
    return this.call('PUT', `/v1/memories/${segment(id)}`, {body: defined({content, target, metadata, version})});
  }

  deleteMemory(id) {
    return this.call('DELETE', `/v1/memories/${segment(id)}`);
  }

  listMemories({types = [], users = [], sort, order, limit, cursor} = {}) {
    const query = [...types.map((t) => ['type', t]), ...users.map((u) => ['user', u]),
      ...Object.entries(defined({sort, order, limit, cursor}))];
    return this.call('GET', '/v1/memories', {query});
  }

  iterMemories(filters = {}) {
    return this.pages((cursor) => this.listMemories({...filters, cursor}), 'memories');
  }

  listSessions({user, activeSince, limit, cursor} = {}) {
    return this.call('GET', '/v1/sessions', {query: defined({user, active_since: activeSince, limit, cursor})});
  }

  iterSessions(filters = {}) {
    return this.pages((cursor) => this.listSessions({...filters, cursor}), 'sessions');
  }

  diary(user, document) {
    return this.call('GET', `/v1/diary/${segment(user)}/${segment(document)}`);
  }

  eraseUser(user) {
    return this.call('DELETE', `/v1/users/${segment(user)}`);
  }

  userErasure(user) {
    return this.call('GET', `/v1/users/${segment(user)}/erasure`);
  }

  eraseTenant(confirm) {
    return this.call('DELETE', '/v1/tenant', {body: {confirm}});
  }

  async* pages(page, field) {
    let cursor;
    do {
      const answer = await page(cursor);
      yield* answer[field] ?? [];
      cursor = answer.nextCursor;
    } while (cursor);
  }

  async call(method, path, {body, query} = {}) {
    const params = new URLSearchParams(Array.isArray(query) ? query.map(([k, v]) => [k, String(v)])
      : Object.entries(query ?? {}).map(([k, v]) => [k, String(v)]));
    const search = params.toString();
    const url = this.baseUrl + path + (search ? `?${search}` : '');
    const headers = {'Authorization': `Bearer ${this.apiKey}`, 'Accept': 'application/json'};
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    for (let attempt = 0; ; attempt++) {
      const response = await this.fetch(url, {method, headers, body: body === undefined ? undefined
        : JSON.stringify(body), signal: AbortSignal.timeout(this.timeoutMs)});
      if (response.ok) {
        const text = await response.text();
        return text ? JSON.parse(text) : {};
      }
      const error = await errorOf(response);
      if (!RETRIED.has(response.status) || attempt >= this.maxRetries) throw error;
      const waitS = error.retryAfter ?? 2 ** (attempt + 1);
      await this.sleep(Math.min(this.maxWaitMs, waitS * 1000));
    }
  }
}
