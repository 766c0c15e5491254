"""Secrets and abuse limits: seat tokens, frame size checks, per-connection throttling.

Each seat gets its own token from :mod:`secrets`; a connection is bound to the seat whose
token it presented and can act for no other. :class:`TokenBucket` meters what a
connection sends: within the rate it costs nothing, a burst above it is delayed
(throttled), and a connection that keeps flooding is cut off. Every answer the server
asks for (a reply to a request, an answer to an ``/ask``) is granted on top of the rate,
so a fast bot is never throttled for answering quickly.

>>> bucket = TokenBucket(rate=10, burst=2, now=0.0, flood_seconds=1.0)
>>> [bucket.take(0.0) for _ in range(3)]
[0.0, 0.0, 0.1]
>>> bucket.take(0.1) > 0, bucket.flooding
(True, False)
>>> [bucket.take(t / 10) for t in range(2, 12)][-1] > 0, bucket.flooding
(True, True)
>>> TokenBucket(10, 2, 0.0).take(5.0)
0.0
"""

from __future__ import annotations

import hmac
import secrets

__all__ = ["FloodError", "TokenBucket", "new_token", "same_token"]

TOKEN_BYTES = 24
"""Entropy of a seat token (192 bits, as 48 hex digits)."""


def new_token() -> str:
    """A fresh, unguessable seat token: hex digits only, so that it is one word on any
    command line and never begins with ``-`` (``--token -x...`` would read as an option;
    URL-safe base64 began with ``-`` once in 64 tokens).

    >>> token = new_token()
    >>> len(token), set(token) <= set("0123456789abcdef")
    (48, True)
    """
    return secrets.token_hex(TOKEN_BYTES)


def same_token(given: str | None, expected: str) -> bool:
    """Constant-time token comparison."""
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


class FloodError(Exception):
    """A connection sent far more than its rate allows; it is disconnected."""


class TokenBucket:
    """A token bucket of ``burst`` tokens refilled at ``rate`` per second.

    :meth:`take` spends one token and returns how long to wait before processing the
    message (0 within the limit): the reader sleeps that long, so a fast sender is held
    to ``rate``. A sender whose messages keep arriving over the limit, about
    ``flood_seconds`` worth of them (``rate * flood_seconds``) without the bucket ever
    filling back to half the burst, sets :attr:`flooding`, and the caller disconnects
    it. (Counting messages, not time, matters: the reader's own sleeps refill the
    bucket, so a throttled flooder would otherwise never look over the limit for long.)
    :meth:`grant` adds the answers the server asked for, so replying quickly never
    counts against a bot.
    """

    __slots__ = ("burst", "flood_seconds", "flooding", "over", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: int, now: float, flood_seconds: float = 2.0) -> None:
        self.rate, self.burst, self.flood_seconds = rate, burst, flood_seconds
        self.tokens = float(burst)
        self.stamp = now
        self.over = 0
        """Messages over the limit since the bucket was last half full."""
        self.flooding = False

    def grant(self, n: int = 1) -> None:
        """Allow ``n`` more messages now (the answers the server asked for), up to
        twice the burst."""
        self.tokens = min(2 * self.burst, self.tokens + n)

    def take(self, now: float) -> float:
        """Spend a token at ``now``; the delay (seconds) before the message is handled."""
        if self.tokens < self.burst:
            self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= self.burst / 2:
            self.over = 0
        self.tokens -= 1
        if self.tokens >= 0:
            return 0.0
        self.over += 1
        if self.over >= max(1.0, self.rate * self.flood_seconds):
            self.flooding = True
        return -self.tokens / self.rate
