"""The arena's unit of work: a *deal*, one match seed played under each seating of a set.

A deal's seed comes from the arena seed and the deal number only (SHA-256), so any
worker anywhere plays exactly the same deal; its matches share every wall
(:mod:`protocol.match`: the walls depend on the seed, not on who sits where). With
duplicate seating the set is the four rotations (each player sits at each seat once) or
all 24 permutations; without it, one match with player ``p`` at seat ``p``.

A worker returns a :class:`DealRecord`: per match and player a small tally (points,
wins, self-draws, deal-ins, tai, decision times, fallbacks) and the game records of the
deals sampled (``--save-logs``).
The parent aggregates these in deal order.

>>> deal_seed(7, 0) == deal_seed(7, 0) != deal_seed(7, 1)
True
>>> seatings(True)[:2], len(seatings(True, every=True)), seatings(False)
([(0, 1, 2, 3), (1, 2, 3, 0)], 24, [(0, 1, 2, 3)])
"""

from __future__ import annotations

import hashlib
import itertools
import random
from dataclasses import dataclass, field

from protocol.events import HandResult
from protocol.match import rotations
from sdk.arena.loader import BotFactory
from sdk.arena.program_settings import CRASHED, ProgramSettings
from sdk.arena.timing import TimingHistogram
from sdk.budget import DEFAULT_BUDGET, Budget, Outcome
from sdk.local import MatchResult, play_match
from sdk.records import Origin

__all__ = [
    "ArenaPlan",
    "DealRecord",
    "MatchRecord",
    "PlayerTally",
    "deal_seed",
    "deals_for",
    "play_deal",
    "player_seed",
    "record_name",
    "seatings",
]


def _derive(*parts: object) -> int:
    text = "taimahjong/arena/" + "/".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def deal_seed(seed: int, deal: int) -> int:
    """The match seed of deal ``deal`` of an arena run with ``seed``."""
    return _derive(seed, "deal", deal)


def player_seed(seed: int, deal: int, player: int) -> int:
    """The seed given to player ``player``'s bot in every match of a deal."""
    return _derive(seed, "deal", deal, "player", player)


def seatings(duplicate: bool, every: bool = False) -> list[tuple[int, ...]]:
    """The seatings of a deal: ``seating[player] = seat``."""
    if every:
        return list(itertools.permutations(range(4)))
    return list(rotations()) if duplicate else [(0, 1, 2, 3)]


@dataclass(frozen=True, slots=True)
class ArenaPlan:
    """Everything a worker needs to play any deal of a run (sent once per worker)."""

    bots: tuple[BotFactory, ...]
    seed: int
    match_hands: int
    seatings: tuple[tuple[int, ...], ...]
    budget: Budget = DEFAULT_BUDGET
    records_every: int = 0
    """Keep the game record of every match of every ``records_every``-th deal (0: none)."""
    lazy_views: bool = True
    """Feed each bot's mirror only when it reads its view (``False``: the plain path,
    every mirror fed at every event; same results, kept for tests)."""
    programs: ProgramSettings = field(default_factory=ProgramSettings)
    """How line-protocol programs among the bots are run (:mod:`sdk.arena.programs`)."""

    @property
    def has_programs(self) -> bool:
        """Whether a bot is a line-protocol program (its matches are played by a table)."""
        return any(f.program is not None for f in self.bots)

    @property
    def hands_per_deal(self) -> int:
        """Hands each deal plays: the match length times the seatings."""
        return self.match_hands * len(self.seatings)


@dataclass(slots=True)
class PlayerTally:
    """One player's numbers in one match (rates are computed by the report)."""

    points: int = 0
    hands: int = 0
    wins: int = 0
    self_draws: int = 0
    deal_ins: int = 0
    tai: int = 0
    """Total tai over this player's wins."""
    draws: int = 0
    """Hands of this match that nobody won."""
    outcomes: dict[str, int] = field(default_factory=dict)
    timing: TimingHistogram = field(default_factory=TimingHistogram)

    def add(self, t: PlayerTally) -> None:
        """Add another tally into this one (the arena sums a bot's players and deals)."""
        self.points += t.points
        self.hands += t.hands
        self.wins += t.wins
        self.self_draws += t.self_draws
        self.deal_ins += t.deal_ins
        self.tai += t.tai
        self.draws += t.draws
        for k, n in t.outcomes.items():
            self.outcomes[k] = self.outcomes.get(k, 0) + n
        self.timing.merge(t.timing)

    @property
    def fallbacks(self) -> int:
        """Decisions answered by the fallback."""
        return sum(n for k, n in self.outcomes.items() if k not in (Outcome.OK, CRASHED))


@dataclass(slots=True)
class MatchRecord:
    """One match of a deal: the seating used, final scores by player and tallies."""

    seating: tuple[int, ...]
    scores: tuple[int, ...]
    players: list[PlayerTally]
    record: bytes | None = None
    """The game record, UTF-8 (:mod:`sdk.records`), for the deals sampled."""


@dataclass(slots=True)
class DealRecord:
    """All the matches of one deal, in the order of the plan's seatings."""

    deal: int
    seed: int
    matches: list[MatchRecord]


def play_deal(plan: ArenaPlan, deal: int) -> DealRecord:
    """Play every seating of ``deal`` with fresh bots (see :mod:`sdk.arena.loader`)."""
    seed = deal_seed(plan.seed, deal)
    matches = [_play_one(plan, deal, seed, seating) for seating in plan.seatings]
    return DealRecord(deal, seed, matches)


def _play_one(plan: ArenaPlan, deal: int, seed: int, seating: tuple[int, ...]) -> MatchRecord:
    every = plan.records_every
    keep = every > 0 and deal % every == 0
    origin = Origin("arena", match_id=record_name(plan, deal, seating), deal=deal) if keep else None
    saved = random.getstate()
    random.seed(_derive(plan.seed, "deal", deal, "global", seating))
    try:
        result = _play(plan, deal, seed, seating, keep, origin)
    finally:
        random.setstate(saved)
    return MatchRecord(
        seating=tuple(seating),
        scores=tuple(result.scores),
        players=[_tally(result, p) for p in range(4)],
        record=result.record_bytes,
    )


def _play(
    plan: ArenaPlan,
    deal: int,
    seed: int,
    seating: tuple[int, ...],
    keep: bool,
    origin: Origin | None,
) -> MatchResult:
    """One match with fresh bots: in-process, or on a table when programs play."""
    made = [f.program or f.make(player_seed(plan.seed, deal, p)) for p, f in enumerate(plan.bots)]
    if plan.has_programs:
        from sdk.arena.programs import play_table_match  # the server's table

        return play_table_match(
            made,
            seed=seed,
            hands=plan.match_hands,
            seats=seating,
            budget=plan.budget,
            settings=plan.programs,
            match_id=record_name(plan, deal, seating),
            origin=origin,
            record=keep,
        )
    return play_match(
        made,  # type: ignore[arg-type]
        seed=seed,
        hands=plan.match_hands,
        seats=seating,
        budget=plan.budget,
        record=keep,
        origin=origin,
        lazy_views=plan.lazy_views,
    )


def record_name(plan: ArenaPlan, deal: int, seating: tuple[int, ...]) -> str:
    """The id of a match of the run: seed, deal and seating (``seating[player] = seat``).

    >>> record_name(ArenaPlan((), 7, 16, ((0, 1, 2, 3),)), 12, (1, 2, 3, 0))
    'arena-7-deal000012-seats1230'
    """
    return f"arena-{plan.seed}-deal{deal:06d}-seats{''.join(map(str, seating))}"


def _tally(result: MatchResult, player: int) -> PlayerTally:
    seat = result.seats[player]
    stats = result.stats[player]
    tally = PlayerTally(points=result.scores[player], outcomes=dict(stats.outcomes))
    tally.timing.add_all(stats.times)
    for hand in result.hand_results:
        _count_hand(tally, hand, seat)
    return tally


def _count_hand(tally: PlayerTally, hand: HandResult, seat: int) -> None:
    tally.hands += 1
    if hand.winner is None:
        tally.draws += 1
    elif hand.winner == seat:
        tally.wins += 1
        tally.self_draws += hand.discarder is None
        tally.tai += int((hand.score or {}).get("total_tai", 0))
    elif hand.discarder == seat:
        tally.deal_ins += 1


def deals_for(hands: int, plan: ArenaPlan) -> int:
    """How many deals cover ``hands`` hands (at least one; whole deals only)."""
    return max(1, -(-hands // plan.hands_per_deal))
