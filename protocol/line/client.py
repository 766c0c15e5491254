"""The client side of the line protocol: a bot behind it (sans-I/O).

The line protocol sends no legal actions and no other seat's draws, so
:class:`LineClientAdapter` keeps the seat's state with the referee's own code
(:class:`~protocol.view.SeatView` and :func:`protocol.rules.legal_actions`) and maps the
sequence of ``/ask`` lines of a decision (:mod:`protocol.line.asks`) onto the referee's
single decision.

Feed it every line read with :meth:`~LineClientAdapter.receive_line`; it returns the
referee events the seat may see (the same values the referee's projection has) and an
:class:`~protocol.wire.common.ActionRequest` with the exact legal actions at the first
``/ask`` of a decision (and the ``hand_end`` and ``match_end`` the protocol does not
send, scored by the seat: :mod:`protocol.line.hand_end`). Answer with
:meth:`~LineClientAdapter.send_action`, which returns the line to write, with concrete
tile ids from the seat's hand; the follow-up asks of the same decision are answered from
that action without asking the bot again: write :meth:`~LineClientAdapter.lines_to_send`
after every :meth:`~LineClientAdapter.receive_line`.

>>> client = LineClientAdapter()
>>> client.receive_line("/start MJ 1 bot")
[SessionStart(seat=0, name='bot', match_id='', table_id='', config={}, resumed=False)]
>>> client.receive_line("/ready"), client.lines_to_send()
([], ['/ready'])
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Sequence

from protocol.actions import DISCARD, PASS, PUNG, WIN, Action, ActionKind
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
from protocol.line.asks import (
    LineActionError,
    LineSessionError,
    LineStateError,
    answerable,
    still_answerable,
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
    MoLine,
    PongLine,
    PongReply,
    ReadyLine,
    StartLine,
    ThrowLine,
    ThrowReply,
    parse_referee_line,
)
from protocol.line.hand_end import ScoreKeeper
from protocol.line.tile_ids import kind_of
from protocol.match import hand_plan
from protocol.melds import Meld, MeldKind
from protocol.tiles import Tile
from protocol.view import CLAIMS, KONG_REPLACEMENT, OVER, SeatView
from protocol.wire.common import (
    DECISION_SECONDS,
    ActionRequest,
    SessionEnd,
    SessionStart,
    WireInput,
)

__all__ = ["LineClientAdapter"]

log = logging.getLogger(__name__)


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
            if still_answerable(chosen, ask, self._claim):
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
        offered = tuple(a for a in legal if still_answerable(a, ask, claim)) or legal
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
