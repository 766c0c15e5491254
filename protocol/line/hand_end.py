"""The hand ends the line protocol does not send, worked out by the seat.

The public referee's lines say who won and with which tiles (``/hu``), or nothing at all
(a drawn hand just stops at the next ``/initGame``), and never the payments or the
scores. Yet a seat has everything the referee scores a win with: the winner's tiles from
``/hu``, its declared sets, and the public flags (R2's last tile and last discard, R10's
first go-round, a kong replacement) in its own view. :class:`ScoreKeeper` scores each
hand's end with the referee's own code (:func:`protocol.hand_state.win_situation`, the
scorer of R12–R15) and keeps the running scores, so a bot behind the line protocol gets
the same ``hand_end`` event, with the same result, tai breakdown and scores, as over
protocol v1 (``tests/test_line_adapter_play.py`` checks it over whole matches).

One case cannot be scored: another seat winning with concealed kongs whose tiles the
``/hu`` line does not list (a kong's kind is never shown otherwise). That hand gets no
``hand_end`` and the scores from then on leave its payments out (a warning says so).

>>> from protocol.events import ExhaustiveDraw
>>> from protocol.view import SeatView
>>> keeper = ScoreKeeper()
>>> keeper.end_of(SeatView(0), ExhaustiveDraw())
HandEnd(result=HandResult(outcome='exhaustive_draw', payments=(0, 0, 0, 0), winner=None, discarder=None, win_tile=None, score=None), scores=(0, 0, 0, 0))
"""

from __future__ import annotations

import logging

from protocol.events import Event, FourWindsAbort, HandEnd, HandResult, Win
from protocol.hand_state import Scorer, win_situation
from protocol.scoring import score_win
from protocol.view import SeatView

__all__ = ["ScoreKeeper"]

log = logging.getLogger(__name__)


class ScoreKeeper:
    """The scores of a line-protocol session, hand by hand, as the referee keeps them.

    Give :meth:`end_of` the view *before* it takes in the event that ends a hand (a
    ``win``, ``exhaustive_draw`` or ``four_winds``); it returns the ``hand_end`` to
    follow that event. :meth:`reset` at ``/start``."""

    def __init__(self, scorer: Scorer = score_win) -> None:
        self.scorer = scorer
        self.scores: tuple[int, int, int, int] = (0, 0, 0, 0)

    def reset(self) -> None:
        """A new session: every seat back to 0."""
        self.scores = (0, 0, 0, 0)

    def end_of(self, view: SeatView, ending: Event) -> HandEnd | None:
        """The ``hand_end`` after ``ending``, or ``None`` when the win cannot be scored
        from what the seat saw (another seat's concealed kongs not listed)."""
        if not isinstance(ending, Win):
            outcome = "four_winds" if isinstance(ending, FourWindsAbort) else "exhaustive_draw"
            return HandEnd(HandResult(outcome), self.scores)
        result = self._win_result(view, ending)
        if result is None:
            return None
        self.scores = tuple(s + p for s, p in zip(self.scores, result.payments, strict=True))  # type: ignore[assignment]
        return HandEnd(result, self.scores)

    def _win_result(self, view: SeatView, win: Win) -> HandResult | None:
        pub = view.public
        hidden = 0 if win.seat == view.seat else pub.concealed_kongs[win.seat]
        if len(win.melds) < len(pub.melds[win.seat]) + hidden:
            log.warning(
                "line protocol: seat %d won with concealed kongs /hu does not list; "
                "hand %d is not scored and the scores leave it out",
                win.seat + 1,
                pub.hand + 1,  # hands count from 1 for people (docs/RECORDS.md, Numbering)
            )
            return None
        situation = win_situation(pub, win.seat, win.hand, win.melds, win.tile, win.from_seat)
        score = self.scorer(situation)
        payments = tuple(score.payments)
        return HandResult("win", payments, win.seat, win.from_seat, win.tile, score.to_json())  # type: ignore[arg-type]
