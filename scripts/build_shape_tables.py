"""Build ``protocol/data/shapes.bin`` and ``necessary.bin``: the tables behind hand analysis.

Run once after changing the table format (needs numpy, a dev-only dependency)::

    python scripts/build_shape_tables.py

For every count vector of one suit (9 ranks, 0..4 copies each, 5**9 vectors) and of the
honors (7 kinds, 5**7 vectors) it computes, for m = 0..5 sets and h = 0..1 pairs, the
*distance* ``d[m][h]``: the fewest tiles that must be added so that the group contains m
sets and h pairs, with no kind used more than four times (the exact definition of
shanten + 1 for one group; see ``protocol/shapes.py``). Identical 12-value rows share one
*signature* id (fewer than 256, so one byte per vector). It also records whether the vector is complete by itself (sets only, or
sets plus one pair). ``tests/test_shape_tables.py`` checks the shipped file against a
direct computation.

``necessary.bin`` holds, for every vector and each of the 12 (m, h), the *necessary
tiles*: the ranks whose addition lowers ``d[m][h]`` (never a rank held four times). The
12 masks of a vector form a *mask row*; the distinct rows are stored once and each vector
keeps a three-byte row id (a low 16-bit plane and a high 8-bit plane compress better).
``protocol/necessary.py`` reads it; ``tests/test_shape_tables.py`` checks it too.

Method: the groups containing a target pattern are the upward closure of the patterns
(a prefix OR along each axis), and d(c) = 0 there, else 1 + min over ranks i of
d(c + e_i); iterating that relaxation to a fixpoint over the whole grid gives d.
"""

from __future__ import annotations

import itertools
import sys
import zlib
from pathlib import Path

import numpy as np

MAX_SETS = 5
ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "protocol" / "data" / "shapes.bin"
NEED_OUT = ROOT / "protocol" / "data" / "necessary.bin"
MAGIC = b"TMJSHAPE2"
NEED_MAGIC = b"TMJNEED1"


def set_patterns(ranks: int, chows: bool) -> list[tuple[int, ...]]:
    """Every set of one group as a count vector: pungs, and chows for suits."""
    out = []
    for r in range(ranks):
        v = [0] * ranks
        v[r] = 3
        out.append(tuple(v))
    if chows:
        for r in range(ranks - 2):
            v = [0] * ranks
            v[r] = v[r + 1] = v[r + 2] = 1
            out.append(tuple(v))
    return out


def targets(ranks: int, chows: bool, m: int, h: int) -> np.ndarray:
    """All group vectors made of m sets and h pairs with at most four of a kind."""
    sets = set_patterns(ranks, chows)
    pairs = [None] if h == 0 else list(range(ranks))
    found = set()
    for combo in itertools.combinations_with_replacement(range(len(sets)), m):
        base = [0] * ranks
        for s in combo:
            for r, n in enumerate(sets[s]):
                base[r] += n
        for p in pairs:
            v = list(base)
            if p is not None:
                v[p] += 2
            if max(v, default=0) <= 4:
                found.add(tuple(v))
    return np.array(sorted(found), dtype=np.int64).reshape(-1, ranks)


def distances(ranks: int, chows: bool, m: int, h: int) -> np.ndarray:
    """d[m][h] for every vector of the group, as a grid of shape (5,) * ranks."""
    shape = (5,) * ranks
    z = np.zeros(shape, dtype=bool)
    t = targets(ranks, chows, m, h)
    z[tuple(t.T)] = True
    for axis in range(ranks):
        z = np.logical_or.accumulate(z, axis=axis)
    inf = np.uint8(255)
    d = np.where(z, np.uint8(0), inf).astype(np.uint8)
    while True:
        best = np.full(shape, inf, dtype=np.uint8)
        for axis in range(ranks):
            shifted = np.full(shape, inf, dtype=np.uint8)
            src = [slice(None)] * ranks
            dst = [slice(None)] * ranks
            src[axis] = slice(1, None)
            dst[axis] = slice(0, 4)
            shifted[tuple(dst)] = d[tuple(src)]
            np.minimum(best, shifted, out=best)
        step = np.where(best == inf, inf, best + np.uint8(1)).astype(np.uint8)
        new = np.where(z, np.uint8(0), np.minimum(d, step))
        if np.array_equal(new, d):
            return d
        d = new


def group_rows(ranks: int, chows: bool) -> tuple[np.ndarray, np.ndarray]:
    """(rows, win) indexed by key = sum(c[r] * 5**r): 12 distances per key, win code."""
    grids = [distances(ranks, chows, m, h) for m in range(MAX_SETS + 1) for h in (0, 1)]
    idx = np.indices((5,) * ranks).reshape(ranks, -1)  # idx[r] = count of rank r
    keys = sum(idx[r] * 5**r for r in range(ranks))
    rows = np.empty((5**ranks, 12), dtype=np.uint8)
    for j, g in enumerate(grids):
        rows[keys, j] = g.reshape(-1)
    n = np.empty(5**ranks, dtype=np.int64)
    n[keys] = idx.sum(axis=0)
    win = np.full(5**ranks, 9, dtype=np.uint8)
    m = n // 3
    ok = m <= MAX_SETS
    col0 = np.where(ok, 2 * np.minimum(m, MAX_SETS), 0)
    sets_only = ok & (n % 3 == 0) & (rows[np.arange(5**ranks), col0] == 0)
    with_pair = ok & (n % 3 == 2) & (rows[np.arange(5**ranks), col0 + 1] == 0)
    win[sets_only] = 0
    win[with_pair] = 1
    return rows, win


def necessary_masks(rows: np.ndarray, ranks: int) -> np.ndarray:
    """For each key and each of the 12 columns, the ranks whose addition lowers the row.

    Bit r of ``masks[key, j]`` is set when rank r is held fewer than four times and
    ``rows[key + 5**r, j] < rows[key, j]``.
    """
    n = 5**ranks
    key = np.arange(n)
    masks = np.zeros((n, 12), dtype=np.uint16)
    for r in range(ranks):
        room = (key // 5**r) % 5 < 4
        above = np.where(room, key + 5**r, key)
        lower = room[:, None] & (rows[above] < rows)
        masks |= lower.astype(np.uint16) << r
    return masks


def build_necessary(suit_rows: np.ndarray, honor_rows: np.ndarray) -> bytes:
    """The ``necessary.bin`` payload: distinct mask rows, then per-key row ids."""
    masks = np.vstack([necessary_masks(suit_rows, 9), necessary_masks(honor_rows, 7)])
    uniq, inverse = np.unique(masks, axis=0, return_inverse=True)
    if len(uniq) >= 1 << 24:
        raise SystemExit(f"{len(uniq)} mask rows do not fit the three-byte format")
    ids = inverse.reshape(-1).astype(np.uint32)
    payload = b"".join(
        [
            np.array([len(uniq)], dtype="<u4").tobytes(),
            uniq.astype("<u2").tobytes(),
            (ids & 0xFFFF).astype("<u2").tobytes(),
            (ids >> 16).astype(np.uint8).tobytes(),
        ]
    )
    return NEED_MAGIC + zlib.compress(payload, 9)


def build() -> tuple[bytes, bytes]:
    """The contents of ``shapes.bin`` and ``necessary.bin``."""
    suit_rows, suit_win = group_rows(9, chows=True)
    honor_rows, honor_win = group_rows(7, chows=False)
    sigs, inverse = np.unique(np.vstack([suit_rows, honor_rows]), axis=0, return_inverse=True)
    if len(sigs) > 255:
        raise SystemExit(f"{len(sigs)} signatures do not fit the one-byte format")
    inverse = inverse.reshape(-1).astype(np.uint8)
    suit_sig, honor_sig = inverse[: 5**9], inverse[5**9 :]
    payload = b"".join(
        [
            np.array([len(sigs)], dtype="<u4").tobytes(),
            sigs.astype(np.uint8).tobytes(),
            suit_sig.tobytes(),
            suit_win.tobytes(),
            honor_sig.tobytes(),
            honor_win.tobytes(),
        ]
    )
    return MAGIC + zlib.compress(payload, 9), build_necessary(suit_rows, honor_rows)


def main() -> int:
    for path, data in zip((OUT, NEED_OUT), build(), strict=True):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        print(f"wrote {path.relative_to(ROOT)}: {len(data):,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
