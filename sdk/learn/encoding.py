"""The observation encoding: what one seat knows, as one fixed-shape ``float32`` vector.

:func:`encode` reads nothing but a :class:`~sdk.view.GameView`, the read-only window a
bot gets, so the same function gives the same numbers in an environment, in a live bot
(over the network or in the arena) and on a game record replayed into a view. Hidden
information cannot leak into it: a view never holds another seat's concealed tiles or
the wall order. :func:`encode_oracle` appends what the referee hides (the other hands
and the live wall), for teacher-student training; it needs the referee's
:class:`~protocol.hand_state.HandState` and is never available to a bot in play.

Seats are *relative*: block ``r`` describes the seat ``r`` places after the observer
(0 the observer, 1 the next to play, 2 opposite, 3 the one before). Tile kinds are the
34 indices of :class:`~protocol.tiles.Tile` (1m..9m, 1p..9p, 1s..9s, E S W N C F P).
Where a section holds a *tile id* it is ``kind + 1`` (0 = nothing), for an embedding.

The layout, version :data:`ENCODING_VERSION`, one row per section (:data:`LAYOUT`;
``python -m sdk.learn.encoding`` prints it with offsets):

========================  ======  ==============================================================
section                   size    contents
========================  ======  ==============================================================
``hand``                  34      own concealed tiles, counts 0..4
``drawn``                 34      one-hot: the tile just drawn (the dealer's 17th at the start)
``own_concealed_kongs``   34      1 for each kind the observer has declared a concealed kong of
``passed_pung``           34      1 for kinds the observer may not pung until its next discard (R9)
``own_flags``             2       passed win (R9: no win until own discard); no self-draw after an exposed kong (R9)
``meld_counts_r``         34      seat r's shown meld tiles by kind (its concealed kongs excluded, r > 0)
``river_counts_r``        34      seat r's discards by kind, claimed ones included
``melds_r``               5 x 4   seat r's melds in order: kind (1 chow, 2 pung, 3 exposed kong, 4 added kong), lowest tile id, claimed tile id, seat claimed from relative to seat r (1 next, 2 opposite, 3 previous; 0 none)
``river_r``               64      seat r's discards in order, tile ids
``river_claimed_r``       64      1 where that discard was claimed by another seat
``seat_r``                4       seat r's concealed tile count, concealed kong count, score / 1000 (before this hand), is dealer
``seat_wind``             4       one-hot E S W N: the observer's seat wind
``round_wind``            4       one-hot E S W N
``table``                 3       drawable tiles left (R2), first go-round (R10), hand number in the match
``decision``              3       one-hot: own turn after a draw, own turn after a chow or pung, a claim on a discard
``claim_tile``            34      one-hot: the discard open to claims
``claim_from``            4       one-hot: relative seat of that discard
``banned``                34      one-hot: the kind that may not be discarded now (R6)
========================  ======  ==============================================================

The ``_r`` sections come as four blocks, ``r = 0..3``, each ``meld_counts, river_counts,
melds, river, river_claimed, seat``. The oracle adds, for ``r = 1..3``,
``hidden_hand_r`` (34 counts) and ``hidden_kongs_r`` (34, 1 per concealed kong kind),
then ``wall`` (34 counts of the undrawn wall, the reserved tiles included).

>>> from protocol.hand_state import HandState
>>> from sdk.view import GameView
>>> hand = HandState.new(seed=7, dealer=0)
>>> x = encode(GameView(hand.view(0)))
>>> x.shape, x.dtype, int(x[section("hand")].sum()), float(x[section("decision")][0])
((1104,), dtype('float32'), 17, 1.0)
>>> encode_oracle(hand, 0).shape
(1342,)
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence

import numpy as np

from protocol.cli import Parser, run_command
from protocol.hand_state import HandState
from protocol.melds import Meld, MeldKind
from protocol.tiles import KIND_COUNT, Tile
from protocol.view import CLAIMS, TURN_CLAIMED, TURN_DRAWN, PublicState, SeatView
from protocol.wall import RESERVED
from sdk.view import GameView

__all__ = [
    "ENCODING_VERSION",
    "LAYOUT",
    "MAX_MELDS",
    "OBS_SIZE",
    "ORACLE_LAYOUT",
    "ORACLE_SIZE",
    "RIVER_SLOTS",
    "SEAT_BLOCK_SIZE",
    "describe_layout",
    "encode",
    "encode_oracle",
    "live_view",
    "meld_features",
    "seat_block",
    "section",
]

ENCODING_VERSION = 1
"""Bumped whenever a feature moves or changes meaning."""

RIVER_SLOTS = 64
"""Discards kept per seat. A seat discards once per own turn: at most the 55 tiles the
wall can give after the deal (136 - 65 dealt - 16 reserved), plus its 5 claims and the
dealer's opening turn, so 61 fits."""

MAX_MELDS = 5
"""A 16-tile hand has five sets and a pair, so at most five melds (kongs included)."""

_MELD_FIELDS = 4
_MELD_CODE = {
    MeldKind.CHOW: 1,
    MeldKind.PUNG: 2,
    MeldKind.EXPOSED_KONG: 3,
    MeldKind.ADDED_KONG: 4,
}
_K = KIND_COUNT


def _seat_block(r: int) -> list[tuple[str, int]]:
    return [
        (f"meld_counts_{r}", _K),
        (f"river_counts_{r}", _K),
        (f"melds_{r}", MAX_MELDS * _MELD_FIELDS),
        (f"river_{r}", RIVER_SLOTS),
        (f"river_claimed_{r}", RIVER_SLOTS),
        (f"seat_{r}", 4),
    ]


LAYOUT: tuple[tuple[str, int], ...] = tuple(
    [
        ("hand", _K),
        ("drawn", _K),
        ("own_concealed_kongs", _K),
        ("passed_pung", _K),
        ("own_flags", 2),
    ]
    + [item for r in range(4) for item in _seat_block(r)]
    + [
        ("seat_wind", 4),
        ("round_wind", 4),
        ("table", 3),
        ("decision", 3),
        ("claim_tile", _K),
        ("claim_from", 4),
        ("banned", _K),
    ]
)
"""``(name, size)`` of each section, in order (see the module docstring)."""

ORACLE_LAYOUT: tuple[tuple[str, int], ...] = (
    LAYOUT
    + tuple(
        item for r in (1, 2, 3) for item in ((f"hidden_hand_{r}", _K), (f"hidden_kongs_{r}", _K))
    )
    + (("wall", _K),)
)
"""The oracle's sections: :data:`LAYOUT`, then the hidden tiles."""


def _offsets(layout: tuple[tuple[str, int], ...]) -> dict[str, tuple[int, int]]:
    out, at = {}, 0
    for name, size in layout:
        out[name] = (at, at + size)
        at += size
    return out


_OFFSETS = _offsets(ORACLE_LAYOUT)
OBS_SIZE = sum(size for _, size in LAYOUT)
ORACLE_SIZE = sum(size for _, size in ORACLE_LAYOUT)


def section(name: str) -> slice:
    """The slice of section ``name`` in an observation (or an oracle observation).

    >>> section("hand"), section("seat_wind").stop - section("seat_wind").start
    (slice(0, 34, None), 4)
    """
    start, stop = _OFFSETS[name]
    return slice(start, stop)


def describe_layout(oracle: bool = False) -> Iterator[str]:
    """One line per section: offset, size and name."""
    for name, size in ORACLE_LAYOUT if oracle else LAYOUT:
        start, _ = _OFFSETS[name]
        yield f"{start:5d} {size:4d}  {name}"


_O = {name: start for name, (start, _) in _OFFSETS.items()}
_HAND, _DRAWN, _OWN_KONGS = _O["hand"], _O["drawn"], _O["own_concealed_kongs"]
_PASSED_PUNG, _OWN_FLAGS = _O["passed_pung"], _O["own_flags"]
_SEAT_START = tuple(_O[f"meld_counts_{r}"] for r in range(4))
SEAT_BLOCK_SIZE = sum(size for _, size in _seat_block(0))
"""Size of one seat's block (``meld_counts_r`` .. ``seat_r``, contiguous)."""
_B = _offsets(tuple(_seat_block(0)))
_B_MELD_COUNTS, _B_RIVER_COUNTS = _B["meld_counts_0"][0], _B["river_counts_0"][0]
_B_MELDS, _B_RIVER, _B_CLAIMED = _B["melds_0"][0], _B["river_0"][0], _B["river_claimed_0"][0]
_B_SCALARS = _B["seat_0"][0]
_SEAT_WIND, _ROUND_WIND, _TABLE = _O["seat_wind"], _O["round_wind"], _O["table"]
_DECISION, _CLAIM_TILE, _CLAIM_FROM, _BANNED = (
    _O["decision"],
    _O["claim_tile"],
    _O["claim_from"],
    _O["banned"],
)


def encode(view: GameView, out: np.ndarray | None = None) -> np.ndarray:
    """The observation of ``view``'s seat: a ``float32`` vector of :data:`OBS_SIZE`
    (written into ``out`` when given, which is then returned)."""
    x = np.zeros(OBS_SIZE, np.float32) if out is None else out
    if out is not None:
        x.fill(0.0)
    sv = view.seat_view
    pub, me = sv.public, sv.seat
    x[_HAND : _HAND + _K] = sv.own.counts
    for r in range(4):
        start = _SEAT_START[r]
        _table_part(pub, (me + r) % 4, x[start : start + SEAT_BLOCK_SIZE])
    for at, value in _sparse(view).items():
        x[at] = value
    return x


def seat_block(pub: PublicState, seat: int) -> np.ndarray:
    """Seat ``seat``'s melds and river as in its block (``meld_counts`` ..
    ``river_claimed``; the ``seat_r`` scalars are left 0). It does not depend on who
    observes it: a meld's source is relative to the melder."""
    block = np.zeros(SEAT_BLOCK_SIZE, np.float32)
    _table_part(pub, seat, block)
    return block


def _table_part(pub: PublicState, seat: int, b: np.ndarray) -> None:
    """Melds and river of ``seat`` into the zeroed block ``b``."""
    melds = pub.melds[seat]
    if melds:
        shown = [0] * _K
        for i, meld in enumerate(melds):
            tiles, fields = meld_features(meld, seat)
            for t in tiles:
                shown[t] += 1
            base = _B_MELDS + i * _MELD_FIELDS
            b[base : base + _MELD_FIELDS] = fields
        b[_B_MELD_COUNTS : _B_MELD_COUNTS + _K] = shown
    tiles = pub.rivers[seat]
    n = len(tiles)
    if n > RIVER_SLOTS:  # cannot happen under the rules (see RIVER_SLOTS)
        raise ValueError(f"seat {seat} has {n} discards, more than {RIVER_SLOTS}")
    if n:
        b[_B_RIVER : _B_RIVER + n] = _TILE_IDS[tiles]
        b[_B_RIVER_COUNTS : _B_RIVER_COUNTS + _K] = np.bincount(tiles, minlength=_K)
        for i in pub.claimed[seat]:
            b[_B_CLAIMED + i] = 1.0


def meld_features(meld: Meld, seat: int) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """A meld's tiles and its four fields (kind, lowest tile id, claimed tile id,
    source relative to the melder)."""
    called = 0 if meld.called is None else meld.called + 1
    source = 0 if meld.source is None else (meld.source - seat) % 4
    return tuple(meld.tiles), (_MELD_CODE[meld.kind], meld.tile + 1, called, source)


def _sparse(view: GameView) -> dict[int, float]:
    """Every nonzero feature outside ``hand`` and the seats' melds and rivers, by
    position: what changes from one decision to the next."""
    sv = view.seat_view
    pub, own, me = sv.public, sv.own, sv.seat
    out = {
        _SEAT_WIND + (me - pub.dealer) % 4: 1.0,
        _ROUND_WIND + pub.round_wind - Tile.E: 1.0,
    }
    if own.drawn is not None:
        out[_DRAWN + own.drawn] = 1.0
    for k in own.concealed_kongs:
        out[_OWN_KONGS + k] = 1.0
    for k in own.passed_pung:
        out[_PASSED_PUNG + k] = 1.0
    if own.passed_win:
        out[_OWN_FLAGS] = 1.0
    if own.kong_block:
        out[_OWN_FLAGS + 1] = 1.0
    for r in range(4):
        seat = (me + r) % 4
        at = _SEAT_START[r] + _B_SCALARS
        out[at] = pub.concealed[seat]
        out[at + 1] = pub.concealed_kongs[seat]
        out[at + 2] = pub.scores[seat] / 1000.0
        out[at + 3] = float(seat == pub.dealer)
    out[_TABLE] = pub.wall_left - RESERVED
    out[_TABLE + 1] = float(pub.first_round)
    out[_TABLE + 2] = pub.hand
    phase = pub.phase
    if phase == CLAIMS and pub.turn != me:
        out[_DECISION + 2] = 1.0
        out[_CLAIM_TILE + pub.pending_tile] = 1.0
        out[_CLAIM_FROM + (pub.turn - me) % 4] = 1.0
    elif pub.turn == me and phase == TURN_DRAWN:
        out[_DECISION] = 1.0
    elif pub.turn == me and phase == TURN_CLAIMED:
        out[_DECISION + 1] = 1.0
        if pub.banned is not None:
            out[_BANNED + pub.banned] = 1.0
    return {at: value for at, value in out.items() if value}


assert _SEAT_START[3] + SEAT_BLOCK_SIZE == _SEAT_WIND and _B_SCALARS + 4 == SEAT_BLOCK_SIZE
assert _SEAT_START[0] == _OWN_FLAGS + 2 and _DECISION == _TABLE + 3


_TILE_IDS = np.arange(1, _K + 1, dtype=np.float32)


def encode_oracle(hand: HandState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """``seat``'s observation followed by the hidden tiles (:data:`ORACLE_SIZE`): for
    teacher-student training only. Reads the referee's state; changes nothing."""
    x = np.zeros(ORACLE_SIZE, np.float32) if out is None else out
    view = GameView(live_view(hand, seat))
    encode(view, x[:OBS_SIZE])
    x[OBS_SIZE:] = 0.0
    for r in (1, 2, 3):
        other = hand.owns[(seat + r) % 4]
        start = _O[f"hidden_hand_{r}"]
        x[start : start + _K] = other.counts
        kongs = _O[f"hidden_kongs_{r}"]
        for k in other.concealed_kongs:
            x[kongs + k] = 1.0
    wall = _O["wall"]
    for t in hand.wall.tiles[hand.wall.front : hand.wall.back]:
        x[wall + t] += 1.0
    return x


def live_view(hand: HandState, seat: int) -> SeatView:
    """A :class:`~protocol.view.SeatView` sharing the referee's live state for ``seat``
    (no copy: the public part and ``seat``'s own part are exactly what its mirror holds,
    kept by the same event handlers)."""
    view = SeatView(seat, hand.public)
    view.own = hand.owns[seat]
    return view


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m sdk.learn.encoding``: print the layout with offsets. Returns the exit
    code; run through :func:`protocol.cli.run_command`, so a usage error is one line and
    ``| head`` ends it quietly."""
    return run_command(_print_layout, argv)


def _print_layout(argv: Sequence[str] | None) -> int:
    Parser(
        prog="python -m sdk.learn.encoding",
        description="Print the observation layout: offset, size and name of each section.",
    ).parse_args(argv)
    print(f"observation v{ENCODING_VERSION}: {OBS_SIZE} float32; oracle: {ORACLE_SIZE}")
    for line in describe_layout(oracle=True):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
