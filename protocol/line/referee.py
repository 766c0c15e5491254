"""The referee side of the line protocol: seats whose bots speak it (sans-I/O).

:class:`LineTable` keeps the physical tile ids of a table (:class:`TileIdTracker`) and
one :class:`LineServerSeat` per line-protocol seat. Feed every referee event (the full,
unprojected event) to :meth:`LineTable.feed`, which returns the lines for each seat;
:meth:`LineServerSeat.request` gives the first ``/ask`` of a decision and
:meth:`LineServerSeat.receive_line` reads each reply: :class:`NextAsk` (write the next
ask), :class:`Decided` (apply the action), or
:class:`~protocol.line.asks.LineReplyError` (apply the R17 default and report the
reason). The server's line seats and the arena's program seats both run on it.

>>> from protocol.actions import DISCARD
>>> from protocol.match import Match
>>> m = Match.new(5, 1)
>>> table = LineTable(m.physical_wall)
>>> seat = table.add_seat(0, "prog")
>>> seat.start_line()
'/start MJ 1 prog'
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from protocol.actions import (
    ADDED_KONG,
    CONCEALED_KONG,
    DISCARD,
    KONG,
    PASS,
    PUNG,
    WIN,
    Action,
    ActionKind,
)
from protocol.events import (
    AddedKong,
    Chow,
    ConcealedKong,
    Deal,
    Discard,
    Draw,
    Event,
    ExposedKong,
    HandStart,
    MatchEnd,
    Pung,
    Win,
)
from protocol.line.asks import KONGS, REPLY_OF_ASK, LineReplyError, LineStateError
from protocol.line.codec import (
    AskKind,
    AskLine,
    EatLine,
    EatReply,
    ExitLine,
    GongKind,
    GongLine,
    GongReply,
    HuLine,
    HuReply,
    InitCardLine,
    InitGameLine,
    LineParseError,
    MoLine,
    PassReply,
    PongLine,
    PongReply,
    ReadyLine,
    StartLine,
    ThrowLine,
    ThrowReply,
    parse_program_line,
)
from protocol.line.tile_ids import kind_of, tile_id
from protocol.tiles import KIND_COUNT, Tile
from protocol.wire.common import RejectReason

__all__ = [
    "Decided",
    "LineServerSeat",
    "LineTable",
    "NextAsk",
    "ReadyReply",
    "TileIdTracker",
]


class TileIdTracker:
    """The physical tile ids of one table's current hand (server side).

    Each tile keeps one id from the deal to the end of the hand, the same for every
    seat. Its copy digit belongs to the physical tile, never to the order in which the
    copies appear (that would tell a program that lower copies are already out of the
    wall):

    * given ``walls`` (``walls(hand_no)``: the hand's physical wall, numbers 0..135 with
      kind ``p // 4``, as :meth:`protocol.match.Match.physical_wall` gives), every tile
      dealt or drawn gets the id of its place in the wall (the server does this, so the
      ids follow from the match seed);
    * without it, the copies of each kind are numbered in a random order drawn per hand
      from ``seed`` (a fresh random seed if ``None``).

    Feed it every referee event, unprojected, in order (:meth:`apply`); it returns the ids
    the event's line names. When a line-protocol bot names the ids of its tiles, the seat
    calls :meth:`prefer` so that the echo and the hand use exactly those ids.

    >>> from protocol.match import Match
    >>> m = Match.new(5, 1)
    >>> t = TileIdTracker(m.physical_wall)
    >>> dealt = [t.apply(e) for e in m.events]
    >>> dealt[1] == tuple(tile_id(p // 4, p % 4) for p in m.physical_wall(0)[:17])
    True
    """

    def __init__(
        self,
        walls: Callable[[int], Sequence[int]] | None = None,
        seed: int | None = None,
    ) -> None:
        self.walls = walls
        self.seed = secrets.randbits(64) if seed is None else seed
        self.hands: list[list[int]] = [[], [], [], []]
        """Each seat's concealed tile ids."""
        self.out: set[int] = set()
        """The ids dealt or drawn so far this hand (no longer in the wall)."""
        self._reset(0)

    def _reset(self, hand_no: int) -> None:
        self.hands = [[], [], [], []]
        self.out = set()
        self._wall: list[int] = []
        if self.walls is not None:
            self._wall = [tile_id(p // 4, p % 4) for p in self.walls(hand_no)]
        rng = random.Random(f"{self.seed}/{hand_no}")
        self._copies = [rng.sample(range(4), 4) for _ in range(KIND_COUNT)]
        self._front, self._back = 0, len(self._wall)
        self._drawn: list[int | None] = [None] * 4
        self._discard: int | None = None
        self._prefer: dict[int, tuple[int, ...]] = {}

    def prefer(self, seat: int, ids: Iterable[int]) -> None:
        """Use these ids (if they fit) for ``seat``'s next discard, meld or kong."""
        self._prefer[seat] = tuple(ids)

    def _new(self, kind: int, *, back: bool = False) -> int:
        """The id of the next tile of ``kind`` taken from the wall (its front, or its
        back for a kong replacement)."""
        if self._wall:
            if self._front >= self._back:
                raise LineStateError("the wall is empty; feed every event of the hand")
            if back:
                self._back -= 1
                tid = self._wall[self._back]
            else:
                tid = self._wall[self._front]
                self._front += 1
            if kind_of(tid) != kind:
                raise LineStateError(f"the wall has {kind_of(tid)} where {Tile(kind)} was drawn")
        else:
            copies = self._copies[kind]
            if not copies:
                raise LineStateError(f"a fifth {Tile(kind)} appeared; feed every event")
            tid = tile_id(kind, copies.pop())
        self.out.add(tid)
        return tid

    def _take(self, seat: int, kind: int, n: int) -> list[int]:
        hand = self.hands[seat]
        first = [*self._prefer.get(seat, ()), self._drawn[seat]]
        ids = [t for t in first if t in hand and kind_of(t) == kind]
        ids += [t for t in hand if kind_of(t) == kind and t not in ids]  # held longest first:
        # never by copy digit, which would tell the others which copies the hand keeps
        if len(ids) < n:
            raise LineStateError(f"seat {seat} holds {len(ids)} of {Tile(kind)}, not {n}")
        for t in ids[:n]:
            hand.remove(t)
        return ids[:n]

    def apply(self, ev: Event) -> tuple[int, ...]:
        """Follow one referee event; return the ids its line names (see the module
        docstring of :mod:`protocol.line.codec` for which)."""
        ids = _TRACK[type(ev)](self, ev) if type(ev) in _TRACK else ()
        if ev.seat is not None and type(ev) is not Draw:
            self._prefer.pop(ev.seat, None)
        return ids

    def _hand_start(self, ev: HandStart) -> tuple[int, ...]:
        self._reset(ev.hand)
        return ()

    def _deal(self, ev: Deal) -> tuple[int, ...]:
        if ev.tiles is None:
            raise LineStateError("TileIdTracker needs the referee's full events, not a projection")
        self.hands[ev.seat] = [self._new(k) for k in ev.tiles]
        self._drawn[ev.seat] = self.hands[ev.seat][-1] if ev.count == 17 else None
        return tuple(self.hands[ev.seat])

    def _draw(self, ev: Draw) -> tuple[int, ...]:
        if ev.tile is None:
            raise LineStateError("TileIdTracker needs the referee's full events, not a projection")
        tid = self._new(ev.tile, back=ev.replacement)
        self.hands[ev.seat].append(tid)
        self._drawn[ev.seat] = tid
        return (tid,)

    def _discard_ev(self, ev: Discard) -> tuple[int, ...]:
        (self._discard,) = self._take(ev.seat, ev.tile, 1)
        self._drawn[ev.seat] = None
        return (self._discard,)

    def _chow(self, ev: Chow) -> tuple[int, ...]:
        (a,) = self._take(ev.seat, ev.tiles[0], 1)
        (b,) = self._take(ev.seat, ev.tiles[1], 1)
        return (a, self._discard, b)  # type: ignore[return-value]

    def _pung(self, ev: Pung) -> tuple[int, ...]:
        return tuple(sorted([*self._take(ev.seat, ev.tile, 2), self._discard]))  # type: ignore[list-item]

    def _exposed_kong(self, ev: ExposedKong) -> tuple[int, ...]:
        return tuple(sorted([*self._take(ev.seat, ev.tile, 3), self._discard]))  # type: ignore[list-item]

    def _added_kong(self, ev: AddedKong) -> tuple[int, ...]:
        return tuple(self._take(ev.seat, ev.tile, 1))

    def _concealed_kong(self, ev: ConcealedKong) -> tuple[int, ...]:
        if ev.tile is None:
            raise LineStateError("TileIdTracker needs the referee's full events, not a projection")
        return tuple(sorted(self._take(ev.seat, ev.tile, 4)))

    def _win(self, ev: Win) -> tuple[int, ...]:
        hand = self.hands[ev.seat]
        if ev.from_seat is not None:
            return (self._discard, *sorted(hand))  # type: ignore[return-value]
        win = self._drawn[ev.seat]
        if win is None or kind_of(win) != ev.tile:
            win = next(t for t in sorted(hand) if kind_of(t) == ev.tile)
        return (win, *sorted(t for t in hand if t != win))


_TRACK = {
    HandStart: TileIdTracker._hand_start,
    Deal: TileIdTracker._deal,
    Draw: TileIdTracker._draw,
    Discard: TileIdTracker._discard_ev,
    Chow: TileIdTracker._chow,
    Pung: TileIdTracker._pung,
    ExposedKong: TileIdTracker._exposed_kong,
    AddedKong: TileIdTracker._added_kong,
    ConcealedKong: TileIdTracker._concealed_kong,
    Win: TileIdTracker._win,
}


@dataclass(frozen=True, slots=True)
class NextAsk:
    """The reply passed on this ask; write ``line`` (the next ``/ask``) and wait again."""

    line: str


@dataclass(frozen=True, slots=True)
class Decided:
    """The seat's decision, to apply to the referee."""

    action: Action


@dataclass(frozen=True, slots=True)
class ReadyReply:
    """The program answered the ``/ready`` probe."""


class LineServerSeat:
    """A referee seat whose bot speaks the line protocol (sans-I/O; see the module
    docstring). Build it with :meth:`LineTable.add_seat`."""

    def __init__(self, seat: int, name: str, tracker: TileIdTracker) -> None:
        self.seat = seat
        self.name = name
        self.tracker = tracker
        self._legal: tuple[Action, ...] = ()
        self._asks: list[AskKind] = []
        self._claim_tile: Tile | None = None
        self._probing = False

    def start_line(self) -> str:
        """``/start MJ <seat> <name>``: the first line of the session."""
        return str(StartLine(self.seat, self.name))

    def probe(self) -> str:
        """The ``/ready`` probe; the answer reads as :class:`ReadyReply`."""
        self._probing = True
        return "/ready"

    def lines_for(self, ev: Event, ids: tuple[int, ...]) -> list[str]:
        """The lines this seat receives for referee event ``ev`` whose ids are ``ids``
        (what :meth:`TileIdTracker.apply` returned)."""
        seat, mine = ev.seat, ev.seat == self.seat
        if isinstance(ev, HandStart):
            # The round 1..4 (E, S, W, N), as the public referee writes it: a program
            # written for it may read the field as a number up to 4.
            wind, number = ev.round_wind, ev.round_wind - Tile.E + 1
            return [str(InitGameLine(wind, wind, number, ev.dealer))]
        if isinstance(ev, Deal):
            return [str(InitCardLine(ids))] if mine else []
        if isinstance(ev, Draw):
            return [str(MoLine(ids[0]))] if mine else []
        if isinstance(ev, Discard):
            return [str(ThrowLine(seat, ids[0]))]  # type: ignore[arg-type]
        if isinstance(ev, Chow):
            return [str(EatLine(seat, *ids))]  # type: ignore[arg-type]
        if isinstance(ev, Pung):
            return [str(PongLine(seat, ids))]  # type: ignore[arg-type]
        if isinstance(ev, ExposedKong | AddedKong | ConcealedKong):
            shown = ids if mine or not isinstance(ev, ConcealedKong) else ()
            return [str(GongLine(seat, _GONG_OF[type(ev)], shown))]  # type: ignore[arg-type]
        if isinstance(ev, Win):
            return [str(HuLine(seat, ids[0], ids[1:]))]  # type: ignore[arg-type]
        if isinstance(ev, MatchEnd):
            return [str(ExitLine())]
        return []

    @property
    def deciding(self) -> bool:
        """Whether an ``/ask`` awaits this seat's reply."""
        return bool(self._asks)

    def request(self, legal: Sequence[Action], claim_tile: int | None = None) -> str:
        """Start a decision over the referee's ``legal`` actions for this seat; return the
        first ``/ask`` line. ``claim_tile`` is the discard being claimed (``None`` on
        one's own turn); it is needed to check the tiles of a pung or kong reply."""
        self._legal = tuple(legal)
        claim = PASS in self._legal
        kinds = {a.kind for a in self._legal}
        if claim:
            wanted = [
                (AskKind.HU, ActionKind.WIN in kinds),
                (AskKind.GONG, ActionKind.KONG in kinds),
                (AskKind.PONG, ActionKind.PUNG in kinds),
                (AskKind.EAT, ActionKind.CHOW in kinds),
            ]
        else:
            wanted = [
                (AskKind.HU, ActionKind.WIN in kinds),
                (AskKind.GONG, bool(kinds & set(KONGS))),
                (AskKind.THROW, True),
            ]
        self._asks = [ask for ask, yes in wanted if yes]
        if not self._asks:
            raise LineStateError(f"nothing to ask seat {self.seat} about: {legal!r}")
        self._claim_tile = None if claim_tile is None else Tile(claim_tile)
        return str(AskLine(self._asks[0]))

    def cancel(self) -> None:
        """End the decision without an answer (the server applied the R17 default)."""
        self._asks = []

    def receive_line(self, line: str | bytes) -> NextAsk | Decided | ReadyReply:
        """Read one line from the program. Raises :class:`LineReplyError` (reason
        ``malformed``, ``not_legal`` or ``late``) when the reply cannot be applied; the
        decision is then over and the server applies the R17 default."""
        try:
            msg = parse_program_line(line)
        except LineParseError as exc:
            self._asks = []
            raise LineReplyError(RejectReason.MALFORMED, exc.reason, line) from None
        if isinstance(msg, ReadyLine) and self._probing:
            self._probing = False
            return ReadyReply()
        if not self._asks:
            raise LineReplyError(RejectReason.LATE, "no /ask is waiting for a reply", line)
        ask = self._asks.pop(0)
        try:
            action = self._read(ask, msg)
        except LineReplyError:
            self._asks = []
            raise
        if action is not None:
            self._asks = []
            return Decided(action)
        if self._asks:
            return NextAsk(str(AskLine(self._asks[0])))
        if PASS in self._legal:
            return Decided(PASS)
        raise LineReplyError(RejectReason.NOT_LEGAL, "/ask throw cannot be passed", line)

    def _read(self, ask: AskKind, msg: object) -> Action | None:
        if isinstance(msg, PassReply):
            return None
        expected = REPLY_OF_ASK[ask]
        if not isinstance(msg, expected):
            raise LineReplyError(RejectReason.NOT_LEGAL, f"{msg} does not answer /ask {ask}")
        ids = _reply_ids(msg)
        action = self._action_of(msg)
        if action not in self._legal:
            shown = ", ".join(map(str, self._legal))
            raise LineReplyError(RejectReason.NOT_LEGAL, f"{action} is not legal (legal: {shown})")
        missing = [t for t in ids if t not in self.tracker.hands[self.seat]]
        if missing:
            raise LineReplyError(
                RejectReason.NOT_LEGAL,
                f"tile id {missing[0]} is not in seat {self.seat + 1}'s hand",
            )
        self.tracker.prefer(self.seat, ids)
        return action

    def _action_of(self, msg: object) -> Action:
        if isinstance(msg, HuReply):
            return WIN
        if isinstance(msg, ThrowReply):
            return DISCARD[kind_of(msg.tile)]
        if isinstance(msg, EatReply):
            return Action.chow(kind_of(msg.tiles[0]), kind_of(msg.tiles[1]))
        kind = kind_of(msg.tiles[0])  # type: ignore[attr-defined]
        if isinstance(msg, PongReply | GongReply) and (
            isinstance(msg, PongReply) or msg.kind is GongKind.EXPOSED
        ):
            if kind != self._claim_tile:
                raise LineReplyError(
                    RejectReason.NOT_LEGAL, f"{kind} is not the discard {self._claim_tile}"
                )
            return PUNG if isinstance(msg, PongReply) else KONG
        assert isinstance(msg, GongReply)
        return (ADDED_KONG if msg.kind is GongKind.ADDED else CONCEALED_KONG)[kind]


def _reply_ids(msg: object) -> tuple[int, ...]:
    if isinstance(msg, ThrowReply):
        return (msg.tile,)
    return tuple(getattr(msg, "tiles", ()))


_GONG_OF = {
    ExposedKong: GongKind.EXPOSED,
    AddedKong: GongKind.ADDED,
    ConcealedKong: GongKind.CONCEALED,
}


class LineTable:
    """The line-protocol seats of one table and their shared tile ids (server side).

    Feed every referee event of the table, unprojected, to :meth:`feed` (also for tables
    where only some seats speak the line protocol): it returns the lines to write to
    each line-protocol seat. ``walls`` and ``seed`` choose the tile ids
    (:class:`TileIdTracker`): a server passes its match's
    :meth:`~protocol.match.Match.physical_wall`.
    """

    def __init__(
        self,
        walls: Callable[[int], Sequence[int]] | None = None,
        seed: int | None = None,
    ) -> None:
        self.tracker = TileIdTracker(walls, seed)
        self.seats: dict[int, LineServerSeat] = {}

    def add_seat(self, seat: int, name: str) -> LineServerSeat:
        """Seat a line-protocol bot at ``seat`` (0..3)."""
        if seat in self.seats:
            raise LineStateError(f"seat {seat} is already a line-protocol seat")
        self.seats[seat] = LineServerSeat(seat, name, self.tracker)
        return self.seats[seat]

    def feed(self, ev: Event) -> dict[int, list[str]]:
        """Follow one referee event; the lines each line-protocol seat receives."""
        ids = self.tracker.apply(ev)
        return {s: seat.lines_for(ev, ids) for s, seat in self.seats.items()}
