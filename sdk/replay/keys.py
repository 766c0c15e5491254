"""Key presses from a terminal's bytes, for the replay's keyboard mode.

:class:`KeyDecoder` is sans-I/O: bytes in, key names out. A terminal sends most keys as
one character and the others as escape sequences (``ESC [ 5 ~`` for PageUp, ``ESC O H``
for Home on some terminals); every sequence is read to its end, so one the replay does
not know is dropped whole (it used to read as Escape, quit, and leave its ``~`` on the
command line). A lone Escape is told apart from the start of a sequence by time: the
reader calls :meth:`KeyDecoder.timeout` when nothing followed it.

>>> d = KeyDecoder()
>>> d.feed(b"n\\x1b[6~\\x1b[C\\x1b[24~q")
['n', 'pagedown', 'right', 'q']
>>> d.feed(b"\\x1b"), d.timeout()
([], ['escape'])
"""

from __future__ import annotations

import os
import select
from collections.abc import Iterator

__all__ = ["ESCAPE_WAIT", "KeyDecoder", "read_keys"]

ESCAPE_WAIT = 0.05
"""Seconds to wait after an Escape byte for the rest of a sequence."""

_CSI = {
    "A": "up",
    "B": "down",
    "C": "right",
    "D": "left",
    "H": "home",
    "F": "end",
    "1~": "home",
    "7~": "home",
    "4~": "end",
    "8~": "end",
    "5~": "pageup",
    "6~": "pagedown",
}
_SS3 = {"A": "up", "B": "down", "C": "right", "D": "left", "H": "home", "F": "end"}
_PLAIN = {"\r": "enter", "\n": "enter", "\x7f": "backspace", "\x08": "backspace"}


class KeyDecoder:
    """Bytes from a terminal in cbreak mode, out as key names: printable characters as
    themselves, ``enter``, ``backspace``, ``up``/``down``/``left``/``right``, ``home``,
    ``end``, ``pageup``, ``pagedown``, ``escape``; unknown sequences are dropped."""

    def __init__(self) -> None:
        self._pending = b""

    @property
    def waiting(self) -> bool:
        """Whether an Escape (or a sequence's start) waits for more bytes."""
        return bool(self._pending)

    def feed(self, data: bytes) -> list[str]:
        """The keys completed by ``data``."""
        buf = self._pending + data
        keys: list[str] = []
        i = 0
        while i < len(buf):
            key, used = _one(buf, i)
            if used == 0:  # an incomplete sequence or character: wait for more
                break
            if key:
                keys.append(key)
            i += used
        self._pending = buf[i:]
        return keys

    def timeout(self) -> list[str]:
        """Nothing more came: a lone Escape is the Escape key; a cut sequence is dropped."""
        pending, self._pending = self._pending, b""
        return ["escape"] if pending == b"\x1b" else []


def _one(buf: bytes, i: int) -> tuple[str, int]:
    """The key at ``buf[i:]`` and how many bytes it took (0: incomplete)."""
    if buf[i] != 0x1B:
        return _char(buf, i)
    if i + 1 >= len(buf):
        return "", 0
    intro = buf[i + 1]
    if intro == ord("["):
        for j in range(i + 2, len(buf)):
            if 0x40 <= buf[j] <= 0x7E:  # the final byte of a control sequence
                body = buf[i + 2 : j + 1].decode("ascii", "replace")
                return _CSI.get(body, ""), j + 1 - i
        return "", 0
    if intro == ord("O"):
        if i + 2 >= len(buf):
            return "", 0
        return _SS3.get(chr(buf[i + 2]), ""), 3
    if intro == 0x1B:  # Escape pressed twice
        return "escape", 1
    return "", 2  # Alt+key: not a replay key


def _char(buf: bytes, i: int) -> tuple[str, int]:
    first = buf[i]
    size = 1 if first < 0x80 else 2 if first >> 5 == 0b110 else 3 if first >> 4 == 0b1110 else 4
    if i + size > len(buf):
        return "", 0
    ch = buf[i : i + size].decode("utf-8", "replace")
    return _PLAIN.get(ch, ch if ch.isprintable() else ""), size


def read_keys(fd: int, wait: float = ESCAPE_WAIT) -> Iterator[str]:
    """The keys typed on ``fd`` (a terminal in cbreak mode), until end of input ("q")."""
    decoder = KeyDecoder()
    while True:
        if decoder.waiting and not select.select([fd], [], [], wait)[0]:
            yield from decoder.timeout()
            continue
        data = os.read(fd, 64)
        if not data:
            yield "q"
            return
        yield from decoder.feed(data)
