"""The fast encoder the environments use: observations kept up to date in place.

:func:`sdk.learn.encoding.encode` builds an observation from scratch. An environment
asks for one at every step, and between two observations of a seat little changes: a
draw, a discard or two, now and then a claim. :class:`Encoder` keeps, per observing
seat, the last observation in a preallocated ``float32`` array and what it was built
from (the river lengths, claimed marks, melds and tile counts of each seat, the own
hand by suit key, the drawn tile, the flags, the pending decision); the next
observation compares each part with what was written and writes only what moved (single
floats through a memoryview; a suit's counts as one slice of bytes built once per suit
key), then hands out a copy. Within a hand the public state only grows (rivers, claimed
marks, melds), so new discards are appended; a new hand (or another game: its rivers
are other lists) starts the seat afresh.

The result is exactly :func:`~sdk.learn.encoding.encode` (encoding v1 is a documented
contract): the tests compare the two at every step of many seeded hands, for every
seat, observed at every step or only now and then, the oracle part included.

>>> from protocol.hand_state import HandState
>>> from sdk.learn.encoding import encode, encode_oracle, live_view
>>> from sdk.view import GameView
>>> hand = HandState.new(seed=7, dealer=0)
>>> enc = Encoder()
>>> view = GameView(live_view(hand, 0))
>>> bool((enc.encode(view) == encode(view)).all())
True
>>> bool((enc.encode_oracle(hand, 1) == encode_oracle(hand, 1)).all())
True
"""

from __future__ import annotations

import struct
from collections.abc import Iterable

import numpy as np

from protocol.hand_state import HandState
from protocol.melds import Meld
from protocol.shapes import GROUP, POWER
from protocol.tiles import KIND_COUNT, Tile
from protocol.view import CLAIMS, TURN_CLAIMED, TURN_DRAWN, OwnState, PublicState
from protocol.wall import RESERVED
from sdk.learn.encoding import (
    MAX_MELDS,
    OBS_SIZE,
    ORACLE_LAYOUT,
    ORACLE_SIZE,
    RIVER_SLOTS,
    meld_features,
    section,
)
from sdk.view import GameView

__all__ = ["Encoder"]

_K = KIND_COUNT
_HIDDEN_SIZE = ORACLE_SIZE - OBS_SIZE


def _at(name: str) -> int:
    return section(name).start


_HAND, _DRAWN, _OWN_KONGS = _at("hand"), _at("drawn"), _at("own_concealed_kongs")
_PASSED_PUNG, _OWN_FLAGS = _at("passed_pung"), _at("own_flags")
_SEAT_WIND, _ROUND_WIND, _TABLE = _at("seat_wind"), _at("round_wind"), _at("table")
_DECISION, _CLAIM_TILE, _CLAIM_FROM, _BANNED = (
    _at("decision"),
    _at("claim_tile"),
    _at("claim_from"),
    _at("banned"),
)
_MELD_FIELDS = (section("melds_0").stop - _at("melds_0")) // MAX_MELDS
_EAST = int(Tile.E)
_HIDDEN_HAND = tuple(_at(f"hidden_hand_{r}") - OBS_SIZE for r in (1, 2, 3))
_HIDDEN_KONGS = tuple(_at(f"hidden_kongs_{r}") - OBS_SIZE for r in (1, 2, 3))
_WALL = _at("wall") - OBS_SIZE
assert ORACLE_LAYOUT[-1] == ("wall", _K) and _WALL + _K == _HIDDEN_SIZE


def _offsets(me: int, seat: int, name: str) -> int:
    """Where ``seat``'s section ``name`` starts in ``me``'s observation."""
    return _at(f"{name}_{(seat - me) % 4}")


_RIVERS = tuple(
    tuple((s, _offsets(me, s, "river"), _offsets(me, s, "river_counts")) for s in range(4))
    for me in range(4)
)
"""``_RIVERS[me]``: each seat with where its ``river`` and ``river_counts`` start."""
_SCALARS = tuple(tuple(_offsets(me, s, "seat") for s in range(4)) for me in range(4))
"""``_SCALARS[me][s]``: where seat ``s``'s ``seat_r`` section starts."""
_MELDS = tuple(
    tuple(
        (
            _offsets(me, s, "melds"),
            _offsets(me, s, "meld_counts"),
            _offsets(me, s, "river_claimed"),
        )
        for s in range(4)
    )
    for me in range(4)
)
"""``_MELDS[me][s]``: where seat ``s``'s ``melds``, ``meld_counts`` and
``river_claimed`` start."""

_OWN_TURN: tuple[int, ...] = (_DECISION,)
_AFTER_CLAIM: tuple[tuple[int, ...], ...] = (
    *((_DECISION + 1, _BANNED + b) for b in range(_K)),
    (_DECISION + 1,),
)
"""Positions set after a chow or pung, by banned kind (``-1``: none)."""
_CLAIM: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple((_DECISION + 2, _CLAIM_TILE + t, _CLAIM_FROM + r) for r in range(4)) for t in range(_K)
)
"""Positions set when a discard of ``t`` from relative seat ``r`` is open to claims."""


def _digit_bytes(powers: tuple[int, ...]) -> tuple[bytes, ...]:
    """For every value of a key part over kinds with these ``powers`` (base-5 digits,
    :data:`protocol.shapes.POWER`), the float32 bytes of their counts."""
    base = powers[0]
    return tuple(
        struct.pack(f"={len(powers)}f", *(((v * base) // p) % 5 for p in powers))
        for v in range(5 ** len(powers))
    )


def _group(
    kinds: tuple[int, ...],
) -> tuple[int, int, int, int, tuple[bytes, ...], tuple[bytes, ...]]:
    low, high = kinds[:5], kinds[5:]
    split = POWER[high[0]] if high else 5 ** len(low)
    return (
        4 * kinds[0],
        4 * (kinds[0] + len(low)),
        4 * (kinds[-1] + 1),
        split,
        _digit_bytes(tuple(POWER[t] for t in low)),
        _digit_bytes(tuple(POWER[t] for t in high)) if high else (b"",),
    )


_GROUPS = tuple(_group(tuple(t for t in range(_K) if GROUP[t] == g)) for g in range(4))
"""For each key of :mod:`protocol.shapes` (a suit, or the honors), split in a low part
(its first five kinds) and a high part (the rest): the byte offsets of the three
boundaries, the key value where the high part starts, and the float32 bytes of the
counts of each value of either part (3,125 and 625 rows: tables built once, no cache)."""


def _write_counts(out: memoryview, at: int, keys: list[int], known: list[int]) -> None:
    """Bring the 34 counts at float offset ``at`` of the byte view ``out`` from the keys
    ``known`` to ``keys``, updating ``known`` in place: :class:`~protocol.view.OwnState`
    keeps ``keys`` in step with its counts (a key names a suit's counts, and a suit
    whose key did not move did not change)."""
    at *= 4
    for g in range(4):
        key = keys[g]
        if key != known[g]:
            a, m, b, split, low, high = _GROUPS[g]
            out[at + a : at + m] = low[key % split]
            out[at + m : at + b] = high[key // split]
            known[g] = key


def _kinds(mem: memoryview, at: int, before: Iterable[int], now: Iterable[int]) -> None:
    """A 34-wide 0/1 row at ``at``: from the kinds ``before`` to the kinds ``now``."""
    for k in before:
        mem[at + k] = 0.0
    for k in now:
        mem[at + k] = 1.0


class _Seat:
    """One observing seat: its last observation and what it was built from."""

    __slots__ = (
        "bmem",
        "claimed",
        "decision",
        "drawn",
        "first",
        "flags",
        "hidden",
        "hmem",
        "keys",
        "kongs",
        "lens",
        "melds",
        "mem",
        "oracle",
        "passed",
        "rivers",
        "scores",
        "seat_kongs",
        "wall",
        "x",
    )

    def __init__(self) -> None:
        self.x = np.zeros(OBS_SIZE, np.float32)
        self.mem = memoryview(self.x)  # item writes without numpy's per-call cost
        self.bmem = self.mem.cast("B")
        self.hidden = np.zeros(_HIDDEN_SIZE, np.float32)
        self.hmem = memoryview(self.hidden)
        self.rivers: list[list[int]] | None = None
        """The public ``rivers`` list this observation follows (a new hand has another)."""
        self.oracle: _Oracle | None = None

    def start(self, pub: PublicState, me: int) -> None:
        """Forget everything and write what stays fixed for the hand."""
        self.x.fill(0.0)
        self.rivers = pub.rivers
        self.keys = [0, 0, 0, 0]  # the keys of no tiles
        self.drawn: int | None = None
        self.kongs: list[int] = []
        self.passed: frozenset[int] = frozenset()
        self.flags = (False, False)
        self.lens = [0, 0, 0, 0]
        self.claimed = [0, 0, 0, 0]
        self.melds: list[list[Meld]] = [[], [], [], []]
        self.seat_kongs = [0, 0, 0, 0]
        self.scores: list[int] | None = None
        self.wall: int | None = None
        self.first: bool | None = None
        self.decision: tuple[int, ...] = ()
        self.oracle = None
        mem, dealer = self.mem, pub.dealer
        mem[_SEAT_WIND + (me - dealer) % 4] = 1.0
        mem[_ROUND_WIND + pub.round_wind - _EAST] = 1.0
        mem[_TABLE + 2] = pub.hand
        mem[_SCALARS[me][dealer] + 3] = 1.0

    def update(self, pub: PublicState, own: OwnState, me: int) -> None:
        """Bring the observation up to date with ``pub`` and ``own``: compare each part
        with what was written, write what moved."""
        if pub.rivers is not self.rivers:
            self.start(pub, me)
        mem = self.mem
        if own.keys != self.keys:
            _write_counts(self.bmem, _HAND, own.keys, self.keys)
        drawn = own.drawn
        if drawn != self.drawn:
            if self.drawn is not None:
                mem[_DRAWN + self.drawn] = 0.0
            if drawn is not None:
                mem[_DRAWN + drawn] = 1.0
            self.drawn = drawn
        if own.concealed_kongs != self.kongs:
            _kinds(mem, _OWN_KONGS, self.kongs, own.concealed_kongs)
            self.kongs = list(own.concealed_kongs)
        if own.passed_pung != self.passed:
            _kinds(mem, _PASSED_PUNG, self.passed, own.passed_pung)
            self.passed = frozenset(own.passed_pung)
        if own.passed_win is not self.flags[0] or own.kong_block is not self.flags[1]:
            self.flags = (own.passed_win, own.kong_block)
            mem[_OWN_FLAGS], mem[_OWN_FLAGS + 1] = self.flags
        rivers, lens = pub.rivers, self.lens
        for s, ids, counts in _RIVERS[me]:
            river = rivers[s]
            n = len(river)
            k = lens[s]
            if n != k:  # new discards: rivers only grow within a hand
                if n == k + 1:
                    t = river[k]
                    mem[ids + k] = t + 1
                    mem[counts + t] += 1.0
                else:
                    self._discards(river, k, ids, counts)
                lens[s] = n
        if pub.melds != self.melds:  # a claim (which also marks the discard) or a kong
            self._claims(pub, me)
        a, b, c, d = _SCALARS[me]
        mem[a], mem[b], mem[c], mem[d] = pub.concealed
        if pub.concealed_kongs != self.seat_kongs:
            self.seat_kongs = list(pub.concealed_kongs)
            mem[a + 1], mem[b + 1], mem[c + 1], mem[d + 1] = self.seat_kongs
        if pub.scores != self.scores:  # a new hand, or the scores after it ended
            self.scores = list(pub.scores)
            for at, score in zip(_SCALARS[me], self.scores, strict=True):
                mem[at + 2] = score / 1000.0
        if pub.wall_left != self.wall:
            self.wall = pub.wall_left
            mem[_TABLE] = pub.wall_left - RESERVED
        if pub.first_round is not self.first:
            mem[_TABLE + 1] = self.first = pub.first_round
        phase, turn = pub.phase, pub.turn
        if phase == CLAIMS and turn != me:
            now = _CLAIM[pub.pending_tile][(turn - me) & 3]  # type: ignore[index]
        elif turn != me:
            now = ()
        elif phase == TURN_DRAWN:
            now = _OWN_TURN
        elif phase == TURN_CLAIMED:
            now = _AFTER_CLAIM[-1 if pub.banned is None else pub.banned]
        else:
            now = ()
        if now is not self.decision:
            for at in self.decision:
                mem[at] = 0.0
            for at in now:
                mem[at] = 1.0
            self.decision = now

    def _discards(self, river: list[int], k: int, ids: int, counts: int) -> None:
        """Append the discards from position ``k`` on (several since the last look)."""
        if len(river) > RIVER_SLOTS:  # cannot happen under the rules (see RIVER_SLOTS)
            raise ValueError(f"{len(river)} discards, more than {RIVER_SLOTS}")
        mem = self.mem
        for i in range(k, len(river)):
            t = river[i]
            mem[ids + i] = t + 1
            mem[counts + t] += 1.0

    def _claims(self, pub: PublicState, me: int) -> None:
        """Write the melds that are new or changed (a pung upgraded to an added kong)
        and the new claimed marks: a claim adds both at once (``protocol.view``)."""
        mem = self.mem
        for s in range(4):
            melds, known = pub.melds[s], self.melds[s]
            if melds == known:
                continue
            base, counts, _ = _MELDS[me][s]
            if len(melds) > MAX_MELDS:  # cannot happen: five sets and a pair (MAX_MELDS)
                raise ValueError(f"seat {s} has {len(melds)} melds, more than {MAX_MELDS}")
            if len(known) > len(melds):  # melds never go away in a hand: write them anew
                self.x[counts : counts + _K] = 0.0
                self.x[base : base + MAX_MELDS * _MELD_FIELDS] = 0.0
                known = []
            for i, meld in enumerate(melds):
                old = known[i] if i < len(known) else None
                if old is meld or old == meld:
                    continue
                if old is not None:
                    for t in _features(old, s)[0]:
                        mem[counts + t] -= 1.0
                tiles, fields = _features(meld, s)
                for t in tiles:
                    mem[counts + t] += 1.0
                at = base + i * _MELD_FIELDS
                for j, value in enumerate(fields):
                    mem[at + j] = value
            self.melds[s] = list(melds)  # melds are immutable values
        for s in range(4):
            marks, done = pub.claimed[s], self.claimed[s]
            if len(marks) != done:
                at = _MELDS[me][s][2]
                for i in marks[done:]:
                    mem[at + i] = 1.0
                self.claimed[s] = len(marks)


_FEATURES: dict[tuple[int, int], tuple[Meld, tuple[int, ...], tuple[float, ...]]] = {}
"""``(id(meld), seat)`` -> the meld, its tiles and fields (the referee shares one object
per meld value, so this stays small; bounded all the same)."""


def _features(meld: Meld, seat: int) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """:func:`~sdk.learn.encoding.meld_features`, remembered."""
    found = _FEATURES.get((id(meld), seat))
    if found is not None and found[0] is meld:
        return found[1], found[2]
    tiles, fields = meld_features(meld, seat)
    if len(_FEATURES) >= 1 << 14:
        _FEATURES.clear()
    _FEATURES[id(meld), seat] = (meld, tiles, fields)
    return tiles, fields


class _Oracle:
    """The hidden part of one seat's oracle observation, kept up to date in place: the
    other hands (by suit key), their concealed kongs, and the undrawn wall (only ever
    taken from, at the front by draws and at the back by kong replacements)."""

    __slots__ = ("back", "front", "keys", "kongs", "wall")

    def __init__(self, hand: HandState, hidden: np.ndarray, hmem: memoryview) -> None:
        hidden.fill(0.0)
        wall = self.wall = hand.wall
        self.front, self.back = wall.front, wall.back
        for t in wall.tiles[wall.front : wall.back]:
            hmem[_WALL + t] += 1.0
        self.keys = [[0, 0, 0, 0] for _ in range(3)]
        self.kongs: list[list[int]] = [[], [], []]

    def update(self, hand: HandState, seat: int, hmem: memoryview) -> None:
        owns, hbytes = hand.owns, hmem.cast("B")
        for i in range(3):
            other = owns[(seat + 1 + i) & 3]
            if other.keys != self.keys[i]:
                _write_counts(hbytes, _HIDDEN_HAND[i], other.keys, self.keys[i])
            if other.concealed_kongs != self.kongs[i]:
                _kinds(hmem, _HIDDEN_KONGS[i], self.kongs[i], other.concealed_kongs)
                self.kongs[i] = list(other.concealed_kongs)
        wall = self.wall
        tiles = wall.tiles
        for t in tiles[self.front : wall.front]:
            hmem[_WALL + t] -= 1.0
        for t in tiles[wall.back : self.back]:
            hmem[_WALL + t] -= 1.0
        self.front, self.back = wall.front, wall.back


class Encoder:
    """:func:`~sdk.learn.encoding.encode` and :func:`~sdk.learn.encoding.encode_oracle`,
    incremental (see the module docstring). Each call returns a new array (or fills
    ``out``), never one the encoder changes later. It follows each seat's state forward,
    as the referee and a client mirror keep it; :meth:`clear` forgets everything (needed
    only if a state could go back within a hand)."""

    __slots__ = ("_seats",)

    def __init__(self) -> None:
        self._seats = [_Seat(), _Seat(), _Seat(), _Seat()]

    def __reduce__(self) -> tuple[type[Encoder], tuple[()]]:
        """A copy (or a pickle) starts empty: what an encoder holds is only a cache."""
        return (Encoder, ())

    def clear(self) -> None:
        """Forget every seat's observation (the arrays are kept for the next one)."""
        for seat in self._seats:
            seat.rivers = None

    def encode(self, view: GameView, out: np.ndarray | None = None) -> np.ndarray:
        """The observation of ``view``'s seat (a new array, or ``out`` filled)."""
        sv = view.seat_view
        return self.encode_state(sv.public, sv.own, sv.seat, out)

    def encode_state(
        self, pub: PublicState, own: OwnState, me: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        """The observation of seat ``me`` from its public and own state."""
        seat = self._seats[me]
        seat.update(pub, own, me)
        if out is None:
            return seat.x.copy()
        out[:] = seat.x
        return out

    def encode_oracle(
        self, hand: HandState, seat: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        """``seat``'s oracle observation, as :func:`~sdk.learn.encoding.encode_oracle`."""
        state = self._seats[seat]
        state.update(hand.public, hand.owns[seat], seat)
        oracle = state.oracle
        if oracle is None or oracle.wall is not hand.wall:
            oracle = state.oracle = _Oracle(hand, state.hidden, state.hmem)
        oracle.update(hand, seat, state.hmem)
        if out is None:
            return np.concatenate((state.x, state.hidden))
        out[:OBS_SIZE] = state.x
        out[OBS_SIZE:] = state.hidden
        return out
