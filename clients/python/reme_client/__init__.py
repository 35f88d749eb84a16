"""A client of the ReMe Streams HTTP API: messages in, context, search, memories, sessions, diaries, erasure.

Standard library only. Every call raises a :class:`RemeError` (a subclass per status) with the API's error code
and message; 429 and 503 answers are retried after their ``Retry-After``.
"""

from reme_client.client import (
    BadRequest,
    Conflict,
    NotFound,
    PayloadTooLarge,
    RateLimited,
    RemeClient,
    RemeError,
    ServerError,
    Unauthorized,
    Unavailable,
)

__all__ = [
    "BadRequest",
    "Conflict",
    "NotFound",
    "PayloadTooLarge",
    "RateLimited",
    "RemeClient",
    "RemeError",
    "ServerError",
    "Unauthorized",
    "Unavailable",
]
