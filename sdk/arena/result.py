"""Aggregating deals into per-bot statistics: the :class:`ArenaResult`.

A *bot* is a distinct spec: ``bots.greedy bots.greedy bots.random bots.random`` is two
bots of two players each, and each bot's numbers pool its players. Points are counted
per hand a player played; the confidence interval treats each deal as one observation
(its mean points per hand over all the bot's seats and seatings in that deal), which is
what makes it honest under duplicate seating, where the matches of a deal share walls
and are far from independent (:mod:`sdk.arena.stats`).

>>> from sdk.arena.deal import DealRecord, MatchRecord, PlayerTally
>>> def deal(n, points):  # one match of one hand per deal, points by player
...     tallies = [PlayerTally(points=p, hands=1) for p in points]
...     return DealRecord(n, n, [MatchRecord((0, 1, 2, 3), tuple(points), tallies)])
>>> agg = Aggregator(["A", "A", "B", "C"])
>>> for n, pts in enumerate([(300, 300, -600, 0), (0, 0, 1000, -1000)]):
...     agg.add(deal(n, pts))
>>> agg.deal_points["A"], agg.standings()
([300.0, 0.0], [('A', 150.0), ('B', 200.0), ('C', -500.0)])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sdk.arena.deal import DealRecord, PlayerTally
from sdk.arena.program_settings import CRASHED
from sdk.arena.stats import Interval, holm, mean_interval, paired_interval, paired_p
from sdk.arena.timing import TimingHistogram
from sdk.budget import Outcome

__all__ = ["Aggregator", "ArenaResult", "BotStats", "PairStats"]


def _rate(count: int, total: int) -> float:
    return count / total if total else math.nan


def _rounded(p: float) -> float | None:
    """A p-value for ``arena.json``: 4 significant decimals, ``None`` when there is none."""
    return None if math.isnan(p) else float(f"{p:.4g}")


@dataclass(frozen=True, slots=True)
class BotStats:
    """One bot's results. Rates are per hand played by one of its players."""

    label: str
    spec: str
    players: tuple[int, ...]
    points: Interval
    """Mean points per hand, with its CI over deals."""
    hands: int
    win_rate: float
    self_draw_rate: float
    deal_in_rate: float
    avg_tai: float
    """Mean total tai of its wins (NaN without wins)."""
    draw_rate: float
    timing: TimingHistogram
    outcomes: dict[str, int]

    @property
    def fallbacks(self) -> int:
        """Decisions answered by the fallback."""
        return sum(n for k, n in self.outcomes.items() if k not in (Outcome.OK, CRASHED))

    def to_json(self) -> dict[str, Any]:
        """A plain dict (``arena.json``)."""

        def r(x: float, digits: int = 4) -> float | None:
            return None if math.isnan(x) else round(x, digits)

        return {
            "bot": self.label,
            "spec": self.spec,
            "players": list(self.players),
            "points_per_hand": self.points.to_json(),
            "hands": self.hands,
            "win_rate": r(self.win_rate),
            "self_draw_rate": r(self.self_draw_rate),
            "deal_in_rate": r(self.deal_in_rate),
            "avg_tai_when_winning": r(self.avg_tai, 3),
            "draw_rate": r(self.draw_rate),
            "fallbacks": self.fallbacks,
            "late": self.outcomes.get(Outcome.LATE, 0),
            "errors": self.outcomes.get(Outcome.ERROR, 0),
            "illegal": self.outcomes.get(Outcome.ILLEGAL, 0),
            "malformed": self.outcomes.get(Outcome.MALFORMED, 0),
            "disconnected": self.outcomes.get(Outcome.DISCONNECTED, 0),
            "crashed": self.outcomes.get(CRASHED, 0),
            "timing": self.timing.to_json(),
        }


@dataclass(frozen=True, slots=True)
class PairStats:
    """Bot ``a`` minus bot ``b`` in mean points per hand, paired by deal.

    ``diff`` is the difference with its interval (95% unless the run chose another
    level), ``p_value`` the two-sided p-value of the paired t test (the interval
    excludes 0 exactly when it is below ``1 - level``) and ``p_holm`` that p-value adjusted by
    Holm's method for every pair of the run (:func:`~sdk.arena.stats.holm`): a run of
    four bots compares six pairs, and one of six tests at 95% says "significant" by
    chance far more often than one time in twenty. A single pair's adjusted value is
    its own p-value."""

    a: str
    b: str
    diff: Interval
    p_value: float = math.nan
    p_holm: float = math.nan

    @property
    def significant(self) -> bool:
        """Whether the difference is significant for the run as a whole: the
        Holm-adjusted p-value is below ``1 - level`` (0.05). Without p-values (a pair
        built by hand), whether the interval excludes 0."""
        if math.isnan(self.p_holm):
            return self.diff.excludes_zero
        return self.p_holm < 1 - self.diff.level

    @property
    def tested(self) -> bool:
        """Whether there was a test at all: two deals or more (one deal has no spread
        to compare the difference with)."""
        return not math.isnan(self.diff.low)

    @property
    def verdict(self) -> str:
        """A sentence for people: who is better, that the run cannot tell, or that
        there was nothing to test."""
        if not self.tested:
            deals = f"{self.diff.n} deal" + ("" if self.diff.n == 1 else "s")
            return f"not tested: {deals} (a comparison needs at least 2)"
        better, worse = (self.a, self.b) if self.diff.mean > 0 else (self.b, self.a)
        if self.significant:
            return f"{better} beats {worse}"
        if self.diff.excludes_zero:  # alone it would be; not among all the pairs compared
            return f"{better} ahead of {worse}, not significant over all pairs (Holm)"
        return f"no significant difference between {self.a} and {self.b}"

    def to_json(self) -> dict[str, Any]:
        """A plain dict (``arena.json``)."""
        return {
            "a": self.a,
            "b": self.b,
            "diff_points_per_hand": self.diff.to_json(),
            "p_value": _rounded(self.p_value),
            "p_holm": _rounded(self.p_holm),
            "significant": self.significant,
            "verdict": self.verdict,
        }


@dataclass(frozen=True, slots=True)
class ArenaResult:
    """What an arena run found. ``partial`` when it was interrupted (only whole deals
    count). ``deal_points[label]`` are the per-deal observations, in deal order."""

    config: dict[str, Any]
    bots: list[BotStats]
    pairs: list[PairStats]
    deals: int
    matches: int
    hands: int
    """Hands played at the table (each counts once, not once per player)."""
    partial: bool
    elapsed: float
    deal_points: dict[str, list[float]]

    @property
    def hands_per_second(self) -> float:
        """Table hands played per second of wall time."""
        return self.hands / self.elapsed if self.elapsed > 0 else math.nan

    def bot(self, label: str) -> BotStats:
        """The statistics of the bot labelled ``label`` (KeyError if none)."""
        for bot in self.bots:
            if bot.label == label:
                return bot
        raise KeyError(label)

    def pair(self, a: str, b: str) -> PairStats:
        """``a`` minus ``b``, in either order of the report (KeyError if no such pair)."""
        for p in self.pairs:
            if (p.a, p.b) == (a, b):
                return p
            if (p.a, p.b) == (b, a):
                d = p.diff
                flipped = Interval(-d.mean, -d.high, -d.low, d.n, d.level)
                return PairStats(a, b, flipped, p.p_value, p.p_holm)
        raise KeyError((a, b))

    def to_json(self, timing: bool = True) -> dict[str, Any]:
        """The report as a JSON-ready dict. ``timing=False`` leaves out everything that
        depends on the machine (times, speed, backend), for comparing runs."""
        out: dict[str, Any] = {
            "config": dict(self.config),
            "partial": self.partial,
            "deals": self.deals,
            "matches": self.matches,
            "hands": self.hands,
            "bots": [b.to_json() for b in self.bots],
            "pairs": [p.to_json() for p in self.pairs],
        }
        if timing:
            out["elapsed_s"] = round(self.elapsed, 3)
            out["hands_per_second"] = round(self.hands_per_second, 2) if self.elapsed else None
            return out
        out["config"] = {k: v for k, v in self.config.items() if k not in ("backend", "workers")}
        for bot in out["bots"]:
            del bot["timing"]
        return out

    def to_markdown(self) -> str:
        """The report as Markdown (``arena.md``)."""
        from sdk.arena.report import markdown

        return markdown(self)


class Aggregator:
    """Collects :class:`~sdk.arena.deal.DealRecord` values in any order; the result is
    the same whatever the order (sums of integers, observations sorted by deal)."""

    def __init__(self, labels: Sequence[str], specs: Sequence[str] | None = None) -> None:
        self.player_labels = list(labels)
        self.labels = list(dict.fromkeys(labels))
        self.specs = dict(zip(labels, specs or labels, strict=True))
        self.groups = {b: tuple(p for p, x in enumerate(labels) if x == b) for b in self.labels}
        self.totals = {b: PlayerTally() for b in self.labels}
        self._deals: dict[int, dict[str, float]] = {}
        self.matches = 0
        self.hands = 0

    def add(self, record: DealRecord) -> None:
        """Take in one deal's record."""
        points = dict.fromkeys(self.labels, 0)
        hands = dict.fromkeys(self.labels, 0)
        for match in record.matches:
            self.matches += 1
            self.hands += match.players[0].hands
            for player, tally in enumerate(match.players):
                label = self.player_labels[player]
                self.totals[label].add(tally)
                points[label] += tally.points
                hands[label] += tally.hands
        self._deals[record.deal] = {b: points[b] / hands[b] for b in self.labels}

    @property
    def deals(self) -> int:
        """Deals taken in so far."""
        return len(self._deals)

    @property
    def deal_points(self) -> dict[str, list[float]]:
        """Each bot's points per hand, one value per deal."""
        order = sorted(self._deals)
        return {b: [self._deals[d][b] for d in order] for b in self.labels}

    def standings(self) -> list[tuple[str, float]]:
        """Each bot's mean points per hand so far (for the progress display)."""
        return [(b, self.totals[b].points / (self.totals[b].hands or 1)) for b in self.labels]

    def result(
        self, config: dict[str, Any], *, partial: bool, elapsed: float, level: float = 0.95
    ) -> ArenaResult:
        """The :class:`ArenaResult` of the deals taken in."""
        per_deal = self.deal_points
        bots = [self._bot(b, per_deal[b], level) for b in self.labels]
        compared = [(a, b) for i, a in enumerate(self.labels) for b in self.labels[i + 1 :]]
        p_values = [paired_p(per_deal[a], per_deal[b]) for a, b in compared]
        pairs = [
            PairStats(a, b, paired_interval(per_deal[a], per_deal[b], level), p, adjusted)
            for (a, b), p, adjusted in zip(compared, p_values, holm(p_values), strict=True)
        ]
        return ArenaResult(
            config, bots, pairs, self.deals, self.matches, self.hands, partial, elapsed, per_deal
        )

    def _bot(self, label: str, observations: list[float], level: float) -> BotStats:
        t = self.totals[label]
        return BotStats(
            label=label,
            spec=self.specs[label],
            players=self.groups[label],
            points=mean_interval(observations, level),
            hands=t.hands,
            win_rate=_rate(t.wins, t.hands),
            self_draw_rate=_rate(t.self_draws, t.hands),
            deal_in_rate=_rate(t.deal_ins, t.hands),
            avg_tai=_rate(t.tai, t.wins),
            draw_rate=_rate(t.draws, t.hands),
            timing=t.timing,
            outcomes=dict(sorted(t.outcomes.items())),
        )
