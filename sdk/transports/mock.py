"""Scripted connections for testing sessions, in the style of python-chess's
``MockTransport``: a transcript of what the server sends and what the client must send.

A :class:`MockChannel` is one connection. Its script is a list of steps, in order:

* :meth:`~MockChannel.incoming` — frames the server sends (``recv()`` returns them);
* :meth:`~MockChannel.expect` — a frame the client must send next (an exact string, a
  dict that the JSON frame must contain, ``MISSING`` for a key that must be absent, or a
  predicate), optionally followed by the server's answer frames;
* :meth:`~MockChannel.wait` — ``recv()`` waits for an awaitable first (for example an
  :class:`asyncio.Event` the bot sets), to script what happens while the bot thinks;
* :meth:`~MockChannel.drop` — the connection drops here.

Sending anything unexpected, or a frame after the drop, fails the script;
:meth:`~MockChannel.assert_done` checks that every step happened. A
:class:`MockTransport` hands out several scripted connections one after the other, so
a session can reconnect and resume.

>>> import asyncio
>>> async def demo() -> list[str]:
...     ch = MockChannel().incoming("/start MJ 1 bot").expect("/ready", "/exit")
...     first = await ch.recv()
...     await ch.send("/ready")
...     return [first, await ch.recv()]
>>> asyncio.run(demo())
['/start MJ 1 bot', '/exit']
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sdk.transports import ChannelClosed

__all__ = ["MISSING", "MockChannel", "MockScriptError", "MockTransport"]

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()
"""In a dict matcher: the key must not be in the frame."""

Matcher = str | dict[str, Any] | Callable[[str], bool]


class MockScriptError(AssertionError):
    """The client did not follow the script."""


@dataclass(frozen=True, slots=True)
class _Step:
    kind: str  # "in", "out", "wait" or "drop"
    value: Any = None


def matches(matcher: Matcher, frame: str) -> bool:
    """Whether ``frame`` satisfies ``matcher`` (see the module docstring).

    >>> matches({"type": "hello", "last_seq": MISSING}, '{"type": "hello", "token": "t"}')
    True
    >>> matches({"type": "reply", "action_id": 1}, '{"type": "reply", "action_id": 0}')
    False
    """
    if isinstance(matcher, str):
        return frame == matcher
    if isinstance(matcher, dict):
        try:
            data = json.loads(frame)
        except ValueError:
            return False
        if not isinstance(data, dict):
            return False
        return all(
            (key not in data) if want is MISSING else data.get(key, MISSING) == want
            for key, want in matcher.items()
        )
    return bool(matcher(frame))


class MockChannel:
    """One scripted connection (a :class:`~sdk.transports.Channel`)."""

    def __init__(self, timeout: float = 10.0) -> None:
        self.timeout = timeout
        """How long ``recv()`` waits for an expected frame before failing."""
        self.sent: list[str] = []
        """Every frame the client sent, in order."""
        self.errors: list[str] = []
        self.closed = False
        self._steps: deque[_Step] = deque()
        self._progress = asyncio.Condition()  # binds to the loop on first use

    # -- scripting --

    def incoming(self, *frames: str) -> MockChannel:
        """The server sends these frames."""
        self._steps.extend(_Step("in", f) for f in frames)
        return self

    def expect(self, matcher: Matcher, *responses: str) -> MockChannel:
        """The client must send a frame matching ``matcher``; then ``responses`` arrive."""
        self._steps.append(_Step("out", matcher))
        return self.incoming(*responses)

    def wait(self, awaitable: Callable[[], Awaitable[Any]] | asyncio.Event) -> MockChannel:
        """Before the next incoming frame, wait for ``awaitable`` (an event, or a function
        returning an awaitable)."""
        self._steps.append(_Step("wait", awaitable))
        return self

    def drop(self) -> MockChannel:
        """The connection drops here."""
        self._steps.append(_Step("drop"))
        return self

    # -- the channel --

    async def recv(self) -> str:
        """The next frame; :class:`~sdk.transports.ChannelClosed` when the connection ends."""
        while True:
            self._check()
            if self.closed:
                raise ChannelClosed("the mock connection is closed")
            if not self._steps:
                self._fail("the session reads on after the end of the script")
            step = self._steps[0]
            if step.kind == "in":
                self._steps.popleft()
                return str(step.value)
            if step.kind == "drop":
                self._steps.popleft()
                self.closed = True
                raise ChannelClosed("the mock connection dropped")
            if step.kind == "wait":
                self._steps.popleft()
                value = step.value
                await (value.wait() if isinstance(value, asyncio.Event) else value())
                continue
            await self._wait_for_send(step)

    async def _wait_for_send(self, step: _Step) -> None:
        cond = self._progress
        async with cond:
            try:
                await asyncio.wait_for(
                    cond.wait_for(lambda: not self._steps or self._steps[0] is not step),
                    self.timeout,
                )
            except TimeoutError:
                self._fail(f"the client did not send a frame matching {step.value!r}")

    async def send(self, frame: str) -> None:
        """Write one frame; :class:`~sdk.transports.ChannelClosed` if the connection is gone."""
        if self.closed:
            raise ChannelClosed("the mock connection is closed")
        self.sent.append(frame)
        step = self._steps[0] if self._steps else None
        if step is None or step.kind != "out" or not matches(step.value, frame):
            wanted = "nothing" if step is None else f"{step.kind} {step.value!r}"
            self._fail(f"unexpected frame {frame!r}; the script wanted {wanted}")
        self._steps.popleft()
        cond = self._progress
        async with cond:
            cond.notify_all()

    async def close(self) -> None:
        """Close the connection."""
        self.closed = True

    # -- checks --

    def assert_done(self) -> None:
        """Every step happened and nothing unexpected was sent."""
        self._check()
        if self._steps:
            left = ", ".join(f"{s.kind} {s.value!r}" for s in self._steps)
            raise MockScriptError(f"the script did not finish; left: {left}")

    def _check(self) -> None:
        if self.errors:
            raise MockScriptError(self.errors[0])

    def _fail(self, message: str) -> None:
        self.errors.append(message)
        raise MockScriptError(message)


class MockTransport:
    """Several scripted connections for one session: :meth:`connection` adds one to the
    script, :meth:`connect` (the session's ``connect`` function) hands them out in order
    and then refuses."""

    def __init__(self) -> None:
        self.channels: list[MockChannel] = []
        self.opened = 0

    def connection(self, timeout: float = 10.0) -> MockChannel:
        """The next connection the session opens (waits up to ``timeout`` s)."""
        channel = MockChannel(timeout)
        self.channels.append(channel)
        return channel

    async def connect(self) -> MockChannel:
        """Open a new scripted connection (the session's ``connect``)."""
        if self.opened >= len(self.channels):
            raise ChannelClosed("no more scripted connections")
        self.opened += 1
        return self.channels[self.opened - 1]

    def assert_done(self) -> None:
        """Fail unless every scripted frame was consumed."""
        if self.opened != len(self.channels):
            raise MockScriptError(f"{self.opened} of {len(self.channels)} connections were made")
        for channel in self.channels:
            channel.assert_done()
