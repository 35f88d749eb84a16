"""The client: one class over the API's routes, errors by status, retries on 429 and 503."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence

Json = dict[str, Any]


class RemeError(Exception):
    """An answer of the API that is not a success: its status, error code, message and Retry-After (seconds)."""

    def __init__(self, status: int, code: str, message: str, retry_after: Optional[float] = None):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after


class BadRequest(RemeError):
    """400: the request is wrong; the message names the field."""


class Unauthorized(RemeError):
    """401: no key, or one the server does not know."""


class NotFound(RemeError):
    """404: no such session, memory, document or erasure for this tenant."""


class Conflict(RemeError):
    """409: the memory or document is not at the version the request was based on."""


class PayloadTooLarge(RemeError):
    """413: the body is over the server's limit."""


class RateLimited(RemeError):
    """429: the tenant is past its quota; retried by the client until max_retries."""


class Unavailable(RemeError):
    """503: the server is rebalancing, restoring or busy; retried by the client until max_retries."""


class ServerError(RemeError):
    """Any other 5xx."""


_BY_STATUS = {400: BadRequest, 401: Unauthorized, 404: NotFound, 409: Conflict, 413: PayloadTooLarge,
              429: RateLimited, 503: Unavailable}
_RETRIED = (429, 503)


def _error(status: int, body: bytes, retry_after: Optional[str]) -> RemeError:
    code, message = "http_" + str(status), body.decode("utf-8", "replace")[:500]
    try:
        error = json.loads(body).get("error", {})
        code, message = error.get("code", code), error.get("message", message)
    except (ValueError, AttributeError):
        pass
    wait = None
    if retry_after is not None:
        try:
            wait = float(retry_after)
        except ValueError:
            wait = None
    kind = _BY_STATUS.get(status, ServerError if status >= 500 else RemeError)
    return kind(status, code, message, wait)


class RemeClient:
    """A tenant's view of one ReMe Streams deployment (any instance: reads are forwarded to their owners).

    :param base_url: the API's address, e.g. ``http://127.0.0.1:8080``
    :param api_key: the tenant's key (sent as ``Authorization: Bearer``)
    :param timeout: seconds one request may take
    :param max_retries: how often a 429 or 503 is sent again (0: never)
    :param max_wait: the longest wait between two tries, whatever Retry-After says
    """

    def __init__(self, base_url: str, api_key: str, *, timeout: float = 10.0, max_retries: int = 5,
                 max_wait: float = 30.0, sleep: Callable[[float], None] = time.sleep):
        if not base_url.startswith(("http://", "https://")):
            raise ValueError("base_url must start with http:// or https://, got " + repr(base_url))
        self.base_url = base_url.rstrip("/")
        self._key = api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_wait = max_wait
        self._sleep = sleep

    # ---- messages and context -------------------------------------------------------------------

    def send_messages(self, messages: Sequence[Mapping[str, Any]]) -> Json:
        """Produces messages (OpenAI chat shape or block content; each with session, user, role) to the pipeline.

        A message without an ``id`` gets one from the server; send the same ids again after a failure, and the
        pipeline drops what it already has.
        """
        return self._call("POST", "/v1/messages", body=list(messages))

    def context(self, session: str, *, format: Optional[str] = None, whole_window: bool = False) -> Json:
        """A session's context: summary and live messages with token counts, or, with ``format`` ``"openai"`` or
        ``"anthropic"``, the messages ready to send to that API."""
        query = {}
        if format is not None:
            query["format"] = format
        if whole_window:
            query["window"] = "all"
        return self._call("GET", "/v1/sessions/" + _segment(session) + "/context", query=query)

    # ---- search and memories --------------------------------------------------------------------

    def search(self, query: str, *, k: int = 10, types: Optional[Sequence[str]] = None,
               users: Optional[Sequence[str]] = None, sessions: Optional[Sequence[str]] = None,
               since: Optional[str] = None, until: Optional[str] = None,
               min_score: Optional[float] = None) -> Json:
        """Hybrid (BM25 and vector) search over the tenant's memories and diaries: ``{"hits": [...], ...}``."""
        body: Json = {"query": query, "k": k}
        _put(body, "types", types)
        _put(body, "users", users)
        _put(body, "sessions", sessions)
        _put(body, "from", since)
        _put(body, "to", until)
        _put(body, "minScore", min_score)
        return self._call("POST", "/v1/search", body=body)

    def create_memory(self, content: str, *, type: str = "personal", user: Optional[str] = None,
                      session: Optional[str] = None, target: Optional[str] = None,
                      metadata: Optional[Mapping[str, str]] = None,
                      conversation_time: Optional[str] = None) -> Json:
        """Writes a memory (embedded by the server) and answers once searches see it: ``{"id", "version",
        "visible", "memory"}``."""
        body: Json = {"type": type, "content": content}
        _put(body, "user", user)
        _put(body, "session", session)
        _put(body, "target", target)
        _put(body, "metadata", dict(metadata) if metadata is not None else None)
        _put(body, "conversationTime", conversation_time)
        return self._call("POST", "/v1/memories", body=body)

    def get_memory(self, memory_id: str) -> Json:
        return self._call("GET", "/v1/memories/" + _segment(memory_id))

    def update_memory(self, memory_id: str, *, content: Optional[str] = None, target: Optional[str] = None,
                      metadata: Optional[Mapping[str, str]] = None, version: Optional[int] = None) -> Json:
        """A new version of a memory; with ``version``, only if it is still at that one (else :class:`Conflict`)."""
        body: Json = {}
        _put(body, "content", content)
        _put(body, "target", target)
        _put(body, "metadata", dict(metadata) if metadata is not None else None)
        _put(body, "version", version)
        return self._call("PUT", "/v1/memories/" + _segment(memory_id), body=body)

    def delete_memory(self, memory_id: str) -> Json:
        return self._call("DELETE", "/v1/memories/" + _segment(memory_id))

    def list_memories(self, *, types: Optional[Sequence[str]] = None, users: Optional[Sequence[str]] = None,
                      sort: Optional[str] = None, order: Optional[str] = None, limit: Optional[int] = None,
                      cursor: Optional[str] = None) -> Json:
        """One page of memories: ``{"memories": [...], "nextCursor": ...}``."""
        query: list[tuple[str, str]] = []
        for t in types or ():
            query.append(("type", t))
        for u in users or ():
            query.append(("user", u))
        for name, value in (("sort", sort), ("order", order), ("limit", limit), ("cursor", cursor)):
            if value is not None:
                query.append((name, str(value)))
        return self._call("GET", "/v1/memories", query=query)

    def iter_memories(self, **filters: Any) -> Iterator[Json]:
        """Every memory the filters of :meth:`list_memories` admit, page after page."""
        return self._pages(lambda cursor: self.list_memories(cursor=cursor, **filters), "memories")

    # ---- sessions, diaries, erasure -------------------------------------------------------------

    def list_sessions(self, *, user: Optional[str] = None, active_since: Optional[str] = None,
                      limit: Optional[int] = None, cursor: Optional[str] = None) -> Json:
        query = {name: str(value) for name, value in
                 (("user", user), ("active_since", active_since), ("limit", limit), ("cursor", cursor))
                 if value is not None}
        return self._call("GET", "/v1/sessions", query=query)

    def iter_sessions(self, **filters: Any) -> Iterator[Json]:
        """Every session of the tenant (newest activity first), page after page."""
        return self._pages(lambda cursor: self.list_sessions(cursor=cursor, **filters), "sessions")

    def diary(self, user: str, document: str) -> Json:
        """``document`` is a date, ``YYYY-MM-DD``, or ``MEMORY``."""
        return self._call("GET", "/v1/diary/" + _segment(user) + "/" + _segment(document))

    def erase_user(self, user: str) -> Json:
        """Forgets a user of the tenant everywhere; ``complete`` says whether every part is done yet."""
        return self._call("DELETE", "/v1/users/" + _segment(user))

    def user_erasure(self, user: str) -> Json:
        return self._call("GET", "/v1/users/" + _segment(user) + "/erasure")

    def erase_tenant(self, confirm: str) -> Json:
        """Forgets the whole tenant; ``confirm`` must be the tenant's own name."""
        return self._call("DELETE", "/v1/tenant", body={"confirm": confirm})

    # ---- the wire -------------------------------------------------------------------------------

    def _pages(self, page: Callable[[Optional[str]], Json], field: str) -> Iterator[Json]:
        cursor = None
        while True:
            answer = page(cursor)
            yield from answer.get(field, [])
            cursor = answer.get("nextCursor")
            if not cursor:
                return

    def _call(self, method: str, path: str, *, body: Any = None,
              query: Mapping[str, str] | Sequence[tuple[str, str]] | None = None) -> Json:
        url = self.base_url + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = None if body is None else json.dumps(body).encode("utf-8")
        attempt = 0
        while True:
            request = urllib.request.Request(url, data=data, method=method)
            request.add_header("Authorization", "Bearer " + self._key)
            request.add_header("Accept", "application/json")
            if data is not None:
                request.add_header("Content-Type", "application/json")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                    raw = answer.read()
                    return json.loads(raw) if raw else {}
            except urllib.error.HTTPError as e:
                error = _error(e.code, e.read(), e.headers.get("Retry-After"))
                if e.code not in _RETRIED or attempt >= self.max_retries:
                    raise error from None
                attempt += 1
                self._sleep(min(self.max_wait, error.retry_after if error.retry_after is not None else 2 ** attempt))


def _segment(value: str) -> str:
    return urllib.parse.quote(value, safe="")


def _put(body: Json, name: str, value: Any) -> None:
    if value is not None:
        body[name] = value
