"""``run_arena``: the whole arena run from Python (the command line is a thin wrapper).

>>> from sdk.bot import Bot
>>> first = lambda: Bot.from_function(lambda view, request: request.legal_actions[0], "first")
>>> last = lambda: Bot.from_function(lambda view, request: request.legal_actions[-1], "last")
>>> result = run_arena([first, first, last, last], hands=8, match_hands=2, duplicate=True,
...                    backend="local", seed=3)
>>> result.deals, result.matches, result.hands, [b.label for b in result.bots]
(1, 4, 8, ['first', 'last'])
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from protocol.match import DEFAULT_HANDS
from sdk.arena.deal import ArenaPlan, DealRecord, deals_for, seatings
from sdk.arena.loader import BotFactory, BotSource, load_bot
from sdk.arena.program_settings import ProgramSettings
from sdk.arena.progress import ArenaProgress
from sdk.arena.recordfiles import RecordFiles
from sdk.arena.result import Aggregator, ArenaResult
from sdk.arena.runner import run_deals
from sdk.budget import DEFAULT_BUDGET, Budget

__all__ = ["labels_for", "run_arena"]


def run_arena(
    bots: Sequence[BotSource],
    *,
    hands: int = 1024,
    seed: int = 0,
    duplicate: bool = False,
    all_seatings: bool = False,
    match_hands: int = DEFAULT_HANDS,
    backend: str = "process",
    workers: int | None = None,
    address: str | None = None,
    budget: Budget = DEFAULT_BUDGET,
    save_logs: str | Path | None = None,
    save_logs_every: int = 1,
    progress: bool | None = False,
    level: float = 0.95,
    programs: ProgramSettings | None = None,
    program_cwd: str | None = None,
) -> ArenaResult:
    """Play at least ``hands`` table hands of four bots and report on them.

    Hands come in whole deals: one match of ``match_hands`` hands from a seed derived
    from ``seed`` and the deal number, played once (independent walls) or under the 4
    rotations (``duplicate``) or all 24 seatings (``all_seatings``). ``save_logs``
    writes the game record (``docs/RECORDS.md``) of every match of every
    ``save_logs_every``-th deal into that directory, one file per match named by
    :func:`sdk.arena.deal.record_name`; without it nothing is recorded. ``progress=None``
    shows the bar when stderr is a terminal. Ctrl-C returns a result marked ``partial``.
    A bot may be a line-protocol program (``cmd:`` / ``tcp:``), run as ``programs``
    says (:mod:`sdk.arena.programs`), in folder ``program_cwd``.
    """
    factories = [load_bot(b, program_cwd) for b in bots]
    if len(factories) != 4:
        raise ValueError(f"the arena needs four bots, got {len(factories)}")
    if hands < 1 or match_hands < 1:
        raise ValueError("hands and match_hands must be at least 1")
    if save_logs_every < 1:
        raise ValueError("save_logs_every must be at least 1")
    plan = ArenaPlan(
        bots=tuple(factories),
        seed=seed,
        match_hands=match_hands,
        seatings=tuple(seatings(duplicate or all_seatings, every=all_seatings)),
        budget=budget,
        records_every=save_logs_every if save_logs is not None else 0,
        programs=programs or ProgramSettings(),
    )
    labels = labels_for(factories)
    aggregator = Aggregator(labels, [f.spec for f in factories])
    n_deals = deals_for(hands, plan)
    workers = 1 if backend == "local" else workers or os.cpu_count() or 1
    config = _config(plan, labels, hands, backend, workers)
    with contextlib.ExitStack() as stack:
        records = None if save_logs is None else RecordFiles(save_logs)
        bar = stack.enter_context(ArenaProgress(n_deals * plan.hands_per_deal, enabled=progress))

        def on_deal(record: DealRecord) -> None:
            aggregator.add(record)
            if records is not None:
                records.add(record)
            bar.advance(plan.hands_per_deal, aggregator.standings())

        start = time.monotonic()
        complete = run_deals(
            plan, range(n_deals), backend=backend, workers=workers, address=address,
            on_deal=on_deal,
        )  # fmt: skip
        elapsed = time.monotonic() - start
    return aggregator.result(config, partial=not complete, elapsed=elapsed, level=level)


def labels_for(factories: Sequence[BotFactory]) -> list[str]:
    """A label per player: equal specs share one (they are one bot); different specs
    with the same name are told apart with ``#2``, ``#3``...

    >>> from sdk.arena.loader import BotFactory
    >>> labels_for([BotFactory("a.x", "X"), BotFactory("a.x", "X"), BotFactory("b.x", "X"),
    ...             BotFactory("c", "C")])
    ['X', 'X', 'X#2', 'C']
    """
    by_source: dict[Any, str] = {}
    taken: set[str] = set()
    for f in factories:
        if f.source in by_source:
            continue
        label, n = f.label, 1
        while label in taken:
            n += 1
            label = f"{f.label}#{n}"
        by_source[f.source] = label
        taken.add(label)
    return [by_source[f.source] for f in factories]


def _config(
    plan: ArenaPlan, labels: list[str], hands: int, backend: str, workers: int
) -> dict[str, Any]:
    return {
        "bots": [f.spec for f in plan.bots],
        "labels": labels,
        "seed": plan.seed,
        "hands_requested": hands,
        "match_hands": plan.match_hands,
        "seatings": len(plan.seatings),
        "decision_seconds": plan.budget.decision,
        "backend": backend,
        "workers": workers,
    }
