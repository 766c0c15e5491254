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
from collections.abc import Container, Sequence
from importlib import resources
from itertools import islice

from protocol.shapes import POWER, combined, group_rows, signature_tables
from protocol.tiles import TILES, Tile

__all__ = ["discard_accepts", "discard_table", "kinds_of", "necessary", "share_of"]

_MAGIC = b"TMJNEED1"
_SUIT_KEYS = 5**9
_MEMO_LIMIT = 1 << 16  # entries per memo; a full memo drops its older half (bounded)
_FIRST = (0, 9, 18, 27)
# group -> rank mask (9 bits) -> the kinds it holds, in tile order
_MASK_KINDS: tuple[tuple[tuple[Tile, ...], ...], ...] = tuple(
    tuple(
        tuple(TILES[first + r] for r in range(34 - first if first == 27 else 9) if m >> r & 1)
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
# the same codes -> the group's improving ranks as a 9-bit mask
_MASKS: dict[int, int] = {}
# rank mask -> its ranks (0..8)
_RANKS: tuple[tuple[int, ...], ...] = tuple(
    tuple(r for r in range(9) if m >> r & 1) for m in range(512)
)


def _trim(memo: dict) -> None:
    """Drop the older half of a full memo (dicts keep insertion order): a long run keeps
    the entries it still meets instead of starting again from nothing."""
    for key in list(islice(memo, len(memo) // 2)):
        del memo[key]


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
        _trim(_SHARES)
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
        rest = _rest(g, sig, rests)
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
        _trim(_SHARES)
    share = _SHARES[packed] = (pair[0], cols[0], cols[1], cols[2], cols[3])
    return share


def _rest(g: int, sig: Sequence[int], rests: dict[int, tuple[int, ...]]) -> tuple[int, ...]:
    """``rests[g]``: the combination of the groups other than ``g``, then for each of
    those groups ``j`` the combination of the two others (``j``, that row id)."""
    a, b, c = (j for j in range(4) if j != g)
    ab, ac, bc = combined(sig[a], sig[b]), combined(sig[a], sig[c]), combined(sig[b], sig[c])
    rest = rests[g] = (combined(ab, sig[c]), a, bc, b, ac, c, ab)
    return rest


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
        _trim(_PAIRS)
    out = _PAIRS[code] = (best, cols)
    return out


def _mask(code: int) -> int:
    """The improving ranks of ``code = row id << 14 | cols << 2 | group`` as a mask: the
    union of the group's mask row at the columns ``cols`` (memoised in ``_MASKS``)."""
    rows = _Masks.rows if _Masks.rows is not None else _load()
    base = 12 * (code >> 14)
    cols = code >> 2 & 4095
    mask = 0
    for c in range(12):
        if cols >> c & 1:
            mask |= rows[base + c]
    if len(_MASKS) >= _MEMO_LIMIT:
        _trim(_MASKS)
    _MASKS[code] = mask
    return mask


def _kinds(code: int) -> tuple[Tile, ...]:
    """The improving kinds of ``code`` (see :func:`_mask`), memoised in ``_KINDS``."""
    mask = _MASKS.get(code)
    out = _MASK_KINDS[code & 3][_mask(code) if mask is None else mask]
    if len(_KINDS) >= _MEMO_LIMIT:
        _trim(_KINDS)
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


_SIG_TABLES = (_SUIT_SIG, _SUIT_SIG, _SUIT_SIG, _HONOR_SIG)


def discard_table(
    counts: Sequence[int], keys: Sequence[int], unseen: Sequence[int]
) -> list[tuple[int, int, int, tuple[Tile, ...], tuple[int, ...]]]:
    """For each kind held (a discard): ``(distance, -total, kind, kinds, copies)`` of the
    hand left after discarding it: its distance, the kinds that would lower it, their
    ``unseen`` copies and ``total``, the sum of those (so that rows sort best first).
    ``keys`` are the group keys of ``counts`` (3n+2 tiles).

    A discard changes one group's key. Discards that leave that group with the same
    signature share everything but the group's own kinds, so those parts (the other
    groups' kinds) are made once per (group, signature), and the kinds of a mask-row code
    once per call; per discard, one code is read.
    """
    if _Masks.rows is None:
        _load()
    k0, k1, k2, k3 = keys
    sig = (_SUIT_SIG[k0], _SUIT_SIG[k1], _SUIT_SIG[k2], _HONOR_SIG[k3])
    packed = sig[0] | sig[1] << 8 | sig[2] << 16 | sig[3] << 24 | (sum(counts) // 3) << 32
    codes = [-1, -1, -1, -1]
    get = unseen.__getitem__
    memo, kmemo, shares = _GROUP_DISCARDS, _KINDS, _SHARES
    known: dict[int, tuple] = {}  # code -> (kinds, copies, total), for this call
    spare: dict[int, tuple[int, ...]] = {}
    out = []
    for g in range(4):
        key = keys[g]
        if not key:
            continue
        shift = 8 * g
        base = packed & ~(255 << shift)
        parts: dict[int, tuple] = {}
        for d, s, code in memo.get(key << 2 | g) or _group_discards(g, key):
            part = parts.get(s)
            if part is None:  # the other groups' kinds, shared by this (g, s)
                others = base | s << shift
                share = shares.get(others) or _share_after_discard(others, g, sig, spare)
                bk: tuple = ()
                bc: tuple = ()
                ak: tuple = ()
                ac: tuple = ()
                total = 0
                for j in _OTHERS[g]:
                    cols = share[1 + j]
                    if cols != 1:
                        oc = codes[j]
                        if oc < 0:
                            oc = codes[j] = _row_id(j, keys[j]) << 14 | j
                        oc |= cols << 2
                        got = known.get(oc)
                        if got is None:
                            kinds = kmemo.get(oc)
                            if kinds is None:
                                kinds = _kinds(oc)
                            copies = tuple(map(get, kinds))
                            got = known[oc] = (kinds, copies, sum(copies))
                        if j < g:
                            bk += got[0]
                            bc += got[1]
                        else:
                            ak += got[0]
                            ac += got[1]
                        total += got[2]
                part = parts[s] = (share[0], share[1 + g] << 2, bk, bc, ak, ac, total)
            code |= part[1]
            own = known.get(code)
            if own is None:
                kinds = kmemo.get(code)
                if kinds is None:
                    kinds = _kinds(code)
                copies = tuple(map(get, kinds))
                own = known[code] = (kinds, copies, sum(copies))
            out.append(
                (
                    part[0],
                    -part[6] - own[2],
                    d,
                    part[2] + own[0] + part[4],
                    part[3] + own[1] + part[5],
                )
            )
    return out


# group key << 2 | group -> for each rank held, the discard:
# (kind, signature left, mask-row code left)
_GROUP_DISCARDS: dict[int, tuple[tuple[int, int, int], ...]] = {}


def _group_discards(g: int, key: int) -> tuple[tuple[int, int, int], ...]:
    """``_GROUP_DISCARDS`` of group ``g`` holding ``key`` (memoised)."""
    table, first = _SIG_TABLES[g], _FIRST[g]
    out = []
    for r in range(7 if g == 3 else 9):
        if key // POWER[r] % 5:
            left = key - POWER[r]
            out.append((first + r, table[left], _row_id(g, left) << 14 | g))
    if len(_GROUP_DISCARDS) >= _MEMO_LIMIT:
        _trim(_GROUP_DISCARDS)
    entry = _GROUP_DISCARDS[key << 2 | g] = tuple(out)
    return entry


def _rest_rows(sig: Sequence[int]) -> tuple[int, int, int, int]:
    """For each group, the row id of the combination of the three others."""
    s0, s1, s2, s3 = sig
    front, back = combined(s0, s1), combined(s2, s3)
    return combined(s1, back), combined(s0, back), combined(front, s3), combined(front, s2)


def discard_accepts(
    counts: Sequence[int],
    keys: Sequence[int],
    unseen: Sequence[int],
    allowed: Container[int] | None = None,
    best_only: bool = False,
) -> list[tuple[int, int, int]]:
    """For each discard: ``(kind, distance, total)``, the ``total`` of the ``unseen``
    copies of the kinds lowering the distance left: :func:`discard_table` without the
    kinds themselves, for callers that only rank discards (the bots). In tile order.

    The discards are the kinds held (those in ``allowed`` only, if given). With
    ``best_only`` only the discards leaving the least distance are returned: the
    distances come first (one pair lookup each), the acceptance only for those.

    >>> from protocol.shapes import encode
    >>> from protocol.tiles import parse_counts
    >>> counts = parse_counts("123m 456p 789s 11s 23s EE C F")
    >>> unseen = [4 - n for n in counts]
    >>> discard_accepts(counts, encode(counts), unseen, best_only=True)
    [(18, 2, 8), (31, 2, 17), (32, 2, 17)]
    """
    if _Masks.rows is None:
        _load()
    k0, k1, k2, k3 = keys
    sig = (_SUIT_SIG[k0], _SUIT_SIG[k1], _SUIT_SIG[k2], _HONOR_SIG[k3])
    sets = sum(counts) // 3
    rests = _rest_rows(sig)
    pairs, memo = _PAIRS, _GROUP_DISCARDS
    rows = []
    for g in range(4):
        key = keys[g]
        if not key:
            continue
        entries = memo.get(key << 2 | g) or _group_discards(g, key)
        rest = rests[g] << 3 | sets
        for entry in entries:
            if allowed is not None and entry[0] not in allowed:
                continue
            code = entry[1] << 32 | rest
            pair = pairs.get(code) or _pair(code)
            rows.append((pair[0], pair[1], g, entry))
    if best_only and rows:
        least = min(r[0] for r in rows)
        rows = [r for r in rows if r[0] == least]
    masks, ranks = _MASKS, _RANKS
    gets = (
        unseen[0:9].__getitem__,
        unseen[9:18].__getitem__,
        unseen[18:27].__getitem__,
        unseen[27:34].__getitem__,
    )
    packed = sig[0] | sig[1] << 8 | sig[2] << 16 | sig[3] << 24 | sets << 32
    codes = [_row_id(j, keys[j]) << 14 | j for j in range(4)]
    known: dict[int, int] = {}  # code -> unseen copies of its kinds, for this call
    parts: dict[int, int] = {}
    spare: dict[int, tuple[int, ...]] = {}
    out = []
    for dist, cols, g, (d, s, code) in rows:
        part = parts.get(g << 8 | s)
        if part is None:  # the other groups' lowering kinds, shared by this (g, s)
            shift = 8 * g
            others = packed & ~(255 << shift) | s << shift
            share = _SHARES.get(others) or _share_after_discard(others, g, sig, spare)
            part = 0
            for j in _OTHERS[g]:
                if share[1 + j] != 1:
                    other = codes[j] | share[1 + j] << 2
                    got = known.get(other)
                    if got is None:
                        got = known[other] = _copies(other, unseen)
                    part += got
            parts[g << 8 | s] = part
        code |= cols << 2
        mask = masks.get(code)
        if mask is None:
            mask = _mask(code)
        out.append((d, dist, part + sum(map(gets[g], ranks[mask]))))
    return out


_OTHERS = ((1, 2, 3), (0, 2, 3), (0, 1, 3), (0, 1, 2))


def _copies(code: int, unseen: Sequence[int]) -> int:
    """The ``unseen`` copies of the kinds of ``code`` (mask-row code of a group)."""
    mask = _MASKS.get(code)
    first = _FIRST[code & 3]
    return sum([unseen[first + r] for r in _RANKS[_mask(code) if mask is None else mask]])
