"""Leagues: more than four entries, Python bots and programs in any language, in one run.

The schedule is balanced: every group of four entries (every 4-subset) sits at one
*table* per round, so every entry meets every other equally often; each table plays one
deal (one match seed) in the four rotations, each entry at each seat once (duplicate
seating, as the arena's ``--duplicate``). Tables are played by the arena's own deal
player (:func:`sdk.arena.deal.play_deal`: programs on a tournament table, see
:mod:`sdk.arena.programs`), several at once with ``workers``.

A league lives in a folder: ``league.json`` (its entries and settings), one result file
per table played (``tables/``), the game record of every match (``records/``) and the
results page (``league.html``, :mod:`sdk.arena.league_report`). Run it again with the
same entries and settings and it plays only the tables still missing: an interrupted
league resumes where it stopped.

>>> schedule(5, rounds=1)[:2], len(schedule(5, rounds=2)), len(schedule(8, rounds=1))
([(0, 1, 2, 3), (0, 1, 2, 4)], 10, 70)
"""

from __future__ import annotations

import itertools
import json
import multiprocessing
import os
import pickle
import signal
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from protocol.match import rotations
from sdk.arena.deal import ArenaPlan, DealRecord, play_deal, record_name
from sdk.arena.loader import BotFactory
from sdk.arena.program_settings import ProgramSettings, pin_worker, stop_programs_on_sigterm
from sdk.budget import DEFAULT_BUDGET, Budget

__all__ = ["League", "LeagueMismatchError", "schedule"]

TABLES_DIR, RECORDS_DIR, CONFIG_FILE = "tables", "records", "league.json"


class LeagueMismatchError(ValueError):
    """The folder holds a league with other entries or settings."""


def schedule(entries: int, rounds: int) -> list[tuple[int, ...]]:
    """The entries at each table, in order: every 4-subset once per round."""
    if entries < 4:
        raise ValueError(f"a league needs at least four entries, got {entries}")
    groups = list(itertools.combinations(range(entries), 4))
    return [g for _ in range(rounds) for g in groups]


@dataclass(frozen=True)
class League:
    """A league's entries (:class:`~sdk.arena.loader.BotFactory`, labels told apart),
    schedule and settings; :meth:`run` plays what is missing in ``folder``."""

    entries: tuple[BotFactory, ...]
    labels: tuple[str, ...]
    folder: Path
    rounds: int = 1
    seed: int = 0
    match_hands: int = 16
    budget: Budget = DEFAULT_BUDGET
    programs: ProgramSettings = field(default_factory=ProgramSettings)

    @property
    def tables(self) -> list[tuple[int, ...]]:
        """The entries (indices) at each table."""
        return schedule(len(self.entries), self.rounds)

    def plan(self, table: int) -> ArenaPlan:
        """The arena plan of one table (its four entries, the four rotations)."""
        group = self.tables[table]
        return ArenaPlan(
            bots=tuple(self.entries[i] for i in group),
            seed=self.seed,
            match_hands=self.match_hands,
            seatings=tuple(rotations()),
            budget=self.budget,
            records_every=1,
            programs=self.programs,
        )

    def config(self) -> dict[str, Any]:
        """What identifies the league (kept in ``league.json``; a resume must match)."""
        return {
            "entries": [f.spec for f in self.entries],
            "labels": list(self.labels),
            "rounds": self.rounds,
            "seed": self.seed,
            "match_hands": self.match_hands,
            "decision_seconds": self.budget.decision,
        }

    def table_path(self, table: int) -> Path:
        """Where a played table's result is kept."""
        return self.folder / TABLES_DIR / f"table-{table:06d}.pickle"

    def missing(self) -> list[int]:
        """The tables not played yet."""
        return [t for t in range(len(self.tables)) if not self.table_path(t).exists()]

    def results(self) -> dict[int, DealRecord]:
        """Every table played so far, by table number."""
        out = {}
        for t in range(len(self.tables)):
            path = self.table_path(t)
            if path.exists():
                out[t] = pickle.loads(path.read_bytes())
        return out

    def prepare(self) -> None:
        """Create the folder, or check that it holds this league."""
        path = self.folder / CONFIG_FILE
        config = self.config()
        if path.exists():
            saved = json.loads(path.read_text())
            if saved != config:
                changed = sorted(k for k in config if saved.get(k) != config[k])
                raise LeagueMismatchError(
                    f"{self.folder} holds another league ({', '.join(changed)} differ): "
                    "give a new folder, or the same entries and settings to resume"
                )
        (self.folder / TABLES_DIR).mkdir(parents=True, exist_ok=True)
        (self.folder / RECORDS_DIR).mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(config, indent=1) + "\n")

    def run(self, workers: int = 1, on_table: Callable[[int], None] | None = None) -> bool:
        """Play the missing tables (``workers`` at once); ``True`` when all are played,
        ``False`` after Ctrl-C (what was played is kept)."""
        self.prepare()
        todo = self.missing()
        try:
            for table, record in _played(self, todo, workers):
                self._keep(table, record)
                if on_table is not None:
                    on_table(table)
        except KeyboardInterrupt:
            return False
        return True

    def _keep(self, table: int, record: DealRecord) -> None:
        """Write the table's records, then its result (atomically: a table is either
        wholly kept or played again)."""
        for match in record.matches:
            if match.record is not None:
                name = _record_id(match.record)
                (self.folder / RECORDS_DIR / f"{name}.jsonl").write_bytes(match.record)
        slim = replace(record, matches=[replace(m, record=None) for m in record.matches])
        path = self.table_path(table)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(pickle.dumps(slim))
        os.replace(tmp, path)

    def match_ids(self, table: int) -> list[str]:
        """The ids (record file names) of a table's matches, in rotation order."""
        plan = self.plan(table)
        return [record_name(plan, table, s) for s in plan.seatings]


def _record_id(data: bytes) -> str:
    header = json.loads(data.partition(b"\n")[0])
    return str(header["origin"]["match_id"])


def _played(league: League, todo: Sequence[int], workers: int) -> Iterator[tuple[int, DealRecord]]:
    """Play ``todo``, yielding each table as it finishes."""
    if workers <= 1 or len(todo) <= 1:
        for table in todo:
            yield table, play_deal(league.plan(table), table)
        return
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    counter = context.Value("i", 0)
    pool = context.Pool(
        workers, initializer=_init_worker, initargs=(counter, league.programs.cores)
    )
    try:
        tasks = [(league.plan(t), t) for t in todo]
        yield from pool.imap_unordered(_play_table, tasks)
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def _init_worker(counter: Any, cores: int) -> None:
    """Ignore Ctrl-C (the parent handles it); multi-core programs get cores of their own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stop_programs_on_sigterm()
    pin_worker(counter, cores)


def _play_table(task: tuple[ArenaPlan, int]) -> tuple[int, DealRecord]:
    plan, table = task
    return table, play_deal(plan, table)


if __name__ == "__main__":  # python -m sdk.arena.league: the league command
    import sys

    from sdk.arena.league_cli import main

    sys.exit(main())
