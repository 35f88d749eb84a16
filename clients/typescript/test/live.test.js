// The client against a running ReMe Streams (REME_URL, REME_KEY of the tenant; .ci/run starts one). Without
// REME_URL these tests are skipped, unless REME_LIVE_REQUIRED is set (as CI sets it), when they fail.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {randomUUID} from 'node:crypto';
import {setTimeout as pause} from 'node:timers/promises';
import {BadRequest, Conflict, NotFound, RemeClient, Unauthorized} from '../index.js';

const url = process.env.REME_URL;
if (!url && process.env.REME_LIVE_REQUIRED) throw new Error('REME_LIVE_REQUIRED is set but REME_URL is not');
const skip = url ? false : 'REME_URL is not set: no running instance to test against';
const client = url ? new RemeClient(url, process.env.REME_KEY, {timeoutMs: 30_000}) : null;
const unique = () => randomUUID().replaceAll('-', '').slice(0, 12);

async function until(what, check, seconds = 60) {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(250); // A pause between polls of a running server.
  }
}

test('messages in, context out in both ready formats', {skip}, async () => {
  const session = `ts-${unique()}`;
  const sent = await client.sendMessages([
    {session, user: 'pat', role: 'user', content: 'Always answer in metric units.'},
    {session, user: 'pat', role: 'assistant', content: 'Noted: metric units from now on.'}]);
  assert.equal(sent.accepted, 2);
  const context = await until('both messages', async () => {
    try {
      const c = await client.context(session);
      return c.messages.length === 2 ? c : null;
    } catch (e) {
      if (e instanceof NotFound) return null; // The session exists once the pipeline processed its first message.
      throw e;
    }
  });
  assert.equal(context.user, 'pat');
  assert.ok(context.tokens.messages > 0);
  assert.deepEqual((await client.context(session, {format: 'openai'})).messages.map((m) => m.role),
    ['user', 'assistant']);
  assert.equal((await client.context(session, {format: 'anthropic'})).messages[0].role, 'user');
  let listed = false;
  for await (const s of client.iterSessions({limit: 1})) listed ||= s.session === session;
  assert.ok(listed, 'the session is listed');
});

test('a memory is written, found, revised, listed and deleted', {skip}, async () => {
  const user = `ts${unique()}`;
  const word = `wombat${unique()}`;
  const written = await client.createMemory(`Pat keeps a ${word} named Pip`, {user, metadata: {origin: 'ts'}});
  assert.equal(written.visible, true);
  const hits = (await client.search(word, {users: [user], k: 5})).hits;
  assert.equal(hits[0]?.id, written.id);
  assert.equal((await client.updateMemory(written.id, {content: `Pat keeps a ${word} named Max`, version: 1}))
    .version, 2);
  await assert.rejects(client.updateMemory(written.id, {content: 'lost', version: 1}),
    (e) => e instanceof Conflict && e.code === 'version_conflict');
  const fetched = await client.getMemory(written.id);
  assert.ok(fetched.content.endsWith('named Max') && fetched.history[0].content.endsWith('named Pip'));
  const ids = [];
  for await (const m of client.iterMemories({users: [user], limit: 1})) ids.push(m.id);
  assert.deepEqual(ids, [written.id]);
  await client.deleteMemory(written.id);
  await assert.rejects(client.getMemory(written.id), NotFound);
});

test('a user is erased, and the tenant only with its own name', {skip}, async () => {
  const user = `gone${unique()}`;
  await client.createMemory('To be forgotten', {user});
  const status = await client.eraseUser(user);
  assert.equal(status.user, user);
  assert.equal((await client.userErasure(user)).erasureId, status.erasureId);
  await assert.rejects(client.eraseTenant('not-this-tenant'),
    (e) => e instanceof BadRequest && e.code === 'confirmation_required');
});

test("the server's refusals arrive as typed errors", {skip}, async () => {
  await assert.rejects(new RemeClient(url, 'not-a-key-of-anyone-123', {maxRetries: 0}).search('x'), Unauthorized);
  await assert.rejects(client.search('x', {k: 0}), BadRequest);
  await assert.rejects(client.diary('nobody', 'MEMORY'), NotFound);
});
