"""The viewer's data for one record and one perspective, cut into hands.

A page first needs only the match's outline (:meth:`ViewerData.index`: names, the
number of steps, where each hand begins, the final scores), then the hand being looked
at (:meth:`ViewerData.hand`): its frames (:mod:`sdk.replay.frames`), the decisions
asked in it, its result and, once the match is over, its wall. A 400-hand match is
about 50,000 steps; a hand is about 130, so a page opens on one hand's worth of data
and the rest is decoded (from the file) or fetched (from the server) when it is shown.

Steps are numbered over the whole match (step 0: before the first event), hands from 0
in this machine format (people see hand ``h + 1``).

>>> from protocol.match import Match
>>> from sdk.records import Header, SeatInfo, build_record
>>> m = Match.new(seed=4, hands=1)
>>> rec = build_record(Header(4, 1, tuple(SeatInfo(s, s, f"bot{s}") for s in range(4))), m.events, [])
>>> data = ViewerData(rec)
>>> index = data.index()
>>> index["starts"], index["total"], len(data.hand(0)["frames"])
([0], 6, 6)
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from protocol.events import HandEnd, HandStart, MatchEnd
from protocol.wall import hand_seed, shuffled_wall
from sdk.replay.frames import build_decisions, build_hand, result_json, seen_count, split_hands

if TYPE_CHECKING:
    from sdk.records import Decision, Record

__all__ = ["ViewerData"]


class ViewerData:
    """What the viewer shows of ``record`` to one perspective: every seat
    (``seat=None``), one seat's view (``seat=N``: what its bot knew, its decisions only)
    or public information only (``spectator=True``: no concealed tile, no decision, no
    wall, no seed; for a match still running). A record holding one seat's side only
    (a transcript) is always that seat's view. ``decisions``: the decisions of hand
    ``h`` (0-based) when asked, in place of the record's (the server replays a stored
    match's decisions one hand at a time, :class:`sdk.server.recordlog.StoredDecisions`)."""

    def __init__(
        self,
        record: Record,
        *,
        seat: int | None = None,
        spectator: bool = False,
        decisions: Callable[[int], Sequence[Decision]] | None = None,
    ) -> None:
        if seat is not None and seat not in range(4):
            raise ValueError(f"seat must be 0..3, not {seat!r}")
        if record.perspective is not None and not spectator:
            if seat not in (None, record.perspective):
                raise ValueError(f"this record shows seat {record.perspective}'s view only")
            seat = record.perspective
        self.record = record
        self.seat = None if spectator else seat
        self.spectator = spectator
        self.names = [s.name for s in sorted(record.header.seats, key=lambda s: s.seat)]
        self.live = record.summary is None
        events = record.events
        self.begins = split_hands(events)
        ends = [*self.begins[1:], len(events)]
        self._chunks = list(zip(self.begins, ends, strict=True))
        counts = [seen_count(events[b:e], self.seat, spectator) for b, e in self._chunks]
        self.starts = [0]
        for h, count in enumerate(counts[:-1]):
            self.starts.append(self.starts[-1] + count + (1 if h == 0 else 0))
        self.total = self.starts[-1] + counts[-1] + (1 if len(counts) == 1 else 0)
        self._decisions = (
            self._by_hand(record.decisions).__getitem__ if decisions is None else decisions
        )

    def _by_hand(self, decisions: Sequence[Decision]) -> list[list[Decision]]:
        """The decisions of each hand (by the event they were asked after)."""
        out: list[list[Decision]] = [[] for _ in self._chunks]
        for d in decisions:
            out[max(bisect_right(self.begins, d.after_event - 1) - 1, 0)].append(d)
        return out

    @property
    def perspective(self) -> str:
        """Whose view this is, in words."""
        if self.spectator:
            return "public view"
        if self.seat is None:
            return "all hands"
        return f"seat {self.seat}'s view ({self.names[self.seat]})"

    def index(self) -> dict[str, Any]:
        """The outline a page opens with: no tile of any hand."""
        final = next((e for e in reversed(self.record.events) if type(e) is MatchEnd), None)
        return {
            "names": self.names,
            "seat": self.seat,
            "spectator": self.spectator,
            "perspective": self.perspective,
            "hands": self.record.header.hands,
            "starts": self.starts,
            "total": self.total,
            "live": self.live,
            "final": None if final is None else list(final.scores),
        }

    def hand(self, h: int) -> dict[str, Any]:
        """Hand ``h`` (0-based): its frames (step ``start + k`` is ``frames[k]``), the
        seat states they point to, the decisions asked in it, its result, its wall.
        Raises :class:`IndexError` for a hand the record does not hold."""
        if h not in range(len(self._chunks)):
            raise IndexError(f"hand {h} is not in this record (0..{len(self._chunks) - 1})")
        begin, end = self._chunks[h]
        events = self.record.events[begin:end]
        wall = self._wall(events)
        frames = build_hand(
            events,
            names=self.names,
            hand=h,
            seat=self.seat,
            spectator=self.spectator,
            wall=wall,
        )
        start = self.starts[h]
        ended = next((e for e in events if type(e) is HandEnd), None)
        decisions = build_decisions(
            self._decisions(h),
            lambda after: start + frames.at[after - begin],
            seat=self.seat,
            spectator=self.spectator,
        )
        return {
            "hand": h,
            "start": start,
            "frames": frames.steps,
            "states": frames.states,
            "decisions": decisions,
            "result": None if ended is None else result_json(ended.result, self.names),
            "wall": None if wall is None or frames.steps[-1]["wall_cut"] is None else wall,
        }

    def _wall(self, events: Sequence[Any]) -> list[int] | None:
        """The hand's wall from the header's seed, as the referee builds it: only with
        every seat shown and the match over (it gives away every draw)."""
        if self.live or self.spectator or self.seat is not None:
            return None
        start = next((e for e in events if type(e) is HandStart), None)
        if start is None:
            return None
        return list(shuffled_wall(hand_seed(self.record.header.seed, start.hand)))

    def whole(self) -> dict[str, Any]:
        """Every hand in one piece, steps and seat states numbered over the match (for
        tools and tests that look at a whole match; a page loads it hand by hand)."""
        out: dict[str, Any] = self.index()
        frames: list[dict[str, Any]] = []
        states: list[dict[str, Any]] = []
        out.update(frames=frames, seat_states=states, decisions=[], results=[], walls=[])
        for h in range(len(self._chunks)):
            part = self.hand(h)
            base = len(states)
            frames += [{**f, "seats": [base + i for i in f["seats"]]} for f in part["frames"]]
            states += part["states"]
            out["decisions"] += part["decisions"]
            if part["result"] is not None:
                out["results"].append(part["result"])
            if part["wall"] is not None:
                out["walls"].append(part["wall"])
        return out
