"""Necessary tiles from the tables: the kinds whose draw lowers a hand's distance.

Fast shanten libraries keep, next to each group's distances, the tiles that would lower
them. ``protocol/data/necessary.bin`` (built by ``scripts/build_shape_tables.py``) does
that for every group key of :mod:`protocol.shapes`: for each of the 12 columns (m sets,
h pairs) a bit mask of the ranks whose addition lowers ``d[m][h]``, never a rank held four
times.

A whole hand's distance to n sets and a pair is the least sum over its four groups of
``d_g[m_g][h_g]`` with ``sum m_g = n`` and one ``h_g = 1``. A tile lowers it exactly when,
in some split reaching that least sum, it lowers its own group's share: one added tile
lowers a group's distance by at most one, so a split that was not optimal cannot become
better than one that was. So the improving tiles are the union, over each group, of its
masks at the columns that occur in optimal splits. Those columns depend only on the four
groups' distance rows (signatures), so they are memoised by signature; the masks are one
table read per group. No trial shanten call is made.

>>> from protocol.shapes import encode
>>> from protocol.tiles import parse_counts
>>> dist, kinds = necessary(encode(parse_counts("123m 456p 789s 11s 23s EE C")), 5)
>>> dist - 1, [str(t) for t in kinds]
(1, ['1s', '2s', '3s', '4s', 'E', 'C'])
"""

from __future__ import annotations

import zlib
from array import array
from collections.abc import Sequence
from importlib import resources

from protocol.shapes import GROUP, POWER, combined, group_rows, signature_tables
from protocol.tiles import KIND_COUNT, Tile

__all__ = ["discard_table", "kinds_of", "necessary", "share_of"]

_MAGIC = b"TMJNEED1"
_SUIT_KEYS = 5**9
_MEMO_LIMIT = 1 << 16  # entries per memo; a full memo is cleared (bounded memory)
_TILES: tuple[Tile, ...] = tuple(Tile(t) for t in range(KIND_COUNT))
_FIRST = (0, 9, 18, 27)
_OFFSET = (0, 0, 0, _SUIT_KEYS)
_SUIT_SIG, _HONOR_SIG = signature_tables()
_ROWS = group_rows()

# (sig0 | sig1 << 8 | sig2 << 16 | sig3 << 24 | sets << 32) -> (distance, cols0..cols3)
_SHARES: dict[int, tuple[int, int, int, int, int]] = {}
# (row id << 14 | cols << 2 | group) -> the group's improving kinds at those columns
_KINDS: dict[int, tuple[Tile, ...]] = {}


class _Masks:
    """The mask rows and per-key row ids of ``necessary.bin``, loaded on first use."""

    rows: array | None = None
    low: memoryview
    high: bytes


def _load() -> array:
    raw = resources.files("protocol").joinpath("data/necessary.bin").read_bytes()
    if not raw.startswith(_MAGIC):
        raise RuntimeError("protocol/data/necessary.bin has an unknown format; rebuild it")
    data = zlib.decompress(raw[len(_MAGIC) :])
    n = int.from_bytes(data[:4], "little")
    pos = 4
    rows = array("H")
    rows.frombytes(data[pos : pos + 24 * n])
    pos += 24 * n
    keys = _SUIT_KEYS + 5**7
    _Masks.low = memoryview(data[pos : pos + 2 * keys]).cast("H")
    _Masks.high = data[pos + 2 * keys : pos + 3 * keys]
    _Masks.rows = rows
    return rows


def _row_id(group: int, key: int) -> int:
    """Id of the mask row of a group key (honors follow the suits in the id planes)."""
    key += _OFFSET[group]
    return _Masks.low[key] | _Masks.high[key] << 16


def _shares(packed: int) -> tuple[int, int, int, int, int]:
    """Least distance of four signatures to ``sets`` sets and a pair, and for each group
    the set of its columns (bit ``2*m + h``) used by some split reaching it.

    Each group is set against the combination of the other three (memoised rows of
    :mod:`protocol.shapes`): column (m, h) of group g is used when its distance plus the
    rest's distance to (sets - m, 1 - h) is the least distance.
    """
    sig = [packed >> (8 * g) & 255 for g in range(4)]
    sets = packed >> 32
    front, back = combined(sig[0], sig[1]), combined(sig[2], sig[3])
    rests = (
        combined(sig[1], back),
        combined(sig[0], back),
        combined(front, sig[3]),
        combined(front, sig[2]),
    )
    best = _ROWS[combined(front, back)][2 * sets + 1]
    out = [best]
    for g in range(4):
        own, rest = _ROWS[sig[g]], _ROWS[rests[g]]
        cols = 0
        for m in range(sets + 1):
            for h in (0, 1):
                if own[2 * m + h] + rest[2 * (sets - m) + 1 - h] == best:
                    cols |= 1 << (2 * m + h)
        out.append(cols)
    if len(_SHARES) >= _MEMO_LIMIT:
        _SHARES.clear()
    share = _SHARES[packed] = (out[0], out[1], out[2], out[3], out[4])
    return share


def _kinds(code: int) -> tuple[Tile, ...]:
    """The improving kinds of ``code = row id << 14 | cols << 2 | group``: the union of
    the group's mask row at the columns ``cols`` (memoised in ``_KINDS``)."""
    rows = _Masks.rows if _Masks.rows is not None else _load()
    base = 12 * (code >> 14)
    cols = code >> 2 & 4095
    mask = 0
    for c in range(12):
        if cols >> c & 1:
            mask |= rows[base + c]
    first = _FIRST[code & 3]
    out = tuple(_TILES[first + r] for r in range(9) if mask >> r & 1)
    if len(_KINDS) >= _MEMO_LIMIT:
        _KINDS.clear()
    _KINDS[code] = out
    return out


def share_of(keys: Sequence[int], sets: int) -> tuple[int, int, int, int, int]:
    """``(distance, cols0, cols1, cols2, cols3)`` of a hand's group keys: its distance to
    ``sets`` sets and a pair, and each group's columns used by an optimal split."""
    k0, k1, k2, k3 = keys
    packed = (
        _SUIT_SIG[k0] | _SUIT_SIG[k1] << 8 | _SUIT_SIG[k2] << 16 | _HONOR_SIG[k3] << 24
    ) | sets << 32
    share = _SHARES.get(packed)
    return _shares(packed) if share is None else share


def kinds_of(keys: Sequence[int], share: tuple[int, int, int, int, int]) -> tuple[Tile, ...]:
    """The kinds lowering the distance of ``share`` (from :func:`share_of` of ``keys``)."""
    if _Masks.rows is None:
        _load()
    low, high, memo = _Masks.low, _Masks.high, _KINDS
    kinds: tuple[Tile, ...] = ()
    k0, k1, k2, k3 = keys
    cols = share[1]  # the four groups, unrolled; column 0 alone (0 sets, 0 pairs) is
    if cols != 1:  # at distance 0, where nothing lowers it
        code = (low[k0] | high[k0] << 16) << 14 | cols << 2
        got = memo.get(code)
        kinds = _kinds(code) if got is None else got
    cols = share[2]
    if cols != 1:
        code = (low[k1] | high[k1] << 16) << 14 | cols << 2 | 1
        got = memo.get(code)
        kinds += _kinds(code) if got is None else got
    cols = share[3]
    if cols != 1:
        code = (low[k2] | high[k2] << 16) << 14 | cols << 2 | 2
        got = memo.get(code)
        kinds += _kinds(code) if got is None else got
    cols = share[4]
    if cols != 1:
        k3 += _SUIT_KEYS
        code = (low[k3] | high[k3] << 16) << 14 | cols << 2 | 3
        got = memo.get(code)
        kinds += _kinds(code) if got is None else got
    return kinds


def necessary(keys: Sequence[int], sets: int) -> tuple[int, tuple[Tile, ...]]:
    """Distance of a hand (group keys) to ``sets`` sets and a pair, and the kinds whose
    addition lowers it, in tile order. Kinds held four times are never among them."""
    share = share_of(keys, sets)
    return share[0], kinds_of(keys, share)


def discard_table(counts: Sequence[int], keys: Sequence[int]) -> list[tuple[int, int, tuple]]:
    """For each kind held (a discard), ``(kind, distance, improving kinds)`` of the hand
    left after discarding it; ``keys`` are the group keys of ``counts`` (3n+2 tiles)."""
    if _Masks.rows is None:
        _load()
    sets = sum(counts) // 3
    sig = (_SUIT_SIG[keys[0]], _SUIT_SIG[keys[1]], _SUIT_SIG[keys[2]], _HONOR_SIG[keys[3]])
    id0, id1, id2, id3 = (_row_id(g, keys[g]) << 14 | g for g in range(4))
    packed_all = sig[0] | sig[1] << 8 | sig[2] << 16 | sig[3] << 24 | sets << 32
    low, high, memo, shares = _Masks.low, _Masks.high, _KINDS, _SHARES
    tables = (_SUIT_SIG, _SUIT_SIG, _SUIT_SIG, _HONOR_SIG)
    out = []
    for d in range(KIND_COUNT):
        if not counts[d]:
            continue
        g = GROUP[d]
        key = keys[g] - POWER[d]
        shift = 8 * g
        packed = packed_all & ~(255 << shift) | tables[g][key] << shift
        share = shares.get(packed)
        if share is None:
            share = _shares(packed)
        k = key + _OFFSET[g]
        own = (low[k] | high[k] << 16) << 14 | g
        kinds: tuple[Tile, ...] = ()
        cols = share[1]  # the four groups, unrolled: this loop is the hot path
        if cols != 1:
            code = (own if g == 0 else id0) | cols << 2
            got = memo.get(code)
            kinds = _kinds(code) if got is None else got
        cols = share[2]
        if cols != 1:
            code = (own if g == 1 else id1) | cols << 2
            got = memo.get(code)
            kinds += _kinds(code) if got is None else got
        cols = share[3]
        if cols != 1:
            code = (own if g == 2 else id2) | cols << 2
            got = memo.get(code)
            kinds += _kinds(code) if got is None else got
        cols = share[4]
        if cols != 1:
            code = (own if g == 3 else id3) | cols << 2
            got = memo.get(code)
            kinds += _kinds(code) if got is None else got
        out.append((d, share[0], kinds))
    return out
