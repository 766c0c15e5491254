"""The table-driven core of hand analysis: group keys, win codes and shape signatures.

A hand splits into four *groups*: the three suits and the honors. Each group's counts are
read as a base-5 number, its *key* (``sum(count[r] * 5**r)``), so a whole hand is four
small ints, and adding or removing a tile is one addition (``keys[GROUP[t]] += POWER[t]``).
The referee and the client mirror keep keys incrementally this way.

Two tables, shipped in ``protocol/data/shapes.bin`` (built by
``scripts/build_shape_tables.py``), are indexed by a group key:

* the *win code*: 0 if the group is made of sets only (or empty), 1 if it is sets plus one
  pair, 9 otherwise; a hand is complete exactly when its four codes add up to 1;
* the *signature*: an id for the group's 12 distances ``d[m][h]`` (m = 0..5 sets,
  h = 0..1 pair), the fewest tiles to add so that the group holds m sets and h pairs with
  no kind used more than four times. Only a couple of hundred distinct signatures exist.

The distance of a whole hand to n sets and a pair is the min-plus combination of its
groups' rows; combinations are memoised by signature ids, so after warm-up a shanten is
four table reads and three dict hits. Shanten is that distance minus one.

>>> from protocol.tiles import parse_counts
>>> keys = encode(parse_counts("123m 456p 789s 111s EE"))
>>> is_complete(keys), distance(keys, 4) - 1
(True, -1)
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from importlib import resources
from operator import add

__all__ = [
    "GROUP",
    "POWER",
    "combine",
    "combined",
    "distance",
    "encode",
    "is_complete",
]

MAX_SETS = 5
_MAGIC = b"TMJSHAPE2"
_SUIT_KEYS = 5**9
_HONOR_KEYS = 5**7

GROUP: tuple[int, ...] = tuple(t // 9 for t in range(34))
"""Group of each kind: 0 = m, 1 = p, 2 = s, 3 = honors."""
POWER: tuple[int, ...] = tuple(5 ** (t % 9) if t < 27 else 5 ** (t - 27) for t in range(34))
"""Value of one tile of each kind in its group's key."""


def _load() -> tuple[list[tuple[int, ...]], bytes, bytes, bytes, bytes]:
    raw = resources.files("protocol").joinpath("data/shapes.bin").read_bytes()
    if not raw.startswith(_MAGIC):
        raise RuntimeError("protocol/data/shapes.bin has an unknown format; rebuild it")
    data = zlib.decompress(raw[len(_MAGIC) :])
    nsig = int.from_bytes(data[:4], "little")
    pos = 4
    rows = [tuple(data[pos + 12 * i : pos + 12 * i + 12]) for i in range(nsig)]
    pos += 12 * nsig
    parts = []
    for size in (_SUIT_KEYS, _SUIT_KEYS, _HONOR_KEYS, _HONOR_KEYS):
        parts.append(data[pos : pos + size])
        pos += size
    return rows, parts[0], parts[1], parts[2], parts[3]


_ROWS, _SUIT_SIG, _SUIT_WIN, _HONOR_SIG, _HONOR_WIN = _load()
_COMBINED: dict[int, int] = {}
_ROW_IDS: dict[tuple[int, ...], int] = {row: i for i, row in enumerate(_ROWS)}


def encode(counts: Sequence[int]) -> list[int]:
    """The four group keys ``[m, p, s, honors]`` of a count vector of 34 kinds.

    >>> from protocol.tiles import parse_counts
    >>> encode(parse_counts("1m 2m 9s E"))
    [6, 0, 390625, 1]
    """
    c = counts
    return [
        c[0] + 5 * c[1] + 25 * c[2] + 125 * c[3] + 625 * c[4]
        + 3125 * c[5] + 15625 * c[6] + 78125 * c[7] + 390625 * c[8],
        c[9] + 5 * c[10] + 25 * c[11] + 125 * c[12] + 625 * c[13]
        + 3125 * c[14] + 15625 * c[15] + 78125 * c[16] + 390625 * c[17],
        c[18] + 5 * c[19] + 25 * c[20] + 125 * c[21] + 625 * c[22]
        + 3125 * c[23] + 15625 * c[24] + 78125 * c[25] + 390625 * c[26],
        c[27] + 5 * c[28] + 25 * c[29] + 125 * c[30] + 625 * c[31] + 3125 * c[32] + 15625 * c[33],
    ]  # fmt: skip


def is_complete(keys: Sequence[int]) -> bool:
    """True when the hand is sets plus exactly one pair (standard shape only)."""
    w = _SUIT_WIN
    return w[keys[0]] + w[keys[1]] + w[keys[2]] + _HONOR_WIN[keys[3]] == 1


def win_codes() -> tuple[bytes, bytes]:
    """The raw win-code tables (suits, honors), for callers that inline the check."""
    return _SUIT_WIN, _HONOR_WIN


def signature_tables() -> tuple[bytes, bytes]:
    """The raw signature tables (suits, honors): key -> id of its distance row."""
    return _SUIT_SIG, _HONOR_SIG


def group_rows() -> list[tuple[int, ...]]:
    """The distance rows by id: a group signature's 12 distances ``d[m][h]`` at
    ``2*m + h`` (ids past the groups' own are memoised combinations)."""
    return _ROWS


def distance(keys: Sequence[int], sets: int) -> int:
    """Fewest tiles to add (swapping out others) to hold ``sets`` sets and a pair.

    Shanten is this minus one. ``sets`` is 0..5.
    """
    sig = _SUIT_SIG
    memo = _COMBINED
    a = sig[keys[0]]
    b = sig[keys[1]]
    x = memo.get((a << 20) | b)
    if x is None:
        x = combine(a, b)
    b = sig[keys[2]]
    y = memo.get((x << 20) | b)
    if y is None:
        y = combine(x, b)
    b = _HONOR_SIG[keys[3]]
    z = memo.get((y << 20) | b)
    if z is None:
        z = combine(y, b)
    return _ROWS[z][2 * sets + 1]


def combined(i: int, j: int) -> int:
    """Id of the min-plus combination of rows ``i`` and ``j``, from the memo if known."""
    k = _COMBINED.get((i << 20) | j)
    return combine(i, j) if k is None else k


def combine(i: int, j: int) -> int:
    """Id of the min-plus combination of rows ``i`` and ``j`` (memoised).

    Entry (M, H) of the result is the least ``A[m][h] + B[M-m][H-h]``: the best way to
    share M sets and H pairs between the two parts.
    """
    a, b = _ROWS[i], _ROWS[j]
    a0, a1, b0, b1 = a[0::2], a[1::2], b[0::2], b[1::2]
    out = []
    for m_total in range(MAX_SETS + 1):  # min-plus by zipping a's prefix with b reversed
        n = m_total + 1
        out.append(min(map(add, a0[:n], b0[m_total::-1])))
        out.append(
            min(min(map(add, a0[:n], b1[m_total::-1])), min(map(add, a1[:n], b0[m_total::-1])))
        )
    row = tuple(out)
    k = _ROW_IDS.get(row)
    if k is None:
        k = _ROW_IDS[row] = len(_ROWS)
        _ROWS.append(row)
    _COMBINED[(i << 20) | j] = k
    return k


def memo_size() -> int:
    """Entries in the combination memo (bounded: ids are few), for diagnostics."""
    return len(_COMBINED) + len(_ROWS)
