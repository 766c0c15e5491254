"""What one seat knows, rebuilt from events: the state that decides its legal actions.

The knowledge of a hand splits in two:

* :class:`PublicState`, what every seat knows alike: the wall count, every seat's
  concealed tile count, melds, river and last discard, the turn and phase, the first
  go-round (R10), the scores and winds. It never holds a hidden tile, so it is built
  identically from any seat's projection.
* :class:`OwnState`, what only one seat knows: its concealed tiles, its concealed kongs,
  the tile it just drew, and its passed-win / passed-pung / exposed-kong flags (R9).

The referee keeps one :class:`PublicState` and four :class:`OwnState` and changes them
only through :func:`apply_public` and :func:`apply_own`; a :class:`SeatView` (what a
client mirror keeps) applies the same two functions to a seat's projected events. So the
legal actions :func:`protocol.rules.legal_actions` computes from a view are by
construction the ones the referee offers.

>>> from protocol.events import Deal, HandStart
>>> v = SeatView(1)
>>> v.apply(HandStart(0, 0, Tile.E, (0, 0, 0, 0)))
>>> v.apply(Deal(0, 17))
>>> v.apply(Deal(1, 16, tuple(Tile(k) for k in range(16))))
>>> v.public.concealed[:2], v.public.wall_left, v.seat_wind(1)
([17, 16], 103, <Tile.S: 28>)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from protocol.events import (
    AddedKong,
    Chow,
    ConcealedKong,
    Deal,
    Declined,
    Discard,
    Draw,
    Event,
    ExhaustiveDraw,
    ExposedKong,
    FourWindsAbort,
    HandEnd,
    HandResult,
    HandStart,
    MatchEnd,
    Pung,
    Win,
)
from protocol.melds import Meld, MeldKind
from protocol.shapes import GROUP, POWER, encode
from protocol.tiles import KIND_COUNT, TILE_COUNT, TILES, Tile
from protocol.wall import RESERVED

if TYPE_CHECKING:
    from protocol.actions import Action

__all__ = [
    "CLAIMS",
    "DEALING",
    "KONG_REPLACEMENT",
    "OVER",
    "OWN_HANDLERS",
    "PUBLIC_HANDLERS",
    "TURN_CLAIMED",
    "TURN_DRAWN",
    "OwnState",
    "PublicState",
    "SeatView",
    "apply_own",
    "apply_public",
]

_new = object.__new__

# Phases of a hand (plain ints on the hot path).
DEALING = 0
"""Before the last deal event."""
TURN_DRAWN = 1
"""``turn`` acts after a draw (the dealer's opening 17 counts as one, R8)."""
TURN_CLAIMED = 2
"""``turn`` must discard after a chow or pung; ``banned`` is the kind it may not (R6)."""
CLAIMS = 3
"""``turn`` has discarded ``pending_tile``; the others may claim it."""
KONG_REPLACEMENT = 4
"""A kong was made; its replacement draw comes next (only between two events)."""
OVER = 5
"""The hand is won or drawn."""


@dataclass(slots=True)
class PublicState:
    """What every seat knows about the hand (see the module docstring)."""

    hand: int = 0
    dealer: int = 0
    round_wind: int = Tile.E
    scores: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    wall_left: int = TILE_COUNT
    concealed: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    melds: list[list[Meld]] = field(default_factory=lambda: [[], [], [], []])
    """Declared melds except concealed kongs, whose tiles are hidden."""
    concealed_kongs: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    """How many concealed kongs each seat has declared."""
    rivers: list[list[int]] = field(default_factory=lambda: [[], [], [], []])
    """Every discard of each seat in order, claimed ones included."""
    claimed: list[list[int]] = field(default_factory=lambda: [[], [], [], []])
    """For each seat, the positions in its river of the discards another seat claimed."""
    last_discard: list[int | None] = field(default_factory=lambda: [None] * 4)
    visible: list[int] = field(default_factory=lambda: [0] * KIND_COUNT)
    """Tiles of each kind shown to everyone: discards and declared (non-concealed) melds."""
    first_round: bool = True
    """No chow, pung or exposed kong yet in this hand (R10)."""
    discarded: list[bool] = field(default_factory=lambda: [False] * 4)
    opening_discards: list[int] = field(default_factory=list)
    """The first discards while the first go-round holds, for four winds (R4)."""
    phase: int = DEALING
    turn: int = 0
    """The seat to act, or the discarder while claims are open."""
    banned: int | None = None
    pending_tile: int | None = None
    drew_replacement: bool = False
    """The turn's latest draw came from the back (for 槓上開花)."""
    result: HandResult | None = None
    match_over: bool = False

    @property
    def drawable(self) -> int:
        """Tiles that may still be drawn (R2); 0 right after the last tile, below 0 after
        an added kong on it."""
        return self.wall_left - RESERVED

    def seat_wind(self, seat: int) -> Tile:
        """E for the dealer, then S, W, N in play order."""
        return TILES[Tile.E + (seat - self.dealer) % 4]

    def copy(self) -> PublicState:
        """A copy with lists of its own (melds and the result are immutable, shared);
        much cheaper than :func:`copy.deepcopy`.

        >>> p = PublicState()
        >>> q = p.copy()
        >>> q.rivers[0].append(5)
        >>> q == p, p.rivers[0]
        (False, [])
        """
        q = _new(PublicState)
        q.hand, q.dealer, q.round_wind = self.hand, self.dealer, self.round_wind
        q.scores = self.scores.copy()
        q.wall_left = self.wall_left
        q.concealed = self.concealed.copy()
        q.melds = [m.copy() for m in self.melds]
        q.concealed_kongs = self.concealed_kongs.copy()
        q.rivers = [r.copy() for r in self.rivers]
        q.claimed = [c.copy() for c in self.claimed]
        q.last_discard = self.last_discard.copy()
        q.visible = self.visible.copy()
        q.first_round = self.first_round
        q.discarded = self.discarded.copy()
        q.opening_discards = self.opening_discards.copy()
        q.phase, q.turn, q.banned = self.phase, self.turn, self.banned
        q.pending_tile, q.drew_replacement = self.pending_tile, self.drew_replacement
        q.result, q.match_over = self.result, self.match_over
        return q


@dataclass(slots=True)
class OwnState:
    """What only ``seat`` knows (see the module docstring)."""

    seat: int
    counts: list[int] = field(default_factory=lambda: [0] * KIND_COUNT)
    concealed_kongs: list[int] = field(default_factory=list)
    drawn: int | None = None
    """The tile just drawn while it is this seat's turn after a draw; for the dealer's
    opening, the 17th tile dealt (R10)."""
    passed_win: bool = False
    passed_pung: set[int] = field(default_factory=set)
    kong_block: bool = False
    """After an exposed kong: no self-draw win until own discard or added kong (R9)."""
    keys: list[int] = field(init=False)
    """``counts`` as the four group keys of :mod:`protocol.shapes`, kept in step by the
    handlers below so that win checks are table reads (no encoding)."""

    def __post_init__(self) -> None:
        counts = self.counts  # usually the fresh zeros: no need to encode them
        self.keys = encode(counts) if any(counts) else [0, 0, 0, 0]

    def copy(self) -> OwnState:
        """A copy with lists and sets of its own (see :meth:`PublicState.copy`)."""
        q = _new(OwnState)
        q.seat = self.seat
        q.counts = self.counts.copy()
        q.concealed_kongs = self.concealed_kongs.copy()
        q.drawn = self.drawn
        q.passed_win = self.passed_win
        q.passed_pung = self.passed_pung.copy()
        q.kong_block = self.kong_block
        q.keys = self.keys.copy()
        return q

    def recount(self) -> None:
        """Bring :attr:`keys` back in step after changing ``counts`` by hand (tools and
        tests that craft a state; events keep them in step by themselves)."""
        self.keys = encode(self.counts)

    def reset(self) -> None:
        """Forget the hand (a new hand is dealt)."""
        self.keys = [0, 0, 0, 0]
        self.counts = [0] * KIND_COUNT
        self.concealed_kongs = []
        self.drawn = None
        self.passed_win = False
        self.passed_pung = set()
        self.kong_block = False


# --- public part -----------------------------------------------------------------------


def _pub_hand_start(p: PublicState, ev: HandStart) -> None:
    p.__init__(  # type: ignore[misc]  # back to a fresh hand, in place
        hand=ev.hand, dealer=ev.dealer, round_wind=ev.round_wind, scores=list(ev.scores)
    )
    p.turn = ev.dealer


def _pub_deal(p: PublicState, ev: Deal) -> None:
    p.concealed[ev.seat] = ev.count
    p.wall_left -= ev.count
    if ev.seat == (p.dealer + 3) % 4:
        p.phase = TURN_DRAWN
        p.turn = p.dealer


def _pub_draw(p: PublicState, ev: Draw) -> None:
    p.wall_left -= 1
    p.concealed[ev.seat] += 1
    p.turn = ev.seat
    p.phase = TURN_DRAWN
    p.drew_replacement = ev.replacement


def _pub_discard(p: PublicState, ev: Discard) -> None:
    seat, tile = ev.seat, ev.tile
    p.concealed[seat] -= 1
    p.rivers[seat].append(tile)
    p.last_discard[seat] = tile
    p.visible[tile] += 1
    p.discarded[seat] = True
    if p.first_round and len(p.opening_discards) < 4:
        p.opening_discards.append(tile)
    p.phase = CLAIMS
    p.turn = seat
    p.pending_tile = tile
    p.banned = None


_MELDS: dict[tuple[MeldKind, int, int | None, int | None], Meld] = {}


def _meld(kind: MeldKind, tile: int, called: int | None, source: int | None) -> Meld:
    """``Meld(kind, tile, called, source)``, one shared instance per combination (melds
    are immutable values and there are at most a few thousand): building and validating
    a Meld costs more than the rest of a claim's handler."""
    key = (kind, tile, called, source)
    meld = _MELDS.get(key)
    if meld is None:
        meld = _MELDS[key] = Meld(kind, tile, called, source)
    return meld


def _claimed(p: PublicState, seat: int, meld: Meld, taken: int, phase: int) -> None:
    p.claimed[meld.source].append(len(p.rivers[meld.source]) - 1)  # type: ignore[index]
    p.melds[seat].append(meld)
    p.concealed[seat] -= taken
    p.first_round = False
    p.phase = phase
    p.turn = seat
    p.pending_tile = None


def _pub_chow(p: PublicState, ev: Chow) -> None:
    a, b = ev.tiles
    low = min(a, ev.tile)
    _claimed(p, ev.seat, _meld(MeldKind.CHOW, low, ev.tile, ev.from_seat), 2, TURN_CLAIMED)
    p.visible[a] += 1
    p.visible[b] += 1
    p.banned = ev.tile


def _pub_pung(p: PublicState, ev: Pung) -> None:
    _claimed(p, ev.seat, _meld(MeldKind.PUNG, ev.tile, ev.tile, ev.from_seat), 2, TURN_CLAIMED)
    p.visible[ev.tile] += 2
    p.banned = ev.tile


def _pub_exposed_kong(p: PublicState, ev: ExposedKong) -> None:
    meld = _meld(MeldKind.EXPOSED_KONG, ev.tile, ev.tile, ev.from_seat)
    _claimed(p, ev.seat, meld, 3, KONG_REPLACEMENT)
    p.visible[ev.tile] += 3


def _pub_added_kong(p: PublicState, ev: AddedKong) -> None:
    melds = p.melds[ev.seat]
    for i, m in enumerate(melds):
        if m.kind is MeldKind.PUNG and m.tile == ev.tile:
            melds[i] = _meld(MeldKind.ADDED_KONG, m.tile, m.called, m.source)
            break
    p.concealed[ev.seat] -= 1
    p.visible[ev.tile] += 1
    p.phase = KONG_REPLACEMENT


def _pub_concealed_kong(p: PublicState, ev: ConcealedKong) -> None:
    p.concealed_kongs[ev.seat] += 1
    p.concealed[ev.seat] -= 4
    p.phase = KONG_REPLACEMENT


def _pub_over(p: PublicState, ev: Event) -> None:
    p.phase = OVER
    p.pending_tile = None


def _pub_hand_end(p: PublicState, ev: HandEnd) -> None:
    p.phase = OVER
    p.result = ev.result
    p.scores = list(ev.scores)


def _pub_match_end(p: PublicState, ev: MatchEnd) -> None:
    p.scores = list(ev.scores)
    p.match_over = True


def _pub_nothing(p: PublicState, ev: Event) -> None:
    return None


PUBLIC_HANDLERS: dict[type, Callable[[PublicState, Event], None]] = {
    HandStart: _pub_hand_start,
    Deal: _pub_deal,
    Draw: _pub_draw,
    Discard: _pub_discard,
    Chow: _pub_chow,
    Pung: _pub_pung,
    ExposedKong: _pub_exposed_kong,
    AddedKong: _pub_added_kong,
    ConcealedKong: _pub_concealed_kong,
    Declined: _pub_nothing,
    Win: _pub_over,
    ExhaustiveDraw: _pub_over,
    FourWindsAbort: _pub_over,
    HandEnd: _pub_hand_end,
    MatchEnd: _pub_match_end,
}  # type: ignore[dict-item]


def apply_public(p: PublicState, ev: Event) -> None:
    """Apply the public part of ``ev`` (it never reads a hidden field)."""
    PUBLIC_HANDLERS[type(ev)](p, ev)


# --- own part --------------------------------------------------------------------------


def _own_hand_start(o: OwnState, ev: HandStart) -> None:
    o.reset()


def _own_deal(o: OwnState, ev: Deal) -> None:
    tiles = ev.tiles
    assert tiles is not None
    counts, keys = o.counts, o.keys
    for t in tiles:
        counts[t] += 1
        keys[GROUP[t]] += POWER[t]
    o.drawn = tiles[-1] if len(tiles) == 17 else None


def _own_draw(o: OwnState, ev: Draw) -> None:
    t = ev.tile
    o.counts[t] += 1  # type: ignore[index]
    o.keys[GROUP[t]] += POWER[t]  # type: ignore[index]
    o.drawn = t


def _own_discard(o: OwnState, ev: Discard) -> None:
    t = ev.tile
    o.counts[t] -= 1
    o.keys[GROUP[t]] -= POWER[t]
    o.drawn = None
    o.passed_win = False  # R9: cleared by one's own discard
    if o.passed_pung:
        o.passed_pung.clear()
    o.kong_block = False


def _own_chow(o: OwnState, ev: Chow) -> None:
    a, b = ev.tiles
    o.counts[a] -= 1
    o.counts[b] -= 1
    o.keys[GROUP[a]] -= POWER[a] + POWER[b]  # a chow's tiles share a suit


def _own_pung(o: OwnState, ev: Pung) -> None:
    o.counts[ev.tile] -= 2
    o.keys[GROUP[ev.tile]] -= 2 * POWER[ev.tile]


def _own_exposed_kong(o: OwnState, ev: ExposedKong) -> None:
    o.counts[ev.tile] -= 3
    o.keys[GROUP[ev.tile]] -= 3 * POWER[ev.tile]
    o.kong_block = True  # R9: no self-draw on the replacement nor after


def _own_added_kong(o: OwnState, ev: AddedKong) -> None:
    o.counts[ev.tile] -= 1
    o.keys[GROUP[ev.tile]] -= POWER[ev.tile]
    o.drawn = None
    o.passed_win = False  # R9: cleared before the replacement is drawn
    o.kong_block = False


def _own_concealed_kong(o: OwnState, ev: ConcealedKong) -> None:
    o.counts[ev.tile] -= 4  # type: ignore[index]
    o.keys[GROUP[ev.tile]] -= 4 * POWER[ev.tile]  # type: ignore[index]
    o.concealed_kongs.append(ev.tile)  # type: ignore[arg-type]
    o.drawn = None


def _own_declined(o: OwnState, ev: Declined) -> None:
    if ev.win:
        o.passed_win = True
    if ev.pung:
        o.passed_pung.add(ev.tile)


OWN_HANDLERS: dict[type, Callable[[OwnState, Event], None]] = {
    HandStart: _own_hand_start,
    Deal: _own_deal,
    Draw: _own_draw,
    Discard: _own_discard,
    Chow: _own_chow,
    Pung: _own_pung,
    ExposedKong: _own_exposed_kong,
    AddedKong: _own_added_kong,
    ConcealedKong: _own_concealed_kong,
    Declined: _own_declined,
}  # type: ignore[dict-item]


HANDLERS: dict[type, tuple[Callable[[PublicState, Event], None], Callable | None]] = {
    cls: (handler, OWN_HANDLERS.get(cls)) for cls, handler in PUBLIC_HANDLERS.items()
}
"""Both parts per event type, for the referee's hot path (one lookup per event)."""


def apply_own(o: OwnState, ev: Event) -> None:
    """Apply the private part of ``ev`` for the seat it is about (``ev.seat == o.seat``,
    or a table event), which must carry that seat's tiles."""
    handler = OWN_HANDLERS.get(type(ev))
    if handler is not None:
        handler(o, ev)


# --- the view --------------------------------------------------------------------------


@dataclass(slots=True)
class SeatView:
    """One seat's knowledge of the hand, kept up to date by :meth:`apply` on that seat's
    projected events (:func:`protocol.events.project`). Equal views mean equal knowledge.
    """

    seat: int
    public: PublicState = field(default_factory=PublicState)
    own: OwnState = field(init=False)

    def __post_init__(self) -> None:
        self.own = OwnState(self.seat)

    @classmethod
    def from_events(cls, seat: int, events: Iterable[Event]) -> SeatView:
        """Rebuild a view from a seat's projected events."""
        view = cls(seat)
        for ev in events:
            view.apply(ev)
        return view

    def apply(self, ev: Event) -> None:
        """Update the view with one event as this seat sees it."""
        apply_public(self.public, ev)
        if ev.seat is None or ev.seat == self.seat:
            apply_own(self.own, ev)

    def legal_actions(self) -> tuple[Action, ...]:
        """This seat's legal actions now, by the referee's own rules function
        (:func:`protocol.rules.legal_actions`; imported here because rules imports this
        module). After the seat has answered a claim, it is the mirror's job to know it
        has decided: the referee no longer lists it as pending."""
        from protocol.rules import legal_actions

        return legal_actions(self.own, self.public)

    @property
    def hand(self) -> list[Tile]:
        """Own concealed tiles, sorted."""
        return [TILES[k] for k in range(KIND_COUNT) for _ in range(self.own.counts[k])]

    def melds(self, seat: int) -> list[Meld]:
        """The melds of ``seat`` this seat can see (own concealed kongs included; another
        seat's concealed kongs are only counted in ``public.concealed_kongs``)."""
        shown = list(self.public.melds[seat])
        if seat == self.seat:
            shown += [Meld(MeldKind.CONCEALED_KONG, k) for k in self.own.concealed_kongs]
        return shown

    def river(self, seat: int) -> list[Tile]:
        """Every discard of ``seat`` in order, claimed ones included."""
        return [TILES[t] for t in self.public.rivers[seat]]

    def seat_wind(self, seat: int) -> Tile:
        """The wind of ``seat`` this hand (E for the dealer)."""
        return self.public.seat_wind(seat)

    @property
    def round_wind(self) -> Tile:
        """The prevailing wind."""
        return TILES[self.public.round_wind]

    @property
    def scores(self) -> list[int]:
        """Cumulative scores by seat, before this hand."""
        return list(self.public.scores)

    @property
    def wall_left(self) -> int:
        """Tiles left in the wall, the reserved ones included."""
        return self.public.wall_left

    @property
    def passed_win(self) -> bool:
        """In the passed-win state (R9)."""
        return self.own.passed_win

    def visible_counts(self) -> list[int]:
        """Tiles of each kind this seat can see: discards, shown melds, own concealed
        tiles and own concealed kongs."""
        out = [a + b for a, b in zip(self.public.visible, self.own.counts, strict=True)]
        for k in self.own.concealed_kongs:
            out[k] += 4
        return out
