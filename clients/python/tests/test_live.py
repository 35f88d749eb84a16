"""The client against a running ReMe Streams (REME_URL, REME_KEY of the tenant; .ci/run starts one).

Without REME_URL these tests are skipped, unless REME_LIVE_REQUIRED is set (as CI sets it), when they fail.
"""

import os
import time
import uuid

import pytest

from reme_client import BadRequest, Conflict, NotFound, RemeClient, Unauthorized

URL = os.environ.get("REME_URL")
if not URL and os.environ.get("REME_LIVE_REQUIRED"):
    raise RuntimeError("REME_LIVE_REQUIRED is set but REME_URL is not")
pytestmark = pytest.mark.skipif(not URL, reason="REME_URL is not set: no running instance to test against")


@pytest.fixture(scope="module")
def client():
    return RemeClient(URL, os.environ["REME_KEY"], timeout=30)


def until(what, check, seconds=60):
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(0.25)  # A pause between polls of a running server.


def test_messages_in_context_out_in_both_ready_formats(client):
    session = "py-" + uuid.uuid4().hex[:12]
    sent = client.send_messages([
        {"session": session, "user": "pat", "role": "user", "content": "Always answer in metric units."},
        {"session": session, "user": "pat", "role": "assistant", "content": "Noted: metric units from now on."},
    ])
    assert sent["accepted"] == 2
    def both():
        try:
            context = client.context(session)
        except NotFound:
            return None  # The session exists once the pipeline processed its first message.
        return context if len(context["messages"]) == 2 else None

    context = until("both messages", both)
    assert context["session"] == session and context["user"] == "pat"
    assert context["tokens"]["messages"] > 0
    openai = client.context(session, format="openai")
    assert [m["role"] for m in openai["messages"]] == ["user", "assistant"]
    anthropic = client.context(session, format="anthropic")
    assert anthropic["messages"][0]["role"] == "user"
    assert any(s["session"] == session for s in client.iter_sessions(limit=1))


def test_a_memory_is_written_found_revised_listed_and_deleted(client):
    user = "py" + uuid.uuid4().hex[:10]
    word = "quokka" + uuid.uuid4().hex[:6]
    written = client.create_memory("Pat keeps a " + word + " named Pip", user=user, metadata={"origin": "py"})
    assert written["visible"] is True
    memory_id = written["id"]
    hits = client.search(word, users=[user], k=5)["hits"]
    assert [h["id"] for h in hits][:1] == [memory_id]
    revised = client.update_memory(memory_id, content="Pat keeps a " + word + " named Max", version=1)
    assert revised["version"] == 2
    with pytest.raises(Conflict) as stale:
        client.update_memory(memory_id, content="lost", version=1)
    assert stale.value.code == "version_conflict"
    fetched = client.get_memory(memory_id)
    assert fetched["content"].endswith("named Max") and fetched["history"][0]["content"].endswith("named Pip")
    assert memory_id in [m["id"] for m in client.iter_memories(users=[user], limit=1)]
    client.delete_memory(memory_id)
    with pytest.raises(NotFound):
        client.get_memory(memory_id)


def test_a_user_is_erased(client):
    user = "gone" + uuid.uuid4().hex[:10]
    client.create_memory("To be forgotten", user=user)
    status = client.erase_user(user)
    assert status["user"] == user and "erasureId" in status
    assert client.user_erasure(user)["erasureId"] == status["erasureId"]
    with pytest.raises(BadRequest) as confirm:
        client.erase_tenant("not-this-tenant")
    assert confirm.value.code == "confirmation_required"


def test_the_servers_refusals_arrive_as_typed_errors(client):
    with pytest.raises(Unauthorized):
        RemeClient(URL, "not-a-key-of-anyone-123", max_retries=0).search("x")
    with pytest.raises(BadRequest) as bad:
        client.search("x", k=0)
    assert bad.value.message
    with pytest.raises(NotFound):
        client.diary("nobody", "MEMORY")
