"""Expect: every decision by one number, the expected points of the hand.

Defensive prices discards with two rough tables (win chance, danger). This bot values
each candidate with the own-draw evaluator (:mod:`sdk.expect`): the seat's own future
draws enumerated over the kinds that help, wins priced with the scorer's tai (R15
points, self-draws paid by three), the opponents as hazards (someone else wins first,
ron on our waits) fitted from self-play. For a discard ``d``::

    value(d) = -q(d) * deal_in_loss + (1 - q(d)) * E[points of the hand left]

with ``q(d)`` defensive's deal-in estimate (threat x danger, rescaled to the observed
rate; opponents below defensive's ``MIN_THREAT`` ignored, as there: small risks are
overestimated, and a hand far from waiting would otherwise fold on noise). Push or
fold is that one comparison. Chows and pungs are defensive's (only when they lower
shanten); ``claims=True`` takes one when the best discard after it is worth more than
passing, which measured worse (the pass and the claim are then often valued on two
scales: a fitted leaf and an exact value). Kongs and wins are greedy's.

Hands up to shanten 1 are valued exactly; further ones take the fitted leaf values
(what such hands went on to score in self-play), scaled by acceptance. A second pass
to ``depth`` 2 (``--depth 2``) values at most ``nodes`` hands (a budget that is the
same on every machine, so runs are reproducible) within ``think_ms`` and the time
left, and its answer replaces the first only if it finishes; it is off by default
because exact values at shanten 2 (no claims, one widening per shanten) run far below
the fitted leaves they are compared with, and the bot then keeps hands far from
waiting (measured: -190 ± 117 points a hand against defensive, 256 hands). Both passes
stop at 60% of the time left, and defensive answers if the first cannot finish; an
evaluator error (:class:`~sdk.expect.value.ImpossibleHandError`) also gets
defensive's answer.

>>> from bots.defensive import DefensiveBot
>>> from sdk.local import play_match
>>> result = play_match([ExpectBot(), DefensiveBot(), DefensiveBot(), DefensiveBot()], seed=3, hands=2)
>>> sum(result.scores), result.stats[0].fallbacks
(0, 0)

Command line: ``python -m bots.expect --local --hands 4 --opponents defensive``, with
``--depth N`` and ``--think-ms MS``.
"""

from __future__ import annotations

import argparse
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass

from bots.defensive import DefensiveBot, danger, threat
from bots.greedy import ranked_discards
from protocol.actions import KONG, PASS, WIN, Action, ActionKind
from protocol.analysis import shanten_counts
from protocol.melds import Meld, MeldKind
from protocol.tiles import TILES
from sdk.bot import DecisionRequest, MatchInfo
from sdk.expect.model import Model, load_model
from sdk.expect.value import (
    Evaluator,
    HandValue,
    ImpossibleHandError,
    OutOfTime,
    Situation,
)
from sdk.heap import freeze_heap
from sdk.view import GameView

__all__ = ["BOT", "ExpectBot", "ExpectConfig", "Scored", "main"]

log = logging.getLogger("bots.expect")

Scored = tuple[Action, dict[str, float]]
"""A candidate and its numbers: value, win, points, deal_in (the reviewer's contract)."""

MARGIN = 0.4
"""Share of the request's time left that the evaluator never uses (less 20 ms more):
on a loaded machine a lost time slice must still leave the answer in time."""


class ExpectBot(DefensiveBot):
    """Plays the action of highest expected points (:mod:`sdk.expect`)."""

    name = "expect"

    def __init__(
        self,
        name: str | None = None,
        *,
        depth: int = 1,
        nodes: int | None = 600,
        think_ms: float = 150.0,
        swaps: int = 0,
        hazards: bool = True,
        tai: bool = True,
        claims: bool = False,
        model: Model | None = None,
    ) -> None:
        super().__init__(name)
        if depth < 0:
            raise ValueError(f"depth must be 0 or more, not {depth}")
        self.depth, self.nodes, self.think_ms, self.swaps = depth, nodes, think_ms, swaps
        self.hazards, self.tai, self.claims = hazards, tai, claims
        self.model = model or load_model()
        self._limits: tuple[float | None, int | None] = (None, None)
        self._shared: dict = {}  # per decision: the passes' memo of exactly valued hands
        self.deep = 0
        """Decisions answered by the deep pass (for tests and reports)."""

    def on_match_start(self, info: MatchInfo) -> None:
        """Load the tables and value one hand in the start-up time, then freeze the
        heap (:func:`sdk.heap.freeze_heap`): no first use and no full garbage collection
        of the start-up objects lands inside a decision."""
        super().on_match_start(info)
        hand = [1] * 9 + [0] * 25
        hand[27:34] = [1] * 7
        Evaluator(
            Situation(0, 0, TILES[27], (), tuple(4 - n for n in hand), 4, 16), self.model
        ).hand(hand)
        freeze_heap()

    # --- deciding ------------------------------------------------------------------------

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        if request.allows("win"):
            return WIN
        try:
            return self.decide(view, request)
        except ImpossibleHandError as err:
            log.warning("expect: %s; defensive answers", err)
            return super().choose(view, request)

    def decide(self, view: GameView, request: DecisionRequest) -> Action:
        """The best action by value: the cheap pass, then the deep one if time allows."""
        if request.is_claim:
            kong = self.kong_claim(view, request)
            if kong is not None:
                return kong
            if not self.claims:
                return DefensiveBot.claim(self, view, request)
        else:
            seen = view.visible_counts()
            best = ranked_discards(view, view.counts, self._allowed(request), seen)[0].shanten
            kong = self.free_kong(view, request, best)
            if kong is not None:
                return kong
        self._shared = {}
        cutoff = time.perf_counter() + max(request.time_left * (1 - MARGIN) - 0.02, 0.0)
        try:
            ranked = self.ranked(view, request, min(self.depth, 1), cutoff, None)
        except OutOfTime:  # a loaded machine: defensive answers in a millisecond
            return super().choose(view, request)
        if self.depth > 1:
            deadline = min(cutoff, time.perf_counter() + self.think_ms / 1000)
            try:
                ranked = self.ranked(view, request, self.depth, deadline, self.nodes)
                self.deep += 1
            except OutOfTime:
                pass
        return ranked[0][0]

    def explain(self, view: GameView, request: DecisionRequest) -> list[Scored]:
        """Every candidate with its numbers, best first (for ``sdk.review``): keys
        ``value`` (expected points), ``win``, ``points`` (expected points of a win) and
        ``deal_in`` (chance this discard deals in)."""
        if request.allows("win"):
            return [(WIN, {"value": 0.0, "win": 1.0, "points": 0.0, "deal_in": 0.0})]
        self._shared = {}
        return self.ranked(view, request, self.depth, None, None)

    # --- candidates ----------------------------------------------------------------------

    def ranked(
        self,
        view: GameView,
        request: DecisionRequest,
        exact: int,
        deadline: float | None,
        nodes: int | None,
    ) -> list[Scored]:
        """Candidates with their numbers, best first; :class:`OutOfTime` past the
        ``deadline`` or ``nodes`` hands valued (per evaluator)."""
        self._limits = (deadline, nodes)
        if request.is_claim:
            out = self.claims_ranked(view, request, exact, deadline)
        else:
            out = self.discards_ranked(view, view.counts, request, exact, deadline, None)
        out.sort(key=lambda a: -a[1]["value"])
        return out

    def situation(self, view: GameView, draws: int, extra: Meld | None = None) -> Situation:
        """The evaluator's view of the seat: unseen counts, melds, own draws left."""
        seen = view.visible_counts()
        for t, n in enumerate(seen):
            if n > 4:
                raise ImpossibleHandError(f"{TILES[t]} is seen {n} times")
        melds = tuple(view.melds())  # own concealed kongs included
        if extra is not None:
            melds += (extra,)
        others = ((view.seat + k) % 4 for k in (1, 2, 3))
        return Situation(
            seat=view.seat,
            dealer=view.dealer,
            round_wind=view.round_wind,
            melds=melds,
            unseen=tuple(4 - n if n < 4 else 0 for n in seen),
            draws=draws,
            drawable=view.drawable,
            threat=sum(threat(view, s) for s in others),
        )

    def evaluator(
        self,
        situation: Situation,
        exact: int,
        deadline: float | None,
        base: Sequence[int],
    ) -> Evaluator:
        """An evaluator for ``situation`` whose unseen counts were taken holding ``base``."""
        shared = self._shared.setdefault((situation.draws, situation.melds, tuple(base)), {})
        return Evaluator(
            situation, self.model, exact=exact, hazards=self.hazards, deadline=deadline,
            flat_tai=not self.tai, max_nodes=self._limits[1], swaps=self.swaps, base=base,
            shared=shared,
        )  # fmt: skip

    def discards_ranked(
        self,
        view: GameView,
        counts: Sequence[int],
        request: DecisionRequest | None,
        exact: int,
        deadline: float | None,
        after: tuple[Meld, int] | None,
    ) -> list[Scored]:
        """Each allowed discard of the 3n+2 hand ``counts`` with its value. ``after`` =
        (the new meld, the claimed kind): valuing the discard after a claim (R6: not the
        claimed kind)."""
        seen = view.visible_counts()
        if after is None:
            allowed = self._allowed(request)  # type: ignore[arg-type]
            ev = self.evaluator(self.situation(view, view.drawable // 4), exact, deadline, counts)
        else:
            allowed = {t for t in range(34) if counts[t] and t != after[1]}
            situation = self.situation(view, view.drawable // 4, after[0])
            ev = self.evaluator(situation, exact, deadline, counts)
        options = ranked_discards(view, counts, allowed, seen)
        best_accept: dict[int, int] = {}
        for o in options:
            best_accept.setdefault(o.shanten, o.accept)
        threats = self.threats(view)  # defensive's: below MIN_THREAT the estimate runs high
        h = list(counts)
        values: list[HandValue] = []
        for o in options:
            d = int(o.discard)  # type: ignore[arg-type]
            h[d] -= 1
            values.append(ev.hand(h))
            h[d] += 1
        values = self._on_one_scale(options, values, exact, best_accept, view.drawable // 4)
        out: list[Scored] = []
        for rank, (o, v) in enumerate(zip(options, values, strict=True)):
            d = int(o.discard)  # type: ignore[arg-type]
            q = self.model.danger_scale * sum(
                t * danger(view, s, d, seen, self.passed[s]) for s, t in threats.items()
            )
            if not self.hazards:
                q = 0.0
            q = min(q, 0.9)
            value = -q * self.model.deal_in_loss + (1 - q) * v.value - rank * 1e-6
            numbers = {"value": value, "win": (1 - q) * v.win, "points": v.points, "deal_in": q}
            out.append((Action.discard(TILES[d]), numbers))
        return out

    def _on_one_scale(
        self,
        options: list,
        values: list[HandValue],
        exact: int,
        best_accept: dict[int, int],
        draws: int,
    ) -> list[HandValue]:
        """Values of hands beyond ``exact`` put on the scale of the exactly valued ones.

        The fitted leaves are what such hands went on to score in self-play (claims
        and every widening included); the exact values count neither, so they run
        lower, and a bot comparing the two raw would keep hands far from waiting. A
        leaf option gets the win part of the best exactly valued option, times the
        leaves' ratio between the two shanten and its acceptance against the best at
        its own shanten; the losses are the reference's."""
        exact_ones = [(v, o) for v, o in zip(values, options, strict=True) if o.shanten <= exact]
        if not exact_ones:
            return [
                self._scaled(v, o.accept / best_accept[o.shanten]) if best_accept[o.shanten] else v
                for v, o in zip(values, options, strict=True)
            ]
        ref, ref_o = max(exact_ones, key=lambda x: x[0].value)
        ref_win, ref_points, _ = self.model.leaf(ref_o.shanten, draws)
        ref_part = ref.win * ref.points
        out = []
        for v, o in zip(values, options, strict=True):
            if o.shanten <= exact:
                out.append(v)
                continue
            win, points, _ = self.model.leaf(o.shanten, draws)
            ratio = o.accept / best_accept[o.shanten] if best_accept[o.shanten] else 1.0
            part = ref_part * (points / ref_points if ref_points > 0 else 0.0) * ratio
            chance = ref.win * (win / ref_win if ref_win > 0 else 0.0) * ratio
            out.append(HandValue(ref.value - ref_part + part, min(chance, 1.0), v.points))
        return out

    @staticmethod
    def _scaled(v: HandValue, ratio: float) -> HandValue:
        """A leaf value with less acceptance than the best at its shanten: the win
        part scaled down (about that much slower), the losses kept."""
        win_part = v.win * v.points
        return HandValue(v.value - win_part * (1 - ratio), v.win * ratio, v.points)

    def claims_ranked(
        self, view: GameView, request: DecisionRequest, exact: int, deadline: float | None
    ) -> list[Scored]:
        """Pass against each chow and pung, each valued after its best discard."""
        tile = view.last_discard
        assert tile is not None
        source = request_source(view)
        offset = (view.seat - source - 1) % 4
        draws = max(0, (view.drawable - offset + 3) // 4)
        ev = self.evaluator(self.situation(view, draws), exact, deadline, view.counts)
        stay = ev.draw_first(view.counts) if offset == 0 else ev.hand(view.counts)
        out: list[Scored] = [
            (PASS, {"value": stay.value, "win": stay.win, "points": stay.points, "deal_in": 0.0})
        ]
        for action in request.legal_actions:
            if action.kind is ActionKind.CHOW:
                used = action.tiles
                meld = Meld(MeldKind.CHOW, TILES[min((*used, tile))], tile, source)  # type: ignore[misc]
            elif action.kind is ActionKind.PUNG:
                used = (tile, tile)
                meld = Meld(MeldKind.PUNG, tile, tile, source)
            else:
                continue
            counts = list(view.counts)
            for t in used:  # type: ignore[union-attr]
                counts[t] -= 1
            best = max(
                self.discards_ranked(view, counts, None, exact, deadline, (meld, tile)),
                key=lambda a: a[1]["value"],
            )
            out.append((action, best[1]))
        return out

    def kong_claim(self, view: GameView, request: DecisionRequest) -> Action | None:
        """Greedy's kong on a discard: taken when it does not raise shanten."""
        if KONG not in request.legal_actions:
            return None
        after = list(view.counts)
        after[view.last_discard] -= 3  # type: ignore[index]
        if shanten_counts(after) <= shanten_counts(view.counts):
            return KONG
        return None

    @staticmethod
    def _allowed(request: DecisionRequest) -> set[int]:
        return {a.tile for a in request.legal_actions if a.kind is ActionKind.DISCARD}  # type: ignore[misc]


def request_source(view: GameView) -> int:
    """The seat whose discard is open to claims: the last to discard."""
    return view.seat_view.public.turn


@dataclass(frozen=True)
class ExpectConfig:
    """A picklable factory of expect bots with fixed settings, for the arena."""

    depth: int = 1
    nodes: int | None = 600
    think_ms: float = 150.0
    swaps: int = 0
    hazards: bool = True
    tai: bool = True
    claims: bool = False

    def __call__(self, seed: int | None = None) -> ExpectBot:
        return ExpectBot(
            "expect", depth=self.depth, nodes=self.nodes, think_ms=self.think_ms,
            swaps=self.swaps, hazards=self.hazards,
            tai=self.tai, claims=self.claims,
        )  # fmt: skip


BOT = ExpectBot
"""The bot class this module offers (what loaders look for)."""


def add_options(parser: argparse.ArgumentParser) -> None:
    """Expect's own options (``python -m bots.expect --help`` lists them)."""
    group = parser.add_argument_group("expect")
    group.add_argument(
        "--depth", type=int, default=1, metavar="N",
        help="value hands exactly up to shanten N (default: %(default)s)",
    )  # fmt: skip
    group.add_argument(
        "--nodes", type=int, default=600, metavar="N",
        help="hands the deep pass may value per decision, 0 for no limit (default: %(default)s)",
    )  # fmt: skip
    group.add_argument(
        "--think-ms", type=float, default=150.0, metavar="MS",
        help="time the deep pass may take per decision (default: %(default)s)",
    )  # fmt: skip


def configure(args: argparse.Namespace) -> ExpectConfig:
    """The bot of :func:`add_options`'s values; ``ValueError`` names a bad one."""
    if args.depth < 0:
        raise ValueError(f"--depth must be 0 or more, not {args.depth}")
    if not args.think_ms > 0:
        raise ValueError(f"--think-ms must be positive, not {args.think_ms}")
    if args.nodes < 0:
        raise ValueError(f"--nodes must be 0 or more, not {args.nodes}")
    return ExpectConfig(args.depth, args.nodes or None, args.think_ms)


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m bots.expect``: every bot's options plus ``--depth`` and ``--think-ms``."""
    from sdk.cli import BotOptions, run

    run(ExpectBot, argv, options=BotOptions(add_options, configure))


if __name__ == "__main__":
    main()
