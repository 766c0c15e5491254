"""Flat Monte Carlo over sampled worlds: how much each candidate action is worth.

For each sample, one world is drawn (:func:`~sdk.search.world.sample_world`), its state
built once (:func:`~sdk.search.state.state_from_world`), and every candidate is played
from a :func:`~sdk.search.state.fork` of it to the end of the hand with the rollout
policy. All candidates see the same worlds (common random numbers), so the differences
between them are measured far more precisely than their values: a candidate is compared
with a *reference* action (the bot's own best guess) sample by sample.

The search is anytime: it stops after ``samples`` samples or before ``deadline``
(:func:`time.monotonic`), whichever comes first, and what it has measured so far is the
answer. Before every playout it checks that the time left is more than twice the
slowest playout so far, so that it is done by the deadline even on a loaded machine.

>>> import random
>>> from protocol.hand_state import HandState
>>> hand = HandState.new(seed=9, dealer=0)
>>> legal = hand.legal_actions(0)
>>> stats = search(hand.view(0), legal[:3], random.Random(1), samples=4)
>>> [s.visits for s in stats.candidates], stats.samples
([4, 4, 4], 4)
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from protocol.actions import Action
from protocol.view import SeatView
from sdk.search.playout import Policy, playout
from sdk.search.policies import lite_policy
from sdk.search.state import fork, state_from_world
from sdk.search.world import WorldSampler, WorldWeight, sample_world
from sdk.view import GameView

__all__ = ["CandidateStats", "SearchStats", "search"]


@dataclass(slots=True)
class CandidateStats:
    """What the playouts of one candidate gave the searching seat."""

    action: Action
    visits: int = 0
    total: float = 0.0
    """Sum of the seat's points over the playouts."""
    diff: float = 0.0
    """Sum of (this candidate's points - the reference's) over the same worlds."""
    diff_sq: float = 0.0

    @property
    def mean(self) -> float:
        """The mean value of this candidate's playouts (0 before any)."""
        return self.total / self.visits if self.visits else 0.0

    @property
    def advantage(self) -> float:
        """Mean points over the reference action, world by world."""
        return self.diff / self.visits if self.visits else 0.0

    @property
    def stderr(self) -> float:
        """Standard error of :attr:`advantage` (infinite below two visits)."""
        n = self.visits
        if n < 2:
            return math.inf
        var = (self.diff_sq - self.diff * self.diff / n) / (n - 1)
        return math.sqrt(max(var, 0.0) / n)

    def merge(self, other: CandidateStats) -> None:
        """Add another worker's counts for the same candidate."""
        self.visits += other.visits
        self.total += other.total
        self.diff += other.diff
        self.diff_sq += other.diff_sq


@dataclass(slots=True)
class SearchStats:
    """The result of :func:`search`: one entry per candidate, the reference first."""

    candidates: list[CandidateStats]
    samples: int = 0
    """Worlds whose every candidate was played out."""
    playouts: int = 0
    interrupted: bool = False
    """The deadline stopped the search before ``samples``."""
    seconds: float = field(default=0.0, compare=False)

    def best(self, confidence: float = 1.0, min_gain: float = 0.0) -> Action:
        """The candidate with the highest advantage over the reference, if that
        advantage exceeds ``confidence`` standard errors and ``min_gain`` points; else
        the reference."""
        ref = self.candidates[0]
        top = max(self.candidates, key=lambda c: c.advantage)
        if top is ref or top.advantage <= max(confidence * top.stderr, min_gain):
            return ref.action
        return top.action

    def merge(self, other: SearchStats) -> None:
        """Add another worker's statistics, candidate by candidate."""
        for mine, theirs in zip(self.candidates, other.candidates, strict=True):
            mine.merge(theirs)
        self.samples += other.samples
        self.playouts += other.playouts
        self.interrupted = self.interrupted or other.interrupted


def search(
    view: SeatView | GameView,
    candidates: Sequence[Action],
    rng: random.Random,
    *,
    samples: int | None = None,
    deadline: float | None = None,
    rollout: Policy = lite_policy,
    weight: WorldWeight | None = None,
    ready: Sequence[float] | None = None,
    sampler: WorldSampler | None = None,
) -> SearchStats:
    """Play every candidate (the first is the reference) out in the same sampled worlds
    until ``samples`` worlds are done or the ``deadline`` passes (at least one of them
    must be given). Candidates must be legal for the seat now. ``weight`` and ``ready``
    go to :func:`~sdk.search.world.sample_world`; ``sampler`` replaces it with your own
    (``sampler(view, rng)`` returns a :class:`~sdk.search.world.World` for the seat:
    a particle filter, a learned model, or in a benchmark the truth)."""
    if samples is None and deadline is None:
        raise ValueError("give samples, a deadline or both: a search must end")
    if not candidates:
        raise ValueError("nothing to search: no candidate actions")
    if sampler is not None and (weight is not None or ready is not None):
        raise ValueError("give a sampler, or weight and ready for sample_world, not both")
    sv = view.seat_view if isinstance(view, GameView) else view
    seat = sv.seat
    policies = [rollout] * 4
    stats = SearchStats([CandidateStats(a) for a in candidates])
    clock = time.monotonic
    start = clock()
    limit = math.inf if deadline is None else deadline
    todo = math.inf if samples is None else samples
    slowest = 0.0
    while stats.samples < todo:
        world = sample_world(sv, rng, weight, ready=ready) if sampler is None else sampler(sv, rng)
        base = state_from_world(sv, world)
        points = []
        for entry in stats.candidates:
            begin = clock()
            if begin + 2 * slowest >= limit:
                stats.interrupted = True
                stats.seconds = begin - start
                return stats
            state = fork(base)
            state.apply(seat, entry.action)
            points.append(playout(state, policies, rng).result.payments[seat])
            stats.playouts += 1
            slowest = max(slowest, clock() - begin)
        ref = points[0]
        for entry, p in zip(stats.candidates, points, strict=True):
            entry.visits += 1
            entry.total += p
            entry.diff += p - ref
            entry.diff_sq += (p - ref) * (p - ref)
        stats.samples += 1
    stats.seconds = clock() - start
    return stats
