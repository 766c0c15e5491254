"""Sans-I/O adapters between the line protocol and the referee's values.

The line protocol sends no legal actions and no other seat's draws, so both adapters keep
state with the referee's own code (:class:`~protocol.view.SeatView` and
:func:`protocol.rules.legal_actions`) and map the protocol's sequence of ``/ask`` lines
onto the referee's single decision:

* own turn: ``/ask hu`` (only if a win is legal), ``/ask gong`` (only if a concealed or
  added kong is legal), ``/ask throw``;
* another seat's discard: ``/ask hu``, ``/ask gong`` (exposed kong), ``/ask pong``,
  ``/ask eat``, each only if legal.

Each ``/ask`` gets exactly one line. The first answer that is not ``/pass`` is the seat's
decision; ``/pass`` to every ask of a discard is a pass.

**Client** (a bot behind the line protocol): :class:`LineClientAdapter`. Feed it every
line read with :meth:`~LineClientAdapter.receive_line`; it returns the referee events the
seat may see (the same values the referee's projection has) and an
:class:`~protocol.wire.common.ActionRequest` with the exact legal actions at the first
``/ask`` of a decision (and the ``hand_end`` and ``match_end`` the protocol does not
send, scored by the seat: :mod:`protocol.line.hand_end`). Answer with
:meth:`~LineClientAdapter.send_action`, which returns
the line to write, with concrete tile ids from the seat's hand; the follow-up asks of the
same decision are answered from that action without asking the bot again: write
:meth:`~LineClientAdapter.lines_to_send` after every :meth:`receive_line`.

**Server** (a referee seat whose bot speaks the line protocol): :class:`LineTable` keeps
the physical tile ids of a table (:class:`TileIdTracker`) and one
:class:`LineServerSeat` per line-protocol seat. Feed every referee event (the full,
unprojected event) to :meth:`LineTable.feed`, which returns the lines for each seat;
:meth:`LineServerSeat.request` gives the first ``/ask`` of a decision and
:meth:`LineServerSeat.receive_line` reads each reply: :class:`NextAsk` (write the next
ask), :class:`Decided` (apply the action), or :class:`LineReplyError` (apply the R17
default and report the reason).

>>> client = LineClientAdapter()
>>> client.receive_line("/start MJ 1 bot")
[SessionStart(seat=0, name='bot', match_id='', table_id='', config={}, resumed=False)]
>>> client.receive_line("/ready"), client.lines_to_send()
([], ['/ready'])
"""

from __future__ import annotations

import logging
import random
import secrets
from collections import Counter
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
    Declined,
    Discard,
    Draw,
    Event,
    ExhaustiveDraw,
    ExposedKong,
    FourWindsAbort,
    HandStart,
    MatchEnd,
    Pung,
    Win,
)
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
    parse_referee_line,
)
from protocol.line.hand_end import ScoreKeeper
from protocol.line.tile_ids import LineError, kind_of, tile_id
from protocol.match import hand_plan
from protocol.melds import Meld, MeldKind
from protocol.tiles import KIND_COUNT, Tile
from protocol.view import CLAIMS, KONG_REPLACEMENT, OVER, SeatView
from protocol.wire.common import (
    DECISION_SECONDS,
    ActionRequest,
    RejectReason,
    SessionEnd,
    SessionStart,
    WireInput,
)

__all__ = [
    "CLAIM_ASK_ORDER",
    "REPLY_OF_ASK",
    "TURN_ASK_ORDER",
    "Decided",
    "LineActionError",
    "LineClientAdapter",
    "LineReplyError",
    "LineServerSeat",
    "LineStateError",
    "LineTable",
    "NextAsk",
    "ReadyReply",
    "TileIdTracker",
    "answerable",
]

log = logging.getLogger(__name__)

TURN_ASK_ORDER: dict[AskKind, int] = {AskKind.HU: 0, AskKind.GONG: 1, AskKind.THROW: 2}
"""The order of the asks of one's own turn (the rank of each)."""
CLAIM_ASK_ORDER: dict[AskKind, int] = {
    AskKind.HU: 0,
    AskKind.GONG: 1,
    AskKind.PONG: 1,
    AskKind.EAT: 2,
}
"""The order of the asks on a discard (pong and gong share a rank: either may come first)."""

_KONGS = (ActionKind.CONCEALED_KONG, ActionKind.ADDED_KONG)


class LineStateError(LineError):
    """A line does not fit the state of the session (for example ``/initCard`` before
    ``/initGame``, or a second ``/ask`` before the first was answered)."""


class LineActionError(LineError):
    """The bot's action cannot answer the current ``/ask`` (not legal, or no ask)."""


class LineSessionError(LineStateError):
    """The referee's lines leave the session unable to go on (an ``/ask throw`` for a
    hand the seat never got, a ``/start`` that moves the seat in the middle of a hand):
    ``fatal``, so it ends the session as a protocol error even when unreadable lines are
    otherwise skipped."""

    fatal = True


class LineReplyError(LineError):
    """A program's reply was refused; ``reason`` (:class:`RejectReason`) says why. The
    server applies the seat's R17 default and may report the reason."""

    def __init__(self, reason: RejectReason, message: str, line: object = None) -> None:
        self.reason = reason
        self.line = line
        super().__init__(f"{reason.value}: {message}" + (f" (line {line!r})" if line else ""))


def answerable(action: Action, ask: AskKind) -> bool:
    """Whether ``action`` is written as the answer to ``ask`` (else the answer is /pass).

    >>> answerable(PUNG, AskKind.PONG), answerable(PUNG, AskKind.EAT)
    (True, False)
    """
    kind = action.kind
    if ask is AskKind.HU:
        return kind is ActionKind.WIN
    if ask is AskKind.GONG:
        return kind in _KONGS or kind is ActionKind.KONG
    if ask is AskKind.PONG:
        return kind is ActionKind.PUNG
    if ask is AskKind.EAT:
        return kind is ActionKind.CHOW
    return kind is ActionKind.DISCARD


def _still_answerable(action: Action, ask: AskKind, claim: bool) -> bool:
    """Whether ``action`` can be answered by ``ask`` or by an ask that may follow it."""
    order = CLAIM_ASK_ORDER if claim else TURN_ASK_ORDER
    here = order.get(ask, 0)
    if action is PASS:
        return claim
    return any(answerable(action, a) for a, rank in order.items() if rank >= here)


# --- client ----------------------------------------------------------------------------


class LineClientAdapter:
    """A bot's side of the line protocol (sans-I/O); see the module docstring.

    ``seat`` and ``view`` (the seat's :class:`~protocol.view.SeatView`, rebuilt from the
    events returned so far) are available after ``/start`` and ``/initGame``;
    ``hand_ids`` are the physical ids of the seat's concealed tiles.
    """

    def __init__(self, decision_seconds: float = DECISION_SECONDS) -> None:
        self.decision_seconds = decision_seconds
        self.seat: int | None = None
        self.view: SeatView | None = None
        self.hand_ids: list[int] = []
        self.hands_started = 0
        self._out: list[str] = []
        self._dealer: int | None = None
        self._discard_id: int | None = None
        self._drawn_id: int | None = None
        self._request: ActionRequest | None = None
        self._claim: bool = False
        self._ask: AskKind | None = None
        self._chosen: Action | None = None
        self._sent: Action | None = None
        self._requests = 0
        self.keeper = ScoreKeeper()
        """The scores, hand by hand (the line protocol sends none)."""

    # -- public API --

    def receive_line(self, line: str | bytes) -> list[WireInput]:
        """Read one referee line; return what the bot should see, in order. Raises
        :class:`~protocol.line.codec.LineParseError` for a malformed line and
        :class:`LineStateError` for a line that does not fit the session."""
        msg = parse_referee_line(line)
        if isinstance(msg, AskLine):
            return self._on_ask(msg.kind)
        if isinstance(msg, ReadyLine):
            self._out.append("/ready")
            return []
        if isinstance(msg, StartLine):
            view = self.view
            if view is not None and msg.seat != self.seat and view.public.phase != OVER:
                raise LineSessionError(
                    f"/start moved the seat from {self.seat + 1} to {msg.seat + 1} "
                    "in the middle of a hand"
                )
            self.seat, self.hands_started = msg.seat, 0
            self.keeper.reset()
            return [SessionStart(msg.seat, msg.name)]
        if isinstance(msg, ExitLine):
            if self.view is None:
                return [SessionEnd(msg.word)]
            ended = self._applied(_unfinished_end(self.view))
            ended += self._applied([MatchEnd(self.keeper.scores)])
            return [*ended, SessionEnd(msg.word)]
        out: list[WireInput] = []
        self._close_decision(out, won=isinstance(msg, HuLine) and self._on_discard(msg))
        handler = _CLIENT_HANDLERS[type(msg)]
        handler(self, msg, out)
        return self._applied(out)

    def _applied(self, items: Sequence[WireInput]) -> list[WireInput]:
        """``items`` with their events taken in by the seat's view, each event that ends
        a hand followed by the ``hand_end`` the line protocol does not send, scored by
        the seat (:class:`~protocol.line.hand_end.ScoreKeeper`)."""
        view = self.view
        if view is None:
            return list(items)
        out: list[WireInput] = []
        for item in items:
            if not isinstance(item, Event):
                out.append(item)
                continue
            end = self.keeper.end_of(view, item) if isinstance(item, _HAND_ENDINGS) else None
            view.apply(item)
            out.append(item)
            if end is not None:
                view.apply(end)
                out.append(end)
        return out

    def send_action(self, action: Action) -> str:
        """The line that answers the outstanding ``/ask`` with the bot's ``action`` (one
        of the request's legal actions); later asks of the same decision are answered
        from it automatically. Raises :class:`LineActionError`."""
        request, ask = self._request, self._ask
        if request is None or ask is None:
            raise LineActionError("there is no /ask to answer")
        if action not in request.legal:
            shown = ", ".join(map(str, request.legal))
            raise LineActionError(f"{action} is not legal now (legal: {shown})")
        self._chosen = action
        self._ask = None
        return self._answer(ask, action)

    def watch_answer(self, action: Action) -> None:
        """Note the answer a program gave to the last ``/ask`` when this adapter only
        watches it (the conformance kit feeds it the referee's other lines): the passed
        win and pung records (R9) then follow what the program did."""
        view = self._need_view("an answer")
        self._claim = view.public.phase == CLAIMS
        if action is not PASS:
            self._sent = action

    def lines_to_send(self) -> list[str]:
        """Lines the adapter wrote by itself (``/ready`` answers, follow-up asks), in
        order; drains the queue."""
        out, self._out = self._out, []
        return out

    @property
    def pending_request(self) -> ActionRequest | None:
        """The request whose ``/ask`` awaits :meth:`send_action`, if any."""
        return self._request if self._ask is not None else None

    # -- asks --

    def _on_ask(self, ask: AskKind) -> list[WireInput]:
        view = self._need_view("/ask")
        if self._ask is not None:
            raise LineStateError(f"/ask {ask} before the previous /ask {self._ask} was answered")
        chosen = self._chosen
        if chosen is not None and self._request is not None:
            if _still_answerable(chosen, ask, self._claim):
                self._out.append(self._answer(ask, chosen))
                return []
            log.warning(
                "line protocol: %s cannot answer /ask %s; asking the bot again", chosen, ask
            )
        legal = view.legal_actions()
        claim = view.public.phase == CLAIMS
        if not legal:  # the referee asks although our rules see nothing to decide
            log.warning("line protocol: /ask %s but no legal action in the seat's view", ask)
            legal = _fallback_options(ask, view)
        if self._request is None:
            self._claim = claim
        offered = tuple(a for a in legal if _still_answerable(a, ask, claim)) or legal
        self._requests += 1
        drawn = view.own.drawn
        self._request = ActionRequest(
            str(self._requests),
            view.seat,
            offered,
            self.decision_seconds,
            None if claim or drawn is None else Tile(drawn),
        )
        self._ask, self._chosen = ask, None
        return [self._request]

    def _answer(self, ask: AskKind, action: Action) -> str:
        if not answerable(action, ask):
            return "/pass"
        self._sent = action
        kind = action.kind
        if kind is ActionKind.WIN:
            return str(HuReply())
        if kind is ActionKind.DISCARD:
            return str(ThrowReply(self._pick(action.tile, 1, discard=True)[0]))  # type: ignore[arg-type]
        if kind is ActionKind.CHOW:
            a, b = action.tiles  # type: ignore[misc]
            return str(EatReply((self._pick(a, 1)[0], self._pick(b, 1)[0])))
        tile = self._discard_kind() if kind in (ActionKind.PUNG, ActionKind.KONG) else action.tile
        if kind is ActionKind.PUNG:
            return str(PongReply(self._pick(tile, 2)))  # type: ignore[arg-type]
        if kind is ActionKind.KONG:
            return str(GongReply(GongKind.EXPOSED, self._pick(tile, 3)))  # type: ignore[arg-type]
        if kind is ActionKind.ADDED_KONG:
            return str(GongReply(GongKind.ADDED, self._pick(tile, 1)))  # type: ignore[arg-type]
        return str(GongReply(GongKind.CONCEALED, self._pick(tile, 4)))  # type: ignore[arg-type]

    def _discard_kind(self) -> Tile:
        view = self._need_view("a claim")
        return Tile(view.public.pending_tile)  # type: ignore[arg-type]

    def _pick(self, kind: int, n: int, *, discard: bool = False) -> tuple[int, ...]:
        """``n`` ids of ``kind`` from the hand: for a discard the tile just drawn if it is
        of that kind, else the ones held longest. Never chosen by copy digit: always
        playing the lowest copy would tell the others which copies the hand still holds."""
        ids = [t for t in self.hand_ids if kind_of(t) == kind]
        drawn = self._drawn_id
        if discard and drawn in ids:
            ids.remove(drawn)  # type: ignore[arg-type]
            ids.insert(0, drawn)  # type: ignore[arg-type]
        if len(ids) < n:
            raise LineActionError(f"the hand holds {len(ids)} of {Tile(kind)}, not {n}")
        return tuple(ids[:n])

    # -- events --

    def _need_view(self, what: str) -> SeatView:
        if self.view is None:
            raise LineStateError(f"{what} before /start and /initGame")
        return self.view

    def _close_decision(self, out: list[WireInput], *, won: bool) -> None:
        """A non-ask line ends the current decision. After a discard the referee records
        a passed win or pung (R9) for a seat that could have won or punged and did not;
        emit the same :class:`Declined` (from the view's own legal list) unless the hand
        ends with a win."""
        view = self.view
        if view is not None and not won and view.public.phase == CLAIMS:
            legal = view.legal_actions()
            chosen = self._sent if self._claim and self._sent is not None else PASS
            could_win = bool(legal) and legal[0] is WIN
            could_pung = PUNG in legal and chosen.kind not in (ActionKind.PUNG, ActionKind.KONG)
            if could_win or could_pung:
                tile = Tile(view.public.pending_tile)  # type: ignore[arg-type]
                out.append(Declined(view.seat, tile, could_win, could_pung))
        if self._ask is not None:
            log.warning("line protocol: /ask %s was never answered", self._ask)
        self._request, self._ask, self._chosen, self._sent = None, None, None, None

    def _implied_draw(self, seat: int, out: list[WireInput]) -> None:
        """Another seat acting on its turn after a discard or a kong must have drawn."""
        view = self._need_view("a move")
        phase = view.public.phase
        if seat != view.seat and phase in (CLAIMS, KONG_REPLACEMENT):
            out.append(Draw(seat, phase == KONG_REPLACEMENT))

    def _remove(self, ids: Iterable[int]) -> None:
        for t in ids:
            if t in self.hand_ids:
                self.hand_ids.remove(t)
                continue
            same = [h for h in self.hand_ids if kind_of(h) == kind_of(t)]
            if not same:
                raise LineStateError(f"tile {t} ({kind_of(t)}) is not in the seat's hand")
            log.warning("line protocol: tile id %s not in hand; removing %s", t, same[0])
            self.hand_ids.remove(same[0])

    def _mine(self, seat: int) -> bool:
        return seat == self.seat

    def _on_init_game(self, msg: InitGameLine, out: list[WireInput]) -> None:
        if self.seat is None:
            raise LineStateError("/initGame before /start")
        if self.view is None:
            self.view = SeatView(self.seat)
        else:
            out.extend(_unfinished_end(self.view))
        self.hand_ids, self._discard_id, self._drawn_id = [], None, None
        self._dealer = msg.dealer
        # R16: hand k has the round wind of k // 4. The public referee writes "East
        # East" for every hand (tcga-line-protocol.md), so the round's wind is the later
        # of the line's and the one the hands seen since /start give.
        round_wind = max(msg.round_wind, hand_plan(self.hands_started)[1])
        out.append(HandStart(self.hands_started, msg.dealer, round_wind, self.keeper.scores))
        self.hands_started += 1

    def _on_init_card(self, msg: InitCardLine, out: list[WireInput]) -> None:
        view, dealer = self._need_view("/initCard"), self._dealer
        if dealer is None or view.public.phase != 0:
            raise LineStateError("/initCard outside a deal (it follows /initGame)")
        want = 17 if view.seat == dealer else 16
        if len(msg.tiles) != want:
            raise LineStateError(
                f"seat {view.seat + 1} is dealt {want} tiles, not {len(msg.tiles)}"
            )
        self.hand_ids = list(msg.tiles)
        self._drawn_id = msg.tiles[-1] if want == 17 else None
        for i in range(4):
            seat = (dealer + i) % 4
            if seat == view.seat:
                out.append(Deal(seat, want, tuple(kind_of(t) for t in msg.tiles)))
            else:
                out.append(Deal(seat, 17 if i == 0 else 16))

    def _on_mo(self, msg: MoLine, out: list[WireInput]) -> None:
        view = self._need_view("/mo")
        self.hand_ids.append(msg.tile)
        self._drawn_id = msg.tile
        replacement = view.public.phase == KONG_REPLACEMENT
        out.append(Draw(view.seat, replacement, kind_of(msg.tile)))

    def _on_throw(self, msg: ThrowLine, out: list[WireInput]) -> None:
        self._implied_draw(msg.seat, out)
        if self._mine(msg.seat):
            self._remove((msg.tile,))
            self._drawn_id = None
        self._discard_id = msg.tile
        out.append(Discard(msg.seat, kind_of(msg.tile)))

    def _from(self) -> int:
        return self._need_view("a claim").public.turn

    def _on_eat(self, msg: EatLine, out: list[WireInput]) -> None:
        ids = [msg.own_a, msg.taken, msg.own_b]
        taken = self._discard_id if self._discard_id in ids else msg.taken  # any order
        ids.remove(taken)  # type: ignore[arg-type]
        if self._mine(msg.seat):
            self._remove(ids)
        a, b = sorted(kind_of(t) for t in ids)
        out.append(Chow(msg.seat, kind_of(taken), (a, b), self._from()))  # type: ignore[arg-type]

    def _own_part(self, ids: Sequence[int], n: int) -> list[int]:
        own = [t for t in ids if t != self._discard_id]
        return own[:n] if len(own) >= n else list(ids[:n])

    def _on_pong(self, msg: PongLine, out: list[WireInput]) -> None:
        if self._mine(msg.seat):
            self._remove(self._own_part(msg.tiles, 2))
        out.append(Pung(msg.seat, kind_of(msg.tiles[0]), self._from()))

    def _on_gong(self, msg: GongLine, out: list[WireInput]) -> None:
        seat, mine = msg.seat, self._mine(msg.seat)
        if msg.kind is GongKind.EXPOSED:
            if mine:
                self._remove(self._own_part(msg.tiles, 3))
            out.append(ExposedKong(seat, kind_of(msg.tiles[0]), self._from()))
            return
        self._implied_draw(seat, out)
        if msg.kind is GongKind.ADDED:
            if mine:
                self._remove(msg.tiles)
            out.append(AddedKong(seat, kind_of(msg.tiles[0])))
            return
        tile = kind_of(msg.tiles[0]) if msg.tiles else None
        if mine:
            if tile is None:
                raise LineStateError("one's own concealed kong must name its tiles")
            self._remove(msg.tiles)
            view = self._need_view("/gong")
            legal = view.legal_actions()
            if legal and legal[0] is WIN:  # R9: a kong instead of a win is a passed win
                out.append(Declined(seat, Tile(view.own.drawn), True, False))  # type: ignore[arg-type]
        out.append(ConcealedKong(seat, tile if mine else None))

    def _on_discard(self, msg: HuLine) -> bool:
        """Whether ``/hu`` is a win on the pending discard (else a self-draw)."""
        pub = self._need_view("/hu").public
        return pub.phase == CLAIMS and msg.win_tile == self._discard_id and msg.seat != pub.turn

    def _on_hu(self, msg: HuLine, out: list[WireInput]) -> None:
        view = self._need_view("/hu")
        pub = view.public
        on_discard = self._on_discard(msg)
        if not on_discard:
            self._implied_draw(msg.seat, out)
        melds = tuple(view.melds(msg.seat))
        kinds = [kind_of(t) for t in (*msg.rest, msg.win_tile)]
        concealed, kongs = _concealed_part(kinds, melds, _set_count(view, msg.seat))
        hand = tuple(sorted(concealed))
        melds += tuple(Meld(MeldKind.CONCEALED_KONG, k) for k in kongs)  # listed by /hu
        source = pub.turn if on_discard else None
        out.append(Win(msg.seat, kind_of(msg.win_tile), source, hand, melds))


def _set_count(view: SeatView, seat: int) -> int:
    """How many sets ``seat`` has declared: its melds and its concealed kongs."""
    pub = view.public
    hidden = 0 if seat == view.seat else pub.concealed_kongs[seat]
    return len(view.melds(seat)) + hidden


def _concealed_part(
    kinds: list[Tile], melds: Sequence[Meld], sets: int
) -> tuple[list[Tile], list[Tile]]:
    """The winner's concealed tiles (the winning tile included) among the kinds a
    ``/hu`` line lists, and the kinds of the concealed kongs it revealed. A winner with
    ``sets`` declared sets holds ``17 - 3 * sets``. A referee that also lists the tiles
    of the declared sets (a kong adds one: up to 21 ids) has them taken out: those of
    ``melds`` by kind, and for each concealed kong this seat never saw (``sets`` beyond
    ``melds``) the first kind listed four times, which is that kong's."""
    want = 17 - 3 * sets
    if len(kinds) <= want:
        return kinds, []
    rest = Counter(kinds)
    for meld in melds:
        rest.subtract(meld.tiles)
    kongs: list[Tile] = []
    for _ in range(sets - len(melds)):  # another seat's concealed kongs
        four = next((k for k in sorted(rest) if rest[k] >= 4), None)
        if four is not None:
            rest[four] -= 4
            kongs.append(four)
    if min(rest.values(), default=0) < 0 or rest.total() != want:
        raise LineStateError(
            f"/hu lists {len(kinds)} tiles: neither the {want} concealed ones of a winner "
            f"with {sets} declared sets nor those and the sets' tiles"
        )
    return sorted(rest.elements()), kongs


_HAND_ENDINGS = (Win, ExhaustiveDraw, FourWindsAbort)
"""The events after which the referee sends ``hand_end``."""


def _unfinished_end(view: SeatView) -> list[Event]:
    """The end of a hand the line protocol does not announce: a draw (R2), or the four
    winds abort (R4) when the first four discards were the same wind."""
    pub = view.public
    if pub.phase in (OVER, 0) or pub.match_over:
        return []
    opening = pub.opening_discards
    winds = len(opening) == 4 and len(set(opening)) == 1 and Tile.E <= opening[0] <= Tile.N
    if pub.first_round and winds:
        return [FourWindsAbort()]
    return [ExhaustiveDraw()]


_CLIENT_HANDLERS = {
    InitGameLine: LineClientAdapter._on_init_game,
    InitCardLine: LineClientAdapter._on_init_card,
    MoLine: LineClientAdapter._on_mo,
    ThrowLine: LineClientAdapter._on_throw,
    EatLine: LineClientAdapter._on_eat,
    PongLine: LineClientAdapter._on_pong,
    GongLine: LineClientAdapter._on_gong,
    HuLine: LineClientAdapter._on_hu,
}


# --- server ----------------------------------------------------------------------------


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
                (AskKind.GONG, bool(kinds & set(_KONGS))),
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
REPLY_OF_ASK: dict[AskKind, type] = {
    AskKind.HU: HuReply,
    AskKind.GONG: GongReply,
    AskKind.PONG: PongReply,
    AskKind.EAT: EatReply,
    AskKind.THROW: ThrowReply,
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


def _fallback_options(ask: AskKind, view: SeatView) -> tuple[Action, ...]:
    """What to offer the bot for an ``/ask`` our rules see nothing to decide on: by the
    word the referee asked (a throw can never be passed), a discard of any kind held;
    else a pass. Raises :class:`LineSessionError` for a throw with no tile known (the
    seat's ``/initCard`` was never read): no answer would be a tile of its hand."""
    if ask is not AskKind.THROW:
        return (PASS,)
    kinds = sorted(set(view.hand))
    if not kinds:
        raise LineSessionError(
            "/ask throw, but the seat holds no tile it knows of (was its /initCard unreadable?)"
        )
    return tuple(DISCARD[k] for k in kinds)
