"""Encoded REST answers kept for reuse, so that a client asking the same thing in a loop
costs the server a dictionary lookup, not a query, a replay and a JSON encoding.

Each entry lives ``ttl`` seconds (``None``: until evicted, for answers that never change,
such as a finished match's record); at most ``max_entries`` entries and ``max_bytes``
bytes are kept, the least recently used going first. Concurrent misses of one key share
one computation.

>>> import asyncio
>>> cache = ResponseCache(max_entries=2, max_bytes=100)
>>> calls = []
>>> async def make() -> bytes:
...     calls.append(1)
...     return b"answer"
>>> async def twice():
...     return [await cache.get(("k",), make, ttl=None, now=0.0) for _ in range(2)]
>>> asyncio.run(twice()), len(calls)
([b'answer', b'answer'], 1)
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable

__all__ = ["ResponseCache"]


class ResponseCache:
    """Least-recently-used answers by key, with an optional time to live."""

    def __init__(self, max_entries: int = 64, max_bytes: int = 32 << 20) -> None:
        self.max_entries, self.max_bytes = max_entries, max_bytes
        self._entries: OrderedDict[Hashable, tuple[float | None, bytes]] = OrderedDict()
        self._bytes = 0
        self._pending: dict[Hashable, asyncio.Future[bytes]] = {}

    async def get(
        self,
        key: Hashable,
        make: Callable[[], Awaitable[bytes]],
        *,
        ttl: float | None,
        now: float,
    ) -> bytes:
        """The answer for ``key``: kept, being made by another request, or made now by
        ``make`` (whose exceptions pass through and are not kept)."""
        entry = self._entries.get(key)
        if entry is not None and (entry[0] is None or now < entry[0]):
            self._entries.move_to_end(key)
            return entry[1]
        pending = self._pending.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._pending[key] = future
        try:
            body = await make()
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning if none waits
            raise
        finally:
            del self._pending[key]
        future.set_result(body)
        self._put(key, body, None if ttl is None else now + ttl)
        return body

    def _put(self, key: Hashable, body: bytes, expires: float | None) -> None:
        if len(body) > self.max_bytes:
            return
        old = self._entries.pop(key, None)
        if old is not None:
            self._bytes -= len(old[1])
        self._entries[key] = (expires, body)
        self._bytes += len(body)
        while len(self._entries) > self.max_entries or self._bytes > self.max_bytes:
            _, (_, dropped) = self._entries.popitem(last=False)
            self._bytes -= len(dropped)
