"""Limits on REST requests, as an ASGI middleware around the app: a request rate per
client address, and a body size enforced while the body is read.

* A client is its address, or on an address many clients share (``shared``: loopback
  by default, see ``ServerConfig.shared_networks``) its connection: there one client
  flooding over its connection is refused while its neighbours are served.
* Each client has a :class:`~sdk.server.security.TokenBucket` of
  ``rate`` requests a second with bursts of ``burst``; a request over it is answered
  ``429`` with code ``rate_limited`` and a ``Retry-After`` header, without running the
  endpoint. WebSocket connections are not metered here (they have their own limits).
* A client address has at most ``concurrency`` requests in progress; one more is
  answered ``429`` the same way (a client cannot pile up slow requests). A request
  counts once its body is in: one still sending its body holds no slot, so stalled
  uploads cannot lock the address's other requests out.
* The whole body must arrive within ``body_timeout`` seconds; a request still sending
  it then is answered ``408`` (code ``malformed``) and its connection closed. With the
  request rate, this bounds the bodies being read for one address.
* Refusals over the rate, or over ``concurrency`` when the request arrives, are written
  before the request is parsed any further: a client over its limits costs the server
  as little as a request can.
* A body larger than ``max_body`` bytes is refused with ``413`` (code ``malformed``) as
  soon as its ``Content-Length`` says so or, without one, as soon as that many bytes
  have arrived: nothing larger is ever held in memory.

>>> limits = RestLimits(None, rate=1, burst=2, max_body=10)  # type: ignore[arg-type]
>>> [limits.allow("10.0.0.1", 0.0) for _ in range(3)]
[True, True, False]
>>> limits.allow("10.0.0.2", 0.0), limits.allow("10.0.0.1", 1.5)
(True, True)
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sdk.server.security import TokenBucket

__all__ = ["RestLimits"]

_MAX_CLIENTS = 10_000
"""Buckets kept; beyond, the full (idle) ones are forgotten."""


class _TooLarge(Exception):
    """A body went over ``max_body`` while it was read."""


def _error_response(status: int, code: str, message: str, headers: list[tuple[bytes, bytes]]):  # type: ignore[no-untyped-def]
    body = json.dumps({"code": code, "message": message}).encode()
    start = {
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            *headers,
        ],
    }
    return start, {"type": "http.response.body", "body": body}


class RestLimits:
    """The middleware (see the module doc)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        rate: float,
        burst: int,
        max_body: int,
        concurrency: int = 8,
        body_timeout: float = 5.0,
        shared: Callable[[str], bool] = lambda address: False,
    ) -> None:
        self.app = app
        self.shared = shared
        self.rate, self.burst, self.max_body = rate, burst, max_body
        self.concurrency = concurrency
        self.body_timeout = body_timeout
        self._buckets: dict[str, TokenBucket] = {}
        self._busy: Counter[str] = Counter()
        """Requests in progress per client address."""
        self._refusal = _error_response(
            429,
            "rate_limited",
            f"at most {rate:g} requests a second (bursts of {burst}) and {concurrency} at once",
            [(b"retry-after", str(max(1, math.ceil(1 / rate))).encode())],
        )

    def allow(self, client: str, now: float) -> bool:
        """Spend one request of ``client``'s budget; whether it was there."""
        bucket = self._buckets.get(client)
        if bucket is None:
            if len(self._buckets) >= _MAX_CLIENTS:
                self._forget(now)
            bucket = self._buckets[client] = TokenBucket(self.rate, self.burst, now)
        if bucket.take(now) > 0:
            bucket.tokens += 1  # a refused request costs nothing more
            return False
        return True

    def _forget(self, now: float) -> None:
        idle = [
            c for c, b in self._buckets.items() if b.tokens + (now - b.stamp) * b.rate >= b.burst
        ]
        for client in idle or list(self._buckets)[: len(self._buckets) // 2]:
            del self._buckets[client]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        address = client[0] if client else "?"
        if client and self.shared(address):
            address = f"{address}:{client[1]}"  # one connection, one client
        if self._busy[address] >= self.concurrency or not self.allow(address, time.monotonic()):
            await self._refuse(send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_body:
            await self._too_large(send)
            return
        try:  # no slot is held while the body arrives: a stalled upload blocks nobody
            async with asyncio.timeout(self.body_timeout):
                body = await self._read_body(receive)
        except TimeoutError:
            await self._timed_out(send)
            return
        except _TooLarge:
            await self._too_large(send)
            return
        if body is None:
            return  # the client went away
        if self._busy[address] >= self.concurrency:  # others got in while it arrived
            await self._refuse(send)
            return
        self._busy[address] += 1
        try:
            await self._call_with(body, scope, receive, send)
        finally:
            self._busy[address] -= 1
            if not self._busy[address]:
                del self._busy[address]

    async def _read_body(self, receive: Receive) -> bytes | None:
        """The whole body (at most ``max_body`` bytes are ever held: :class:`_TooLarge`
        beyond); ``None`` if the client went away."""
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return None
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > self.max_body:
                raise _TooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _call_with(self, body: bytes, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the app on the body already read."""
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        start, body = self._refusal
        await send(start)
        await send(body)

    async def _timed_out(self, send: Send) -> None:
        await _close_with(send, 408, f"a request body must arrive within {self.body_timeout:g} s")

    async def _too_large(self, send: Send) -> None:
        await _close_with(send, 413, f"a body has at most {self.max_body} bytes")


async def _close_with(send: Send, status: int, message: str) -> None:
    """Answer ``status`` with code ``malformed`` and ``message``, closing the connection
    (what is left of the body is never read)."""
    start, body = _error_response(status, "malformed", message, [(b"connection", b"close")])
    await send(start)
    await send(body)


def _content_length(scope: Scope) -> int | None:
    headers: Any = scope.get("headers") or ()
    for name, value in headers:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
