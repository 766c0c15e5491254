"""Secrets and abuse limits: seat tokens, frame size checks, per-connection throttling.

Each seat gets its own token from :mod:`secrets`; a connection is bound to the seat whose
token it presented and can act for no other. :class:`TokenBucket` meters what a
connection sends: within the rate it costs nothing, a burst above it is delayed
(throttled), and a connection that keeps flooding is cut off. Every answer the server
asks for (a reply to a request, an answer to an ``/ask``) is granted on top of the rate,
so a fast bot is never throttled for answering quickly.

>>> bucket = TokenBucket(rate=10, burst=2, now=0.0)
>>> [bucket.take(0.0) for _ in range(3)]
[0.0, 0.0, 0.1]
>>> bucket.take(0.0) > 0, bucket.flooding
(True, False)
>>> bucket.grant(5); bucket.take(0.0)
0.0
"""

from __future__ import annotations

import hmac
import secrets

__all__ = ["FloodError", "TokenBucket", "new_token", "same_token"]

TOKEN_BYTES = 24
"""Entropy of a seat token (192 bits, URL-safe text)."""


def new_token() -> str:
    """A fresh, unguessable seat token."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def same_token(given: str | None, expected: str) -> bool:
    """Constant-time token comparison."""
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


class FloodError(Exception):
    """A connection sent far more than its rate allows; it is disconnected."""


class TokenBucket:
    """A token bucket of ``burst`` tokens refilled at ``rate`` per second.

    :meth:`take` spends one token and returns how long to wait before processing the
    message (0 within the limit). The debt may grow to another ``burst`` tokens: past
    that, :attr:`flooding` is set and the caller disconnects.
    """

    __slots__ = ("burst", "flooding", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self.stamp = now
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
        self.tokens -= 1
        if self.tokens >= 0:
            return 0.0
        if self.tokens < -self.burst:
            self.flooding = True
        return -self.tokens / self.rate
