"""What the browser viewer shows at every step of a record, computed here in Python.

The viewer's JavaScript computes nothing of the rules: this module replays the record's
events through the referee's own handlers (:class:`protocol.view.SeatView` fed each
seat's projection, :func:`protocol.events.project`) and writes down, for every step, the
table as plain JSON values: each seat's concealed tiles (when the chosen perspective may
see them), melds, river with the claimed discards marked, the wall count, the scores,
the seat to act, a sentence for the event, the decisions asked at that step, and each
hand's result with its tai items.

Three perspectives, each holding only what it may know (nothing else is written out):

* every seat (``seat=None``): every seat's concealed tiles, every decision (a finished
  record: the referee knew all of it);
* a seat number: that seat's view only, as its bot saw it, and its own decisions;
* ``spectator=True``: public information only (no concealed tile, no wall, no
  decision), what a live match may show while it runs.

The frames are built one hand at a time (:func:`split_hands`, :func:`build_hand`), so
a page can hold, or a server send, just the hand being looked at.

>>> from protocol.match import Match
>>> m = Match.new(seed=2, hands=1)
>>> hand = build_hand(m.events, names=("a", "b", "c", "d"), hand=0, spectator=True)
>>> [hand.states[i]["hand"] for i in hand.steps[-1]["seats"]]
[None, None, None, None]
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

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
    project,
)
from protocol.melds import Meld, MeldKind
from protocol.tiles import TILE_COUNT
from protocol.view import CLAIMS, DEALING, OVER, PublicState, SeatView, apply_public
from protocol.wall import RESERVED
from sdk.records.views import NOBODY

if TYPE_CHECKING:
    from sdk.records import Decision

__all__ = [
    "HandFrames",
    "build_decisions",
    "build_hand",
    "describe",
    "result_json",
    "seen_count",
    "split_hands",
]

Frame = dict[str, Any]


def split_hands(events: Sequence[Event]) -> list[int]:
    """Where each hand's events begin: ``events[b[h]:b[h + 1]]`` is hand ``h`` (0-based)
    from its :class:`HandStart` to the next one (the last also holds the match end; the
    first anything before its start). A match not started yet is one empty hand.

    >>> from protocol.match import Match
    >>> split_hands(Match.new(seed=2, hands=1).events)
    [0]
    """
    begins = [i for i, e in enumerate(events) if type(e) is HandStart]
    if not begins or begins[0] != 0:
        begins.insert(0, 0)
    return begins


class HandFrames:
    """The frames of one hand as one perspective sees it, built event by event (the
    live view feeds it as the match goes on).

    ``steps[k]`` is the table after the ``k``-th event of the hand that perspective sees
    (the first hand also has the table before any event); events it does not see
    (another seat's :class:`Declined`) get no frame, so not even their number shows.
    ``at[i]`` is the step showing the table after the hand's first ``i`` events (for
    placing decisions). A frame's ``seats`` are four indices into ``states``: a seat's
    state is written once and shared by the frames where it does not change.

    A hand starts from its :class:`HandStart` alone (it carries the scores so far), so
    any hand can be built without the ones before it.

    >>> from protocol.match import Match
    >>> m = Match.new(seed=2, hands=1)
    >>> frames = HandFrames(names=("a", "b", "c", "d"), hand=0)
    >>> for e in m.events:
    ...     frames.feed(e)
    >>> last = frames.steps[-1]
    >>> len(frames.steps), last["wall"], [len(frames.states[i]["hand"]) for i in last["seats"]]
    (6, 71, [16, 16, 16, 16])
    >>> frames.states[last["seats"][0]]["drawn"] is not None  # the dealer's 17th tile
    True
    >>> spy = HandFrames(names=("a", "b", "c", "d"), hand=0, spectator=True)
    >>> for e in m.events:
    ...     spy.feed(e)
    >>> [spy.states[i]["count"] for i in spy.steps[-1]["seats"]]
    [17, 16, 16, 16]
    """

    def __init__(
        self,
        *,
        names: Sequence[str],
        hand: int,
        seat: int | None = None,
        spectator: bool = False,
        wall: Sequence[int] | None = None,
    ) -> None:
        looker = NOBODY if spectator else seat
        self._tracker = _Tracker(looker, names, wall if looker is None else None, hand)
        self.steps: list[Frame] = [] if hand else [self._tracker.snapshot(None)]
        self.at: list[int] = [len(self.steps) - 1]
        self.states = self._tracker.states

    def feed(self, event: Event) -> None:
        """Add ``event`` (the next of the hand)."""
        seen = self._tracker.apply(event)
        if seen is not None:
            self.steps.append(self._tracker.snapshot(seen))
        self.at.append(len(self.steps) - 1)


def build_hand(
    events: Sequence[Event],
    *,
    names: Sequence[str],
    hand: int,
    seat: int | None = None,
    spectator: bool = False,
    wall: Sequence[int] | None = None,
) -> HandFrames:
    """The frames of one hand's ``events`` (see :func:`split_hands`) for one
    perspective: ``seat`` (``None``: every seat) or ``spectator`` (public information
    only; it overrides ``seat``). ``wall`` (the hand's 136 tiles, front first; used only
    with every seat shown, and only when the deal and draws took exactly its tiles) adds
    to each frame the part of the wall still there, as ``wall_cut``."""
    shown = wall is not None and _wall_matches(wall, events)
    frames = HandFrames(
        names=names, hand=hand, seat=seat, spectator=spectator, wall=wall if shown else None
    )
    for event in events:
        frames.feed(event)
    return frames


def seen_count(events: Iterable[Event], seat: int | None = None, spectator: bool = False) -> int:
    """How many of ``events`` a perspective sees (each is one step of the viewer).

    >>> from protocol.match import Match
    >>> seen_count(Match.new(seed=2, hands=1).events, spectator=True)
    5
    """
    looker = NOBODY if spectator else seat
    if looker is None:
        return sum(1 for _ in events)
    return sum(1 for e in events if project(e, looker) is not None)


class _Tracker:
    """The views of the seats a perspective may see, kept up to date event by event,
    and the presentation state the views do not keep (claimed river tiles, a winner's
    revealed hand, the hand's number)."""

    def __init__(
        self,
        looker: int | None,
        names: Sequence[str],
        wall: Sequence[int] | None,
        hand: int,
    ) -> None:
        self.looker = looker
        self.names = tuple(names)
        seen = range(4) if looker is None else ([looker] if looker >= 0 else [])
        self.views = {s: SeatView(s) for s in seen}
        self.public = PublicState()
        self.claimed: list[set[int]] = [set(), set(), set(), set()]
        self.revealed: dict[int, Win] = {}
        self.hand = hand - 1
        self.ended = False
        self.wall = _WallCut(wall, hand)
        self.states: list[dict[str, Any]] = []
        self._index: dict[str, int] = {}
        self._ids = [-1, -1, -1, -1]
        self._dirty: set[int] = {0, 1, 2, 3}
        """Seats whose state may have changed since the last frame: an event changes
        only its own seat's (and a claimed discard's owner's), a table event every one."""

    def _intern(self, state: dict[str, Any]) -> int:
        key = json.dumps(state, separators=(",", ":"))
        found = self._index.get(key)
        if found is None:
            found = self._index[key] = len(self.states)
            self.states.append(state)
        return found

    def apply(self, event: Event) -> Event | None:
        """Apply ``event``; return it as the perspective sees it (``None``: unseen)."""
        for s, view in self.views.items():
            mine = project(event, s)
            if mine is not None:
                view.apply(mine)
        public = project(event, NOBODY)
        if public is not None:
            apply_public(self.public, public)
        self._mark(public)
        self.wall.apply(event)
        if event.seat is None:
            self._dirty.update(range(4))
        else:
            self._dirty.add(event.seat)
            source = getattr(event, "from_seat", None)
            if source is not None:
                self._dirty.add(source)
        return event if self.looker is None else project(event, self.looker)

    def snapshot(self, seen: Event | None) -> Frame:
        """The frame after ``seen`` (``None``: before the first event)."""
        text = "" if seen is None else describe(seen, self.names)
        return self._snapshot(text, None if seen is None else seen.seat)

    def _mark(self, event: Event | None) -> None:
        """Presentation state: which discards were claimed, who showed a winning hand."""
        if type(event) is HandStart:
            self.hand += 1
            self.claimed = [set(), set(), set(), set()]
            self.revealed = {}
            self.ended = False
        elif type(event) is HandEnd:
            self.ended = True
        elif type(event) in (Chow, Pung, ExposedKong):
            src = event.from_seat  # type: ignore[union-attr]
            self.claimed[src].add(len(self.public.rivers[src]) - 1)
        elif type(event) is Win:
            self.revealed[event.seat] = event
            if event.from_seat is not None:
                src = event.from_seat
                self.claimed[src].add(len(self.public.rivers[src]) - 1)

    def _snapshot(self, text: str, actor: int | None) -> Frame:
        p = self.public
        return {
            "hand": max(self.hand, 0),
            "text": text,
            "actor": actor,
            "wall": p.wall_left,
            "drawable": p.drawable,
            "turn": None if p.phase in (DEALING, OVER) else p.turn,
            "dealer": p.dealer,
            "round_wind": int(p.round_wind),
            "scores": list(p.scores),
            "pending": p.pending_tile if p.phase == CLAIMS else None,
            "seats": self._seat_ids(),
            "result": self.hand if self.ended else None,
            "wall_cut": self.wall.cut(),
        }

    def _seat_ids(self) -> list[int]:
        for s in self._dirty:
            self._ids[s] = self._intern(self._seat(s))
        self._dirty.clear()
        return list(self._ids)

    def _seat(self, s: int) -> dict[str, Any]:
        p = self.public
        view = self.views.get(s)
        win = self.revealed.get(s)
        out: dict[str, Any] = {
            "wind": int(p.seat_wind(s)),
            "count": p.concealed[s],
            "hand": None,
            "drawn": None,
            "melds": [_meld_json(m) for m in p.melds[s]],
            "hidden_kongs": p.concealed_kongs[s],
            "river": list(p.rivers[s]),
            "claimed": sorted(self.claimed[s]),
            "won": None,
        }
        if view is not None:
            out["hand"], out["drawn"] = _hand(view)
            own_kongs = [Meld(MeldKind.CONCEALED_KONG, k) for k in view.own.concealed_kongs]
            out["melds"] += [_meld_json(m) for m in own_kongs]
            out["hidden_kongs"] = 0
        if win is not None:
            held = sorted(int(t) for t in win.hand)
            held.remove(int(win.tile))
            out["won"] = {
                "hand": held,
                "tile": int(win.tile),
                "melds": [_meld_json(m) for m in win.melds],
            }
        return out


class _WallCut:
    """Where the draws have got to in a hand's wall (front and back, R1 and R8), for
    showing the wall once the match is over (``wall`` ``None``: not shown)."""

    def __init__(self, wall: Sequence[int] | None, hand: int) -> None:
        self.shown = wall is not None
        self.started = False
        self.front = 0
        self.back = TILE_COUNT

    def apply(self, event: Event) -> None:
        kind = type(event)
        if kind is HandStart:
            self.front, self.back, self.started = 0, TILE_COUNT, True
        elif kind is Deal:
            self.front += event.count  # type: ignore[attr-defined]
        elif kind is Draw and event.replacement:  # type: ignore[attr-defined]
            self.back -= 1
        elif kind is Draw:
            self.front += 1

    def cut(self) -> list[int] | None:
        """``[front, reserved, back]``: the tiles left are the hand's wall from
        ``front`` to ``back``; those from ``reserved`` on are never drawn (R2)."""
        if not (self.shown and self.started):
            return None
        return [self.front, self.back - RESERVED, self.back]


def _wall_matches(wall: Sequence[int], events: Sequence[Event]) -> bool:
    """Whether one hand's deal and draws took exactly the tiles of ``wall``, in order,
    from the front and from the back (a scripted deal, a wall from another seed: no)."""
    wall = tuple(wall)
    if len(wall) != TILE_COUNT:
        return False
    front, back = 0, TILE_COUNT
    for event in events:
        kind = type(event)
        if kind is Deal or (kind is Draw and not event.replacement):  # type: ignore[attr-defined]
            taken = event.tiles if kind is Deal else (event.tile,)  # type: ignore[attr-defined]
            if taken is None or wall[front : front + len(taken)] != tuple(taken):
                return False
            front += len(taken)
        elif kind is Draw:
            back -= 1
            if event.tile != wall[back]:  # type: ignore[attr-defined]
                return False
    return True


def _hand(view: SeatView) -> tuple[list[int], int | None]:
    """The seat's concealed tiles sorted, with the tile just drawn set apart."""
    counts = view.own.counts
    tiles = [k for k in range(len(counts)) for _ in range(counts[k])]
    drawn = view.own.drawn
    if drawn is not None and drawn in tiles:
        tiles.remove(drawn)
        return tiles, int(drawn)
    return tiles, None


def _meld_json(meld: Meld) -> dict[str, Any]:
    """A meld as the viewer draws it: its tiles (kinds 0..33), which one was claimed,
    from whom."""
    return {
        "kind": meld.kind.value,
        "tiles": [int(t) for t in meld.tiles],
        "called": None if meld.called is None else int(meld.called),
        "from": meld.source,
    }


# --- sentences -------------------------------------------------------------------------


def _who(seat: int, names: Sequence[str]) -> str:
    return f"seat {seat} ({names[seat]})" if seat < len(names) else f"seat {seat}"


def describe(event: Event, names: Sequence[str]) -> str:
    """One English sentence for an event as a perspective sees it.

    >>> from protocol.tiles import Tile
    >>> describe(Discard(2, Tile.M5), ("a", "b", "c", "d"))
    'seat 2 (c) discards 5m'
    >>> describe(Draw(1, True), ("a", "b", "c", "d"))
    'seat 1 (b) draws a replacement tile'
    """
    who = _who(event.seat, names) if event.seat is not None else ""
    kind = type(event)
    if kind is Draw:
        what = "a replacement tile" if event.replacement else "a tile"  # type: ignore[attr-defined]
        return f"{who} draws {what if event.tile is None else event.tile}"  # type: ignore[attr-defined]
    text = _SENTENCES.get(kind)
    if text is not None:
        return text(event, who, names)
    return event.type


def _from(event: Any, names: Sequence[str]) -> str:
    return _who(event.from_seat, names)


_SENTENCES: dict[type, Any] = {
    HandStart: lambda e, w, n: (
        f"hand {e.hand + 1} begins: round wind {e.round_wind}, dealer {_who(e.dealer, n)}"
    ),
    Deal: lambda e, w, n: f"{w} is dealt {e.count} tiles",
    Discard: lambda e, w, n: f"{w} discards {e.tile}",
    Chow: lambda e, w, n: f"{w} chows {e.tile} from {_from(e, n)} with {e.tiles[0]} {e.tiles[1]}",
    Pung: lambda e, w, n: f"{w} pungs {e.tile} from {_from(e, n)}",
    ExposedKong: lambda e, w, n: f"{w} makes an exposed kong on {e.tile} from {_from(e, n)}",
    AddedKong: lambda e, w, n: f"{w} adds {e.tile} to a pung (added kong)",
    ConcealedKong: lambda e, w, n: (
        f"{w} declares a concealed kong" + ("" if e.tile is None else f" of {e.tile}")
    ),
    Declined: lambda e, w, n: (
        f"{w} lets {e.tile} go by"
        + (" (a win passed)" if e.win else "")
        + (" (a pung passed)" if e.pung else "")
    ),
    Win: lambda e, w, n: (
        f"{w} wins on {e.tile} "
        + ("by self-draw" if e.from_seat is None else f"discarded by {_from(e, n)}")
    ),
    ExhaustiveDraw: lambda e, w, n: "the wall is exhausted: the hand is drawn",
    FourWindsAbort: lambda e, w, n: "four same winds in the first go-round: the hand is drawn",
    HandEnd: lambda e, w, n: f"the hand is over; scores {', '.join(map(str, e.scores))}",
    MatchEnd: lambda e, w, n: f"the match is over; final scores {', '.join(map(str, e.scores))}",
}


# --- decisions and results ---------------------------------------------------------------


def build_decisions(
    decisions: Iterable[Decision],
    frame_at: Callable[[int], int],
    *,
    seat: int | None = None,
    spectator: bool = False,
) -> list[dict[str, Any]]:
    """The decisions a perspective may see, as JSON: every one with every seat shown,
    the seat's own for a seat (another seat's legal actions would show its tiles), none
    for a spectator. ``frame`` is the step showing the table when the seat was asked:
    ``frame_at(after_event)`` (from :attr:`HandFrames.at`)."""
    if spectator:
        return []
    out = []
    for d in decisions:
        if seat is not None and d.seat != seat:
            continue
        out.append(
            {
                "frame": frame_at(d.after_event),
                "hand": d.hand,
                "seat": d.seat,
                "legal": [str(a) for a in d.legal],
                "answer": None if d.answer is None else str(d.answer),
                "applied": str(d.applied),
                "outcome": d.outcome.value,
                "ms": None if d.ms is None else round(d.ms, 1),
                "reason": d.reason,
            }
        )
    return out


def result_json(result: HandResult, names: Sequence[str]) -> dict[str, Any]:
    """A hand's result as the viewer shows it: how it ended, the payments, and for a win
    the winner, the tile, who dealt in, each tai item and the total.

    >>> r = HandResult("exhaustive_draw")
    >>> result_json(r, "abcd")["text"]
    'exhaustive draw'
    """
    out: dict[str, Any] = {
        "outcome": result.outcome,
        "payments": list(result.payments),
        "text": result.outcome.replace("_", " "),
        "items": [],
        "total_tai": None,
    }
    if result.winner is not None:
        how = (
            "by self-draw"
            if result.discarder is None
            else f"on a discard by {_who(result.discarder, names)}"
        )
        out["text"] = f"{_who(result.winner, names)} wins on {result.win_tile} {how}"
        out["winner"] = result.winner
        score: Mapping[str, Any] = result.score or {}
        out["items"] = [
            {"name": i["name"], "id": i["id"], "tai": i["tai"], "count": i.get("count", 1)}
            for i in score.get("items", [])
        ]
        out["total_tai"] = score.get("total_tai")
    return out
