"""The client against a scripted HTTP server: errors by status, retries after Retry-After, paging."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from reme_client import BadRequest, NotFound, RateLimited, RemeClient, ServerError, Unavailable


class Script:
    """Answers (status, headers, body) in order; records each request's method, path, headers and body."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.requests = []


@pytest.fixture
def server():
    scripts = {}

    class Handler(BaseHTTPRequestHandler):
        def _answer(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            script = scripts["current"]
            script.requests.append((self.command, self.path, dict(self.headers), body))
            status, headers, payload = script.answers.pop(0)
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = _answer

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()

    def run(answers):
        scripts["current"] = Script(answers)
        return scripts["current"], "http://127.0.0.1:%d" % httpd.server_address[1]

    yield run
    httpd.shutdown()


def error(code, message):
    return {"error": {"code": code, "message": message}}


def test_a_busy_server_is_asked_again_after_its_retry_after(server):
    script, url = server([(503, {"Retry-After": "2"}, error("unavailable", "rebalancing")),
                          (429, {"Retry-After": "1"}, error("rate_limited", "slow down")),
                          (200, {}, {"hits": []})])
    waits = []
    client = RemeClient(url, "k" * 20, sleep=waits.append)
    assert client.search("tea", k=3) == {"hits": []}
    assert waits == [2.0, 1.0]
    method, path, headers, body = script.requests[-1]
    assert (method, path) == ("POST", "/v1/search")
    assert headers["Authorization"] == "Bearer " + "k" * 20
    assert json.loads(body) == {"query": "tea", "k": 3}


def test_retries_end_with_the_last_answer_as_an_error(server):
    script, url = server([(429, {"Retry-After": "60"}, error("rate_limited", "past the quota"))] * 3)
    waits = []
    client = RemeClient(url, "k" * 20, max_retries=2, max_wait=5, sleep=waits.append)
    with pytest.raises(RateLimited) as raised:
        client.send_messages([{"session": "s1", "user": "u", "role": "user", "content": "hi"}])
    assert waits == [5, 5], "Retry-After is honoured up to max_wait"
    assert (raised.value.status, raised.value.code, raised.value.retry_after) == (429, "rate_limited", 60.0)
    assert len(script.requests) == 3


def test_errors_are_typed_by_status_and_keep_the_apis_code(server):
    _, url = server([(404, {}, error("memory_not_found", "no memory m1")),
                     (400, {}, error("invalid_query", "k must be 1..100")),
                     (500, {}, b"<html>oops</html>")])
    client = RemeClient(url, "k" * 20, max_retries=0)
    with pytest.raises(NotFound) as missing:
        client.get_memory("m1")
    assert (missing.value.code, missing.value.message) == ("memory_not_found", "no memory m1")
    with pytest.raises(BadRequest) as bad:
        client.search("x", k=1000)
    assert bad.value.code == "invalid_query"
    with pytest.raises(ServerError) as failed:
        client.get_memory("m2")
    assert failed.value.code == "http_500" and "oops" in failed.value.message


def test_a_503_without_retry_after_backs_off_exponentially(server):
    _, url = server([(503, {}, error("unavailable", "x")), (503, {}, error("unavailable", "x")),
                     (503, {}, error("unavailable", "x"))])
    waits = []
    with pytest.raises(Unavailable):
        RemeClient(url, "k" * 20, max_retries=2, sleep=waits.append).context("s1")
    assert waits == [2, 4]


def test_pages_are_followed_by_their_cursor_and_ids_are_escaped(server):
    script, url = server([(200, {}, {"memories": [{"id": "a"}, {"id": "b"}], "nextCursor": "c1"}),
                          (200, {}, {"memories": [{"id": "c"}], "nextCursor": None})])
    client = RemeClient(url, "k" * 20)
    assert [m["id"] for m in client.iter_memories(types=["personal"], limit=2)] == ["a", "b", "c"]
    assert [r[1] for r in script.requests] == ["/v1/memories?type=personal&limit=2",
                                               "/v1/memories?type=personal&limit=2&cursor=c1"]
    script, url = server([(200, {}, {})])
    RemeClient(url, "k" * 20).get_memory("a/b?c")
    assert script.requests[0][1] == "/v1/memories/a%2Fb%3Fc"


def test_a_base_url_without_a_scheme_is_refused():
    with pytest.raises(ValueError):
        RemeClient("127.0.0.1:8080", "k")
