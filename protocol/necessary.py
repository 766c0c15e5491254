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
# group -> rank mask (9 bits) -> the kinds it holds, in tile order
_MASK_KINDS: tuple[tuple[tuple[Tile, ...], ...], ...] = tuple(
    tuple(
        tuple(_TILES[first + r] for r in range(34 - first if first == 27 else 9) if m >> r & 1)
        for m in range(512)
    )
    for first in _FIRST
)
_OFFSET = (0, 0, 0, _SUIT_KEYS)
_SUIT_SIG, _HONOR_SIG = signature_tables()
_ROWS = group_rows()

# (sig0 | sig1 << 8 | sig2 << 16 | sig3 << 24 | sets << 32) -> (distance, cols0..cols3)
_SHARES: dict[int, tuple[int, int, int, int, int]] = {}
# (own signature << 32 | rest row id << 3 | sets) -> (distance, own columns)
_PAIRS: dict[int, tuple[int, int]] = {}
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
    :mod:`protocol.shapes`), and that pair is looked up in ``_PAIRS`` (see
    :func:`_pair`): real games bring many new four-group combinations but few new pairs.
    """
    s0, s1, s2, s3 = packed & 255, packed >> 8 & 255, packed >> 16 & 255, packed >> 24 & 255
    sets = packed >> 32
    front, back = combined(s0, s1), combined(s2, s3)
    pairs = _PAIRS
    code = s0 << 32 | combined(s1, back) << 3 | sets
    p0 = pairs.get(code) or _pair(code)
    code = s1 << 32 | combined(s0, back) << 3 | sets
    p1 = pairs.get(code) or _pair(code)
    code = s2 << 32 | combined(front, s3) << 3 | sets
    p2 = pairs.get(code) or _pair(code)
    code = s3 << 32 | combined(front, s2) << 3 | sets
    p3 = pairs.get(code) or _pair(code)
    if len(_SHARES) >= _MEMO_LIMIT:
        _SHARES.clear()
    share = _SHARES[packed] = (p0[0], p0[1], p1[1], p2[1], p3[1])
    return share


def _share_after_discard(
    packed: int, g: int, sig: Sequence[int], rests: dict[int, tuple[int, ...]]
) -> tuple[int, int, int, int, int]:
    """:func:`_shares` of ``packed``, a hand whose groups other than ``g`` have the
    signatures ``sig``: the combinations without group ``g`` are made once per hand
    (``rests[g]``), so a miss costs three combinations and four pair lookups."""
    rest = rests.get(g)
    if rest is None:
        a, b, c = (j for j in range(4) if j != g)
        ab, ac, bc = combined(sig[a], sig[b]), combined(sig[a], sig[c]), combined(sig[b], sig[c])
        rest = rests[g] = (combined(ab, sig[c]), a, bc, b, ac, c, ab)
    sets = packed >> 32
    own = packed >> (8 * g) & 255
    pairs = _PAIRS
    cols = [0, 0, 0, 0]
    code = own << 32 | rest[0] << 3 | sets
    pair = pairs.get(code) or _pair(code)
    cols[g] = pair[1]
    for i in (1, 3, 5):
        j = rest[i]
        code = sig[j] << 32 | combined(own, rest[i + 1]) << 3 | sets
        cols[j] = (pairs.get(code) or _pair(code))[1]
    if len(_SHARES) >= _MEMO_LIMIT:
        _SHARES.clear()
    share = _SHARES[packed] = (pair[0], cols[0], cols[1], cols[2], cols[3])
    return share


def _pair(code: int) -> tuple[int, int]:
    """For ``code = own signature << 32 | rest row id << 3 | sets``: the least distance
    of own and rest together to ``sets`` sets and a pair, and the columns (m, h) of own
    that reach it (own at (m, h) plus rest at (sets - m, 1 - h))."""
    own, rest, sets = _ROWS[code >> 32], _ROWS[code >> 3 & 0x1FFFFFFF], code & 7
    sums = [
        (own[2 * m + h] + rest[2 * (sets - m) + 1 - h], 2 * m + h)
        for m in range(sets + 1)
        for h in (0, 1)
    ]
    best = min(v for v, _ in sums)
    cols = 0
    for v, c in sums:
        if v == best:
            cols |= 1 << c
    if len(_PAIRS) >= _MEMO_LIMIT:
        _PAIRS.clear()
    out = _PAIRS[code] = (best, cols)
    return out


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
    out = _MASK_KINDS[code & 3][mask]
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
    rests: dict[int, tuple[int, ...]] = {}
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
            share = _share_after_discard(packed, g, sig, rests)
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
