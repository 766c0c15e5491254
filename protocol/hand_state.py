"""The referee of one hand: a sans-I/O state machine under the tournament rules.

:class:`HandState` holds the wall, one :class:`~protocol.view.PublicState` and one
:class:`~protocol.view.OwnState` per seat, and changes them only by emitting events
(through :func:`~protocol.view.apply_public` / :func:`~protocol.view.apply_own`, the code
a client mirror runs). At every moment :meth:`HandState.pending` says which seats must
decide and gives each its exact legal actions (:func:`protocol.rules.legal_actions`);
:meth:`HandState.apply` takes one decision, or raises :class:`IllegalActionError` with the
reason and changes nothing. Claims on a discard are collected from every eligible seat
before they are resolved by priority (R5).

>>> from protocol.actions import Action
>>> hand = HandState.new(seed=1, dealer=0)
>>> list(hand.pending())  # the dealer holds 17 tiles and acts first (R1)
[0]
>>> drawn = hand.drawn_tile(0)
>>> [type(e).__name__ for e in hand.apply(0, Action.discard(drawn))][:1]
['Discard']
>>> hand.is_over
False
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType

from protocol.actions import PUNG, WIN, Action, ActionKind
from protocol.errors import MahjongError
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
    Pung,
    Win,
    project_all,
)
from protocol.melds import Meld, MeldKind
from protocol.rules import claim_window, turn_actions, why_illegal
from protocol.scoring import ScoreResult, WinSituation, score_win
from protocol.tiles import KIND_COUNT, TILES, Tile
from protocol.view import (
    CLAIMS,
    HANDLERS,
    OVER,
    OwnState,
    PublicState,
    SeatView,
    _own_discard,
    _own_draw,
    _pub_discard,
    _pub_draw,
)
from protocol.wall import DEALER_TILES, HAND_TILES, RESERVED, Wall, shuffled_wall

__all__ = [
    "DISCARDS",
    "DRAWS",
    "HandOverError",
    "HandState",
    "IllegalActionError",
    "NotPendingError",
    "Scorer",
    "own_situation",
    "win_situation",
]

Scorer = Callable[[WinSituation], ScoreResult]
"""What scores a win; :func:`protocol.scoring.score_win` unless told otherwise."""

_DISCARD = ActionKind.DISCARD
_WINDS = frozenset({Tile.E, Tile.S, Tile.W, Tile.N})
_OTHERS = tuple(((s + 1) % 4, (s + 2) % 4, (s + 3) % 4) for s in range(4))
"""The other seats in claim-priority order: from the discarder's next seat (R5)."""
_TAKES_ALL = (ActionKind.PUNG, ActionKind.KONG)
"""Claims that beat a chow (R5)."""
_NO_PENDING: Mapping[int, tuple[Action, ...]] = MappingProxyType({})
DRAWS: tuple[tuple[tuple[Draw, ...], ...], ...] = tuple(
    tuple(tuple(Draw(s, bool(r), t) for t in Tile) for r in (0, 1)) for s in range(4)
)
"""The draw events, one shared object by seat, replacement and tile: events are frozen
values, so the referee reuses them rather than building one per draw (cheaper, and a
record encoder can look up their text by object)."""
DISCARDS: tuple[tuple[Discard, ...], ...] = tuple(
    tuple(Discard(s, t) for t in Tile) for s in range(4)
)
"""The discard events, one shared object by seat and tile (as :data:`DRAWS`)."""


class IllegalActionError(MahjongError):
    """An action that is not among the seat's legal actions. The state is unchanged.

    ``seat``, ``action``, ``legal`` (the seat's legal actions, possibly empty) and
    ``reason`` (a short text citing the ruling) say what was refused and why."""

    def __init__(self, seat: int, action: object, legal: Sequence[Action], reason: str) -> None:
        self.seat = seat
        self.action = action
        self.legal = tuple(legal)
        self.reason = reason
        shown = ", ".join(str(a) for a in legal) or "none"
        super().__init__(f"seat {seat} may not {action}: {reason} (legal: {shown})")


class NotPendingError(IllegalActionError):
    """The seat has nothing to decide now (not its turn, no claim, or already decided)."""


class HandOverError(NotPendingError):
    """The hand is over; nobody decides anything."""


def win_situation(
    pub: PublicState,
    seat: int,
    concealed: tuple[Tile, ...],
    melds: tuple[Meld, ...],
    tile: int,
    discarder: int | None,
) -> WinSituation:
    """The :class:`~protocol.scoring.WinSituation` of ``seat`` winning on ``tile`` with
    these tiles (``concealed`` with the winning tile, ``melds`` with its concealed
    kongs), its flags (R2, R10, kong replacement) read off the public state just before
    the win. Every flag is public, so a seat that sees the winner's tiles (the line
    protocol's ``/hu``) scores the win exactly as the referee does."""
    self_draw = discarder is None
    return WinSituation(
        concealed=concealed,
        melds=melds,
        win_tile=TILES[tile],
        winner=seat,
        discarder=discarder,
        dealer=pub.dealer,
        round_wind=TILES[pub.round_wind],
        last_tile=self_draw and pub.drawable == 0,
        last_discard=not self_draw and pub.drawable <= 0,
        kong_replacement=self_draw and pub.drew_replacement,
        first_go_round=pub.first_round and not pub.discarded[seat],
    )


def own_situation(
    pub: PublicState, own: OwnState, tile: int, discarder: int | None
) -> WinSituation:
    """:func:`win_situation` for the seat whose own tiles are ``own`` (the referee's, or
    that seat's own view: a seat can score its own win, or one it passes, exactly)."""
    counts = list(own.counts)
    if discarder is not None:
        counts[tile] += 1
    concealed = tuple(TILES[k] for k in range(KIND_COUNT) for _ in range(counts[k]))
    melds = tuple(pub.melds[own.seat]) + tuple(
        Meld(MeldKind.CONCEALED_KONG, TILES[k]) for k in own.concealed_kongs
    )
    return win_situation(pub, own.seat, concealed, melds, tile, discarder)


class HandState:
    """One hand from the deal to its end. Build it with :meth:`new`."""

    __slots__ = (
        "_claims",
        "_decisions",
        "_pending",
        "events",
        "owns",
        "public",
        "scorer",
        "wall",
    )

    def __init__(self, wall: Wall, scorer: Scorer) -> None:
        self.wall = wall
        self.scorer = scorer
        self.public = PublicState()
        self.owns = [OwnState(s) for s in range(4)]
        self.events: list[Event] = []
        """Every event so far, with all information (see :meth:`projected_events`)."""
        self._pending: dict[int, tuple[Action, ...]] = {}
        self._claims: dict[int, tuple[Action, ...]] = {}
        self._decisions: dict[int, Action] = {}

    @classmethod
    def new(
        cls,
        wall: Sequence[int] | None = None,
        dealer: int = 0,
        round_wind: int = Tile.E,
        *,
        seed: int | None = None,
        hand_no: int = 0,
        scores: Sequence[int] = (0, 0, 0, 0),
        scorer: Scorer = score_win,
    ) -> HandState:
        """Deal a hand from an explicit ``wall`` (136 tiles, front first) or from the wall
        of ``seed`` (R1), and stop at the first decision (the dealer's, on 17 tiles)."""
        if (wall is None) == (seed is None):
            raise ValueError("give exactly one of wall and seed")
        if dealer not in range(4):
            raise ValueError(f"dealer must be a seat 0..3, not {dealer!r}")
        if round_wind not in _WINDS:
            raise ValueError(f"round wind must be E, S, W or N, not {round_wind!r}")
        tiles = Wall(shuffled_wall(seed), checked=True) if wall is None else Wall(wall)  # type: ignore[arg-type]
        hand = cls(tiles, scorer)
        hand._deal(hand_no, dealer, Tile(round_wind), tuple(scores))
        return hand

    # --- queries -----------------------------------------------------------------------

    def pending(self) -> Mapping[int, tuple[Action, ...]]:
        """The seats that must decide now, each with its legal actions (read-only)."""
        return MappingProxyType(self._pending) if self._pending else _NO_PENDING

    def next_pending(self) -> tuple[int, tuple[Action, ...]] | None:
        """The first seat of :meth:`pending` (on a claim window: in priority order, R5)
        with its legal actions, or ``None`` when nobody must decide. What a driver that
        asks one seat at a time reads (the in-process arena), without the read-only
        mapping :meth:`pending` builds."""
        for item in self._pending.items():
            return item
        return None

    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        """``seat``'s legal actions now (empty if it has nothing to decide)."""
        return self._pending.get(seat, ())

    @property
    def is_over(self) -> bool:
        """Whether the hand has ended (a win, an exhaustive draw or an abort)."""
        return self.public.phase == OVER

    @property
    def result(self) -> HandResult | None:
        """How the hand ended, once it has."""
        return self.public.result

    @property
    def dealer(self) -> int:
        """The dealer's seat."""
        return self.public.dealer

    def drawn_tile(self, seat: int) -> Tile | None:
        """The tile ``seat`` just drew, while it acts after a draw (R17 defaults)."""
        drawn = self.owns[seat].drawn
        return None if drawn is None else TILES[drawn]

    def view(self, seat: int) -> SeatView:
        """A copy of ``seat``'s knowledge: equal to the view rebuilt from its projection."""
        view = SeatView(seat, copy.deepcopy(self.public))
        view.own = copy.deepcopy(self.owns[seat])
        return view

    def projected_events(self, seat: int) -> list[Event]:
        """The events as ``seat`` may see them (:func:`protocol.events.project`)."""
        return project_all(self.events, seat)

    def tiles_in_play(self) -> list[int]:
        """How many tiles of each kind are in the wall, hands, melds and rivers: always
        four of each (a consistency check for tests)."""
        counts = [0] * KIND_COUNT
        for t in self.wall.tiles[self.wall.front : self.wall.back]:
            counts[t] += 1
        for own in self.owns:
            for k in range(KIND_COUNT):
                counts[k] += own.counts[k]
            for k in own.concealed_kongs:
                counts[k] += 4
        for seat in range(4):
            for t in self.public.rivers[seat]:
                counts[t] += 1
            for m in self.public.melds[seat]:
                for t in m.tiles:
                    counts[t] += 1
                if m.called is not None:
                    counts[m.called] -= 1  # the claimed tile is also in a river
        return counts

    # --- the one mutator ---------------------------------------------------------------

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Take ``seat``'s decision and return the events it caused. Raises
        :class:`IllegalActionError` (state untouched) unless ``action`` is legal now."""
        legal = self._pending.get(seat)
        if legal is None or action not in legal:
            raise self._refusal(seat, action)
        events = self.events
        start = len(events)
        if self.public.phase == CLAIMS:
            self._decide(seat, action)
        elif action.kind is _DISCARD:  # the common case first
            self._discard(seat, action.tile)  # type: ignore[arg-type]
        else:
            self._act(seat, action, legal)
        return events[start:]

    def apply_legal(self, seat: int, action: Action, legal: tuple[Action, ...]) -> None:
        """:meth:`apply` for a caller that has itself checked ``action in legal``, where
        ``legal`` is the very tuple :meth:`pending` (or :meth:`next_pending`) gave for
        ``seat`` now: the in-process arena polices every answer against that tuple, so
        checking it again here would only repeat the work. A ``legal`` that is not the
        seat's current tuple is refused as :meth:`apply` would refuse ``action``. Returns
        nothing (the new events are at the end of :attr:`events`)."""
        if self._pending.get(seat) is not legal:
            raise self._refusal(seat, action)
        if self.public.phase == CLAIMS:  # the dispatch of apply()
            self._decide(seat, action)
        elif action.kind is _DISCARD:
            self._discard(seat, action.tile)  # type: ignore[arg-type]
        else:
            self._act(seat, action, legal)

    # --- internals ---------------------------------------------------------------------

    def _emit(self, ev: Event) -> None:
        """Record ``ev`` and apply it exactly as a view does (apply_public / apply_own,
        inlined here because this is the hot path)."""
        self.events.append(ev)
        public_handler, handler = HANDLERS[type(ev)]
        public_handler(self.public, ev)
        if handler is not None:
            seat = ev.seat
            if seat is None:
                for own in self.owns:
                    handler(own, ev)
            else:
                handler(self.owns[seat], ev)

    def _deal(self, hand_no: int, dealer: int, round_wind: Tile, scores: tuple) -> None:
        self._emit(HandStart(hand_no, dealer, round_wind, scores))
        for i in range(4):
            seat = (dealer + i) % 4
            n = DEALER_TILES if i == 0 else HAND_TILES
            tiles = tuple(map(TILES.__getitem__, self.wall.take(n)))
            self._emit(Deal(seat, n, tiles))
        self._open_turn()

    def _open_turn(self) -> None:
        seat = self.public.turn
        self._pending = {seat: turn_actions(self.owns[seat], self.public)}

    def _draw(self, seat: int) -> None:
        wall = self.wall  # Wall.draw(), inlined: this runs once per turn
        tile = wall.tiles[wall.front]
        wall.front += 1
        ev = DRAWS[seat][0][tile]
        self.events.append(ev)  # _emit(ev), inlined: the handlers a view runs for a draw
        own, pub = self.owns[seat], self.public
        _pub_draw(pub, ev)
        _own_draw(own, ev)
        self._pending = {seat: turn_actions(own, pub)}

    def _replace(self, seat: int) -> None:
        """Every kong draws its replacement from the back (R8)."""
        self._emit(DRAWS[seat][1][self.wall.draw_replacement()])
        self._open_turn()

    def _act(self, seat: int, action: Action, legal: tuple[Action, ...]) -> None:
        """A turn action other than a discard (:meth:`apply` routes discards)."""
        kind = action.kind
        if kind is ActionKind.WIN:
            self._win(seat, self.owns[seat].drawn, None)  # type: ignore[arg-type]
        elif kind is ActionKind.CONCEALED_KONG:
            if legal[0] is WIN:  # R9: a concealed kong instead of a win is a passed win
                drawn = self.owns[seat].drawn
                self._emit(Declined(seat, TILES[drawn], True, False))  # type: ignore[index]
            self._emit(ConcealedKong(seat, action.tile))
            self._replace(seat)
        else:  # added kong: completes at once, nobody may rob it (R8)
            self._emit(AddedKong(seat, action.tile))  # type: ignore[arg-type]
            self._replace(seat)

    def _discard(self, seat: int, tile: Tile) -> None:
        """``seat`` discards ``tile``; then the claim window opens, or (usually: nobody
        may claim) the next seat draws. Runs once per turn, so the Discard handlers are
        applied directly (as :meth:`_emit` would) and the no-claim case is inlined."""
        ev = DISCARDS[seat][tile]
        self.events.append(ev)
        pub = self.public
        _pub_discard(pub, ev)
        _own_discard(self.owns[seat], ev)
        opening = pub.opening_discards
        if (
            pub.first_round and len(opening) == 4 and tile in _WINDS and opening.count(tile) == 4
        ):  # R4: four winds, drawn at once; nobody may claim the fourth
            self._emit(FourWindsAbort())
            self._end(HandResult("four_winds"))
            return
        owns = self.owns
        first, second, third = _OTHERS[seat]
        claims = claim_window(pub, (owns[first], owns[second], owns[third]))
        if claims:
            self._claims = claims
            self._decisions = {}
            self._pending = dict(claims)
        elif pub.wall_left <= RESERVED:  # _no_claim(seat), inlined
            self._emit(ExhaustiveDraw())
            self._end(HandResult("exhaustive_draw"))
        else:
            self._draw((seat + 1) % 4)

    def _no_claim(self, discarder: int) -> None:
        """Nobody claimed the discard: the next seat draws, unless it was the last (R2)."""
        if self.public.wall_left <= RESERVED:  # R2: nobody won the last discard
            self._emit(ExhaustiveDraw())
            self._end(HandResult("exhaustive_draw"))
        else:
            self._draw((discarder + 1) % 4)

    def _decide(self, seat: int, action: Action) -> None:
        self._decisions[seat] = action
        del self._pending[seat]
        if not self._pending:
            self._resolve()

    def _resolve(self) -> None:
        """R5: win beats pung/kong beats chow; of several winners the first from the
        discarder's next seat wins. Choices that lose are void."""
        pub = self.public
        discarder, tile = pub.turn, TILES[pub.pending_tile]  # type: ignore[index]
        decisions, claims = self._decisions, self._claims
        # Every seat in ``claims`` (which is in priority order, from the discarder's next
        # seat) has decided; the other seats could only pass.
        for s in claims:
            if decisions[s] is WIN:
                self._win(s, tile, discarder)
                return
        taker = None
        for s in claims:
            if decisions[s].kind in _TAKES_ALL:
                taker = s
        if taker is None:
            first = (discarder + 1) % 4
            if first in claims and decisions[first].kind is ActionKind.CHOW:
                taker = first
        for s, options in claims.items():  # R9: passed wins and passed pungs
            could_pung = PUNG in options and decisions[s].kind not in _TAKES_ALL
            if options[0] is WIN or could_pung:
                self._emit(Declined(s, tile, options[0] is WIN, could_pung))
        self._claims, self._decisions = {}, {}
        if taker is None:
            self._no_claim(discarder)
            return
        chosen = decisions[taker]
        if chosen.kind is ActionKind.KONG:
            self._emit(ExposedKong(taker, tile, discarder))
            self._replace(taker)
            return
        if chosen.kind is ActionKind.PUNG:
            self._emit(Pung(taker, tile, discarder))
        else:
            self._emit(Chow(taker, tile, chosen.tiles, discarder))  # type: ignore[arg-type]
        self._open_turn()

    def situation(self, seat: int, tile: int, discarder: int | None) -> WinSituation:
        """The :class:`~protocol.scoring.WinSituation` of ``seat`` winning on ``tile`` now,
        with every flag derived from play (R2, R10, kong replacement)."""
        return own_situation(self.public, self.owns[seat], tile, discarder)

    def _win(self, seat: int, tile: int, discarder: int | None) -> None:
        situation = self.situation(seat, tile, discarder)
        score = self.scorer(situation)
        self._emit(Win(seat, TILES[tile], discarder, situation.concealed, situation.melds))
        result = HandResult(
            "win", tuple(score.payments), seat, discarder, TILES[tile], score.to_json()
        )
        self._end(result)

    def _end(self, result: HandResult) -> None:
        scores = tuple(s + p for s, p in zip(self.public.scores, result.payments, strict=True))
        self._emit(HandEnd(result, scores))
        self._pending = {}
        self._claims, self._decisions = {}, {}

    def _refusal(self, seat: object, action: object) -> IllegalActionError:
        if not isinstance(seat, int) or not 0 <= seat <= 3:
            return NotPendingError(seat, action, (), f"there is no seat {seat!r} (0..3)")  # type: ignore[arg-type]
        legal = self._pending.get(seat, ())
        if self.public.phase == OVER:
            return HandOverError(seat, action, (), "the hand is over")
        if not isinstance(action, Action):
            return IllegalActionError(seat, action, legal, "not an Action")
        if seat in self._decisions:
            return NotPendingError(seat, action, (), "you have already decided on this discard")
        reason = why_illegal(self.owns[seat], self.public, action)
        if not legal:
            if self.public.phase == CLAIMS and self.public.turn != seat:
                reason = f"you have no claim on this discard ({reason})"
            return NotPendingError(seat, action, (), reason)
        return IllegalActionError(seat, action, legal, reason)
