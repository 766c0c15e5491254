"""A finished match's stored log, packed: every hand's events and decision records in one
zlib stream.

While a match runs the store writes each hand as it ends (a row of JSON lines per hand,
so a crash loses at most the hand in progress). When the match is over its hands are
packed into one compressed blob: JSON lines of many hands repeat the same keys and
values, so one stream over the whole match compresses about 12 times where one per hand
compresses about 9 (``benchmarks/bench_server_storage.py``). Unpacking gives back the
very same texts, so whatever is served from them is the same bytes as before.

A pack is the hands' texts in order, each hand ``events RS decisions GS`` (the ASCII
record and group separators, which JSON text never holds raw: ``json.dumps`` escapes
every control character), compressed with zlib.

>>> hands = [("{}\\n{}", '{"seat":1}'), ("", "")]
>>> unpack(pack(hands)) == hands
True
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable

__all__ = ["CODEC", "pack", "unpack"]

CODEC = "zlib-jsonl-1"
"""The name of this packing, stored with every pack (a later codec gets a new name)."""
LEVEL = 6
"""zlib's level: 9 gains about a tenth more for five times the CPU."""
_RS, _GS = "\x1e", "\x1d"


def pack(hands: Iterable[tuple[str, str]]) -> bytes:
    """Compress hands given as ``(events, decisions)`` texts (JSON lines), in order."""
    out = zlib.compressobj(LEVEL)
    parts = []
    for events, decisions in hands:
        if _RS in events or _GS in events or _RS in decisions or _GS in decisions:
            raise ValueError("a stored text holds a raw separator (it is not JSON lines)")
        parts.append(out.compress(f"{events}{_RS}{decisions}{_GS}".encode()))
    parts.append(out.flush())
    return b"".join(parts)


def unpack(data: bytes) -> list[tuple[str, str]]:
    """The hands' ``(events, decisions)`` texts of a :func:`pack`."""
    text = zlib.decompress(data).decode()
    hands = []
    for hand in text.split(_GS)[:-1]:
        events, _, decisions = hand.partition(_RS)
        hands.append((events, decisions))
    return hands
