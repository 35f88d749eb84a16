// The client against a scripted HTTP server: errors by status, retries after Retry-After, paging.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {createServer} from 'node:http';
import {BadRequest, NotFound, RateLimited, RemeClient, ServerError, Unavailable} from '../index.js';

async function scripted(answers) {
  const requests = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => { body += chunk; });
    request.on('end', () => {
      requests.push({method: request.method, url: request.url, headers: request.headers, body});
      const [status, headers, payload] = answers.shift();
      const data = typeof payload === 'string' ? payload : JSON.stringify(payload);
      response.writeHead(status, {...headers, 'Content-Length': Buffer.byteLength(data)});
      response.end(data);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {requests, url: `http://127.0.0.1:${server.address().port}`, close: () => server.close()};
}

const error = (code, message) => ({error: {code, message}});

test('a busy server is asked again after its Retry-After', async () => {
  const s = await scripted([[503, {'Retry-After': '2'}, error('unavailable', 'rebalancing')],
    [429, {'Retry-After': '1'}, error('rate_limited', 'slow down')], [200, {}, {hits: []}]]);
  const waits = [];
  const client = new RemeClient(s.url, 'k'.repeat(20), {sleep: async (ms) => { waits.push(ms); }});
  assert.deepEqual(await client.search('tea', {k: 3}), {hits: []});
  assert.deepEqual(waits, [2000, 1000]);
  const last = s.requests.at(-1);
  assert.equal(last.method, 'POST');
  assert.equal(last.url, '/v1/search');
  assert.equal(last.headers.authorization, `Bearer ${'k'.repeat(20)}`);
  assert.deepEqual(JSON.parse(last.body), {query: 'tea', k: 3});
  s.close();
});

test('retries end with the last answer as an error', async () => {
  const s = await scripted(Array(3).fill([429, {'Retry-After': '60'}, error('rate_limited', 'past the quota')]));
  const waits = [];
  const client = new RemeClient(s.url, 'k'.repeat(20),
    {maxRetries: 2, maxWaitMs: 5000, sleep: async (ms) => { waits.push(ms); }});
  await assert.rejects(client.sendMessages([{session: 's1', user: 'u', role: 'user', content: 'hi'}]), (e) => {
    assert.ok(e instanceof RateLimited);
    assert.deepEqual([e.status, e.code, e.retryAfter], [429, 'rate_limited', 60]);
    return true;
  });
  assert.deepEqual(waits, [5000, 5000]);
  assert.equal(s.requests.length, 3);
  s.close();
});

test('errors are typed by status and keep the API code', async () => {
  const s = await scripted([[404, {}, error('memory_not_found', 'no memory m1')],
    [400, {}, error('invalid_query', 'k must be 1..100')], [500, {}, '<html>oops</html>'],
    [503, {}, error('unavailable', 'x')]]);
  const client = new RemeClient(s.url, 'k'.repeat(20), {maxRetries: 0});
  await assert.rejects(client.getMemory('m1'),
    (e) => e instanceof NotFound && e.code === 'memory_not_found' && e.apiMessage === 'no memory m1');
  await assert.rejects(client.search('x', {k: 1000}), (e) => e instanceof BadRequest && e.code === 'invalid_query');
  await assert.rejects(client.getMemory('m2'),
    (e) => e instanceof ServerError && e.code === 'http_500' && e.apiMessage.includes('oops'));
  await assert.rejects(client.context('s1'), (e) => e instanceof Unavailable && e.retryAfter === undefined);
  s.close();
});

test('pages are followed by their cursor and ids are escaped', async () => {
  const s = await scripted([[200, {}, {memories: [{id: 'a'}, {id: 'b'}], nextCursor: 'c1'}],
    [200, {}, {memories: [{id: 'c'}], nextCursor: null}], [200, {}, {}]]);
  const client = new RemeClient(s.url, 'k'.repeat(20));
  const ids = [];
  for await (const memory of client.iterMemories({types: ['personal'], limit: 2})) ids.push(memory.id);
  assert.deepEqual(ids, ['a', 'b', 'c']);
  assert.deepEqual(s.requests.map((r) => r.url),
    ['/v1/memories?type=personal&limit=2', '/v1/memories?type=personal&limit=2&cursor=c1']);
  await client.getMemory('a/b?c');
  assert.equal(s.requests.at(-1).url, '/v1/memories/a%2Fb%3Fc');
  s.close();
});

test('a base URL without a scheme is refused', () => {
  assert.throws(() => new RemeClient('127.0.0.1:8080', 'k'), TypeError);
});
