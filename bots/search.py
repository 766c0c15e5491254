"""Search: the defensive bot's judgement, checked by simulation in the time it has.

Defensive looks one move ahead and answers in milliseconds; the rules give 3 seconds.
This bot spends them. For every decision it first asks defensive (its *best guess*, and
the answer if anything goes wrong), then lets flat Monte Carlo search
(:func:`sdk.search.flat.search`) measure the guess against a few alternatives:

* **When.** Only where defensive's danger model is awake (some opponent threatens, by
  :func:`~bots.defensive.threat`) and on claims: with nobody threatening, defensive plays
  greedy's tile efficiency, whose choices differ by far less than what a few dozen
  samples can measure, so searching there only adds noise (``calm=True`` searches
  everywhere).
* **Candidates.** On its own turn: the guess, the safest discard by defensive's danger
  model (the fold), greedy's best discards by tile efficiency (``width`` discards in
  all) and any kong. On another seat's discard: every legal answer. A win is always
  taken at once (a 0-tai win pays, R15; passing one only blocks self-draw, R9).
* **Worlds.** Each sample draws the hidden tiles uniformly among the deals consistent
  with the view (:func:`sdk.search.world.sample_world`) and plays every candidate out in
  that same world with :func:`~sdk.search.policies.guard_policy` (lite tile efficiency
  that folds against shown sets) for all four seats, so candidates are compared world
  by world (common random numbers), by the searching seat's points. ``model=True``
  samples opponents as waiting with defensive's :func:`~bots.defensive.threat` chance
  instead (``sample_world(ready=...)``); ``sampler`` replaces the sampler with your
  own (:data:`~sdk.search.world.WorldSampler`: picklable, with ``workers``);
  ``claims=False`` leaves claims to defensive.
* **Choice.** The candidate with the best mean advantage over the guess wins only if
  that advantage is above ``confidence`` standard errors and ``min_gain`` points;
  otherwise the guess stands. Few samples therefore mean "play like defensive", never
  "play at random".

It stops at the first of: ``samples`` worlds (reproducible: with a seed, the same
decisions every run, whatever the machine's load), ``think_ms``, or the request's
``time_left`` minus 30% of it (at least ``margin``). The clock is read before every playout, so it answers
in time; if the SDK's deadline passes anyway, :meth:`SearchBot.fallback` sends the best
guess so far. ``workers`` > 0 spreads the samples over that many processes.

>>> from bots.defensive import DefensiveBot
>>> from sdk.local import play_match
>>> bot = SearchBot(seed=1, samples=2)
>>> result = play_match([bot, DefensiveBot(), DefensiveBot(), DefensiveBot()], seed=3, hands=1)
>>> result.stats[0].fallbacks, bot.searched > 0
(0, True)

Command line (every bot's options, plus the search's own)::

    python -m bots.search --local --hands 4 --samples 16 --opponents defensive
    python -m bots.search --url ws://127.0.0.1:8765/v1/ws --process-pool 2
"""

from __future__ import annotations

import argparse
import concurrent.futures
import logging
import multiprocessing
import random
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bots.defensive import DefensiveBot, danger, threat
from bots.greedy import Prospect
from protocol.actions import WIN, Action, ActionKind
from protocol.errors import MahjongError
from protocol.hand_state import HandState
from protocol.view import SeatView
from sdk.bot import DecisionRequest, MatchInfo
from sdk.heap import freeze_heap
from sdk.search.flat import CandidateStats, SearchStats, search
from sdk.search.playout import Policy
from sdk.search.policies import guard_policy
from sdk.search.world import WorldSampler
from sdk.view import GameView

__all__ = ["BOT", "SearchBot", "SearchConfig", "main"]

log = logging.getLogger("bots.search")

_KONGS = (ActionKind.CONCEALED_KONG, ActionKind.ADDED_KONG)
MARGIN_SHARE = 0.3
"""Share of the time left that a search leaves unused (at least ``margin`` seconds):
on a loaded machine a playout, a garbage collection or a lost time slice can take far
longer than the playouts measured so far, and the answer must still be in time."""


class SearchBot(DefensiveBot):
    """Defensive's guess, overruled only when simulation says clearly better."""

    name = "search"

    def __init__(
        self,
        seed: int | None = None,
        name: str | None = None,
        *,
        samples: int | None = None,
        think_ms: float | None = None,
        margin: float = 0.08,
        width: int = 4,
        confidence: float = 2.0,
        min_gain: float = 100.0,
        calm: bool = False,
        claims: bool = True,
        model: bool = False,
        workers: int = 0,
        rollout: Policy = guard_policy,
        sampler: WorldSampler | None = None,
    ) -> None:
        super().__init__(name)
        if samples is not None and samples < 1:
            raise ValueError(f"samples must be at least 1, not {samples}")
        if model and sampler is not None:
            raise ValueError("model shapes the worlds of sample_world; a sampler makes its own")
        if think_ms is not None and think_ms <= 0:
            raise ValueError(f"think_ms must be positive, not {think_ms}")
        self.rng = random.Random(seed)
        self.samples, self.think_ms, self.margin = samples, think_ms, margin
        self.width, self.confidence, self.workers = width, confidence, workers
        self.min_gain, self.calm, self.claims, self.model = min_gain, calm, claims, model
        self.rollout, self.sampler = rollout, sampler
        self.searched = 0
        """Decisions that ran a search (for tests and reports)."""
        self.last: SearchStats | None = None
        self._guess: tuple[tuple[Action, ...], Action] | None = None
        self._lock = threading.Lock()
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    # --- deciding ------------------------------------------------------------------------

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        guess = super().choose(view, request)
        self._remember(request, guess)
        if guess is WIN:
            return WIN
        if request.is_claim and not self.claims:
            return guess
        if not (self.calm or request.is_claim or self.threats(view)):
            return guess  # nobody threatens: defensive plays greedy, and so do we
        candidates = self.candidates(view, request, guess)
        deadline = self.deadline(request)
        if len(candidates) < 2 or deadline <= time.monotonic():
            return guess
        seed = self.rng.getrandbits(64)
        ready = self.ready(view) if self.model else None
        try:
            stats = self.run_search(view.seat_view, candidates, seed, deadline, ready)
        except MahjongError as exc:  # an inconsistent view: the guess still stands
            log.warning("search failed (%s); answering the best guess", exc)
            return guess
        self.searched += 1
        self.last = stats
        choice = stats.best(self.confidence, self.min_gain) if stats.samples else guess
        self._remember(request, choice)
        return choice

    def fallback(self, view: GameView, request: DecisionRequest) -> Action:
        """The best guess so far for this request (instant), else the R17 default."""
        with self._lock:
            remembered = self._guess
        if remembered is not None and remembered[0] == request.legal_actions:
            return remembered[1]
        return request.default()

    def candidates(self, view: GameView, request: DecisionRequest, guess: Action) -> list[Action]:
        """The actions worth a search, the guess first (see the module doc)."""
        legal = request.legal_actions
        if request.is_claim:
            return [guess, *(a for a in legal if a != guess and a is not WIN)]
        out = [guess, *(a for a in legal if a.kind in _KONGS and a != guess)]
        seen = view.visible_counts()
        options = self.discards(view, request, seen)
        fold = self.safest(view, options, seen)
        if fold is not None and fold not in out:
            out.append(fold)
        discards = sum(a.kind is ActionKind.DISCARD for a in out)
        for option in options:
            if discards >= self.width:
                break
            action = Action.discard(option.discard)  # type: ignore[arg-type]
            if action not in out:
                out.append(action)
                discards += 1
        return out

    def safest(
        self, view: GameView, options: Sequence[Prospect], seen: Sequence[int]
    ) -> Action | None:
        """The discard of least deal-in risk by defensive's danger model (the most
        efficient among equals), when some opponent threatens; else None."""
        threats = self.threats(view)
        if not threats:
            return None
        best, low = None, float("inf")
        for option in options:
            tile = option.discard
            assert tile is not None
            risk = sum(t * danger(view, s, tile, seen, self.passed[s]) for s, t in threats.items())
            if risk < low:
                best, low = tile, risk
        return None if best is None else Action.discard(best)

    def deadline(self, request: DecisionRequest) -> float:
        """When to stop searching: the request's deadline less ``margin``, or sooner
        with ``think_ms``."""
        now = time.monotonic()
        end = request.deadline - max(self.margin, MARGIN_SHARE * (request.deadline - now))
        if self.think_ms is not None:
            end = min(end, now + self.think_ms / 1000)
        return end

    def ready(self, view: GameView) -> list[float]:
        """The opponent model: each other seat's chance of waiting, by defensive's
        :func:`~bots.defensive.threat` (from its shown sets and its discards)."""
        return [0.0 if s == view.seat else threat(view, s) for s in range(4)]

    def run_search(
        self,
        view: SeatView,
        candidates: Sequence[Action],
        seed: int,
        deadline: float,
        ready: Sequence[float] | None = None,
    ) -> SearchStats:
        """The search in this process, or split over ``workers`` processes (each its
        share of the samples from its own seed, merged in a fixed order)."""
        if self.workers < 2:
            return search(
                view, candidates, random.Random(seed), samples=self.samples,
                deadline=deadline, rollout=self.rollout, ready=ready, sampler=self.sampler,
            )  # fmt: skip
        pool = self._pool or self._start_pool()
        shares = _shares(self.samples, self.workers)
        jobs = []
        for i, share in enumerate(shares):
            job = pool.submit(
                search, view, candidates, random.Random(seed + i), samples=share,
                deadline=deadline, rollout=self.rollout, ready=ready, sampler=self.sampler,
            )  # fmt: skip
            jobs.append(job)
        done, _ = concurrent.futures.wait(jobs, timeout=max(0.0, deadline - time.monotonic()))
        stats = SearchStats([_empty(a) for a in candidates])
        for job in jobs:  # in submission order, so the merge does not depend on timing
            if job in done and job.exception() is None:
                stats.merge(job.result())
            else:
                stats.interrupted = True
        return stats

    def _start_pool(self) -> concurrent.futures.ProcessPoolExecutor:
        """Worker processes, started fresh ("spawn": the bot may run in a thread of a
        program with others, where forking is unsafe) and warmed up with one import."""
        context = multiprocessing.get_context("spawn")
        pool = concurrent.futures.ProcessPoolExecutor(self.workers, mp_context=context)
        for job in [pool.submit(_warm_up) for _ in range(self.workers)]:
            job.result()
        self._pool = pool
        return pool

    def on_match_start(self, info: MatchInfo) -> None:
        """Warm up, freeze the heap (:func:`sdk.heap.freeze_heap`: a full garbage
        collection of a large heap, once measured at 253 ms, can no longer land in a
        decision) and start the worker processes now, in the start-up budget, not in a
        decision's."""
        super().on_match_start(info)
        warm_up()
        freeze_heap()
        if self.workers > 1 and self._pool is None:
            self._start_pool()

    def _remember(self, request: DecisionRequest, action: Action) -> None:
        with self._lock:
            self._guess = (request.legal_actions, action)

    def on_match_end(self, view: GameView, scores: tuple[int, ...]) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def __getstate__(self) -> dict[str, Any]:
        """Picklable (for process pools): without the lock and the worker pool."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("_lock", "_pool")}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock, self._pool = threading.Lock(), None


def warm_up() -> None:
    """One decision of defensive and one small search on a seeded deal: the analysis
    tables and code paths load now (about 100 ms the first time in a process), not in
    the first decision of a match, where a 200 ms budget could not afford them."""
    hand = HandState.new(seed=0, dealer=0)
    view = GameView(hand.view(0))
    legal = hand.legal_actions(0)
    guess = DefensiveBot().choose(view, DecisionRequest(legal, time.monotonic() + 60))
    search(view, [guess, legal[-1]], random.Random(0), samples=1)


def _warm_up() -> None:
    """Warm up a worker process (:func:`warm_up`)."""
    warm_up()


def _shares(samples: int | None, workers: int) -> list[int | None]:
    """``samples`` split over ``workers`` as evenly as possible (None: no limit).

    >>> _shares(10, 3), _shares(None, 2)
    ([4, 3, 3], [None, None])
    """
    if samples is None:
        return [None] * workers
    return [samples // workers + (i < samples % workers) for i in range(workers)]


def _empty(action: Action) -> CandidateStats:
    return CandidateStats(action)


@dataclass(frozen=True)
class SearchConfig:
    """A picklable factory of search bots with fixed settings, for the arena:
    ``run_arena([SearchConfig(samples=8), "bots.defensive", ...])``."""

    samples: int | None = None
    think_ms: float | None = None
    width: int = 4
    confidence: float = 2.0
    workers: int = 0
    min_gain: float = 100.0
    calm: bool = False
    claims: bool = True
    model: bool = False
    rollout: Policy = guard_policy
    sampler: WorldSampler | None = None

    def __call__(self, seed: int | None = None) -> SearchBot:
        return SearchBot(
            seed, "search", samples=self.samples, think_ms=self.think_ms, width=self.width,
            confidence=self.confidence, workers=self.workers, min_gain=self.min_gain,
            calm=self.calm, claims=self.claims, model=self.model, rollout=self.rollout,
            sampler=self.sampler,
        )  # fmt: skip


BOT = SearchBot
"""The bot class this module offers (what loaders look for)."""


def add_options(parser: argparse.ArgumentParser) -> None:
    """The search's own options (``python -m bots.search --help`` lists them)."""
    group = parser.add_argument_group("search")
    group.add_argument(
        "--samples", type=int, default=None, metavar="N",
        help="stop each search after N sampled worlds (reproducible runs)",
    )  # fmt: skip
    group.add_argument(
        "--think-ms", type=float, default=None, metavar="MS",
        help="stop each search after MS milliseconds (default: the time left less a margin)",
    )  # fmt: skip
    group.add_argument(
        "--width", type=int, default=4, metavar="N",
        help="discards searched on its own turn (default: %(default)s)",
    )  # fmt: skip
    group.add_argument(
        "--process-pool", type=int, nargs="?", const=2, default=0, metavar="N",
        dest="search_workers",
        help="spread each search's samples over N processes (default without N: 2)",
    )  # fmt: skip
    # this --process-pool replaces every bot's (choose() in worker processes): the
    # search runs in this process and spreads its own samples
    parser.set_defaults(process_pool=0)


def configure(args: argparse.Namespace) -> SearchConfig:
    """The bot of :func:`add_options`'s values; ``ValueError`` names a bad one."""
    if args.samples is not None and args.samples < 1:
        raise ValueError(f"--samples must be at least 1, not {args.samples}")
    if args.think_ms is not None and not args.think_ms > 0:
        raise ValueError(f"--think-ms must be positive, not {args.think_ms}")
    if args.width < 1:
        raise ValueError(f"--width must be at least 1, not {args.width}")
    if args.search_workers < 0:
        raise ValueError(f"--process-pool must be 0 or more, not {args.search_workers}")
    return SearchConfig(args.samples, args.think_ms, args.width, workers=args.search_workers)


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m bots.search``: every bot's options (:mod:`sdk.cli`) plus the search's
    own (:func:`add_options`): ``--samples N``, ``--think-ms MS``, ``--width N`` and
    ``--process-pool N`` (the search's samples spread over N processes)."""
    from sdk.cli import BotOptions, run

    run(SearchBot, argv, options=BotOptions(add_options, configure))


if __name__ == "__main__":
    main()
