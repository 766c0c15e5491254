"""The frames a seat was sent, kept for resumes, compactly.

A resume replays every event frame after the client's ``last_seq``, so a seat keeps
them all until the match is over: about 120 frames a hand, 18 kB, so 18 MB a seat and
74 MB a table over a 1,024-hand match as plain strings. :class:`FrameLog` keeps the
hand in progress as strings and packs each finished hand into one zlib block (about a
tenth of the size, a fraction of a millisecond a hand); a replay unpacks the hands it
reads, one at a time.

>>> log = FrameLog()
>>> for n in range(5):
...     log.append(f'{{"seq":{n + 1}}}')
...     if n == 2:
...         log.pack()  # the end of a hand
>>> len(log), log.frames(1, 4)
(5, ['{"seq":2}', '{"seq":3}', '{"seq":4}'])
>>> log.frames(0, 5, budget=15)  # about 15 characters' worth
['{"seq":1}', '{"seq":2}']
>>> log.frames(0, 5, budget=0)
[]
"""

from __future__ import annotations

import bisect
import zlib

__all__ = ["FrameLog"]

_SEPARATOR = "\n"
"""Between the frames of a packed hand (a JSON frame never holds a raw newline)."""


class FrameLog:
    """Frames in order, by index from 0 (see the module doc)."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        """Index of the first frame of each packed block."""
        self._blocks: list[bytes] = []
        self._recent: list[str] = []
        """Frames after the last packed block, as strings."""
        self._base = 0
        """Index of ``_recent[0]``."""
        self._unpacked: tuple[int, list[str]] | None = None
        """The block read last, unpacked (a replay reads a block piece by piece)."""

    def __len__(self) -> int:
        return self._base + len(self._recent)

    def append(self, frame: str) -> None:
        """One more frame."""
        self._recent.append(frame)

    def pack(self) -> None:
        """Pack the frames since the last pack into one block (call at a hand's end)."""
        recent = self._recent
        if not recent:
            return
        self._starts.append(self._base)
        self._blocks.append(zlib.compress(_SEPARATOR.join(recent).encode(), 1))
        self._base += len(recent)
        self._recent = []

    def _block(self, i: int) -> list[str]:
        unpacked = self._unpacked
        if unpacked is None or unpacked[0] != i:
            text = zlib.decompress(self._blocks[i]).decode()
            unpacked = self._unpacked = (i, text.split(_SEPARATOR))
        return unpacked[1]

    def frames(self, start: int, stop: int, budget: int | None = None) -> list[str]:
        """Frames ``start`` to ``stop`` (excluded); with a ``budget``, only the first of
        them while fewer than that many characters were taken (at least one if the
        budget is positive, none if it is 0)."""
        out: list[str] = []
        size, index = 0, start
        while index < stop and (budget is None or size < budget):
            if index >= self._base:
                chunk, first = self._recent, self._base
            else:
                i = bisect.bisect_right(self._starts, index) - 1
                chunk, first = self._block(i), self._starts[i]
            end = min(stop, first + len(chunk))
            for frame in chunk[index - first : end - first]:
                if budget is not None and size >= budget:
                    return out
                out.append(frame)
                size += len(frame)
            index = end
        return out
