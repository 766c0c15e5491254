"""Full seeded matches of a line-protocol program against house bots on the local server.

The server (:mod:`sdk.server`, in this process, loopback, an in-memory league) starts
the program for one seat, as ``--seat cmd:...`` would, and fills the other three with a
house bot. Each match's decision records say how every decision of the program was
settled: its own action (``ok``), a claim that lost to a higher one (``overridden``), or
a default (``late``, ``illegal``, ``malformed``, ``disconnected``).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import ValidationError

from protocol.wire.messages import Timing
from protocol.wire.rest import SeatAssignment, TableCreate
from sdk.records import parse_text
from sdk.replay.numbering import step_label
from sdk.rest import RestClient, RestError

__all__ = ["MatchRun", "MatchSetupError", "play_matches"]

_OWN = ("ok", "overridden")


@dataclass(slots=True)
class MatchRun:
    """One match: the program's seat, the seed, its decision outcomes and the scores."""

    seed: int
    seat: int
    status: str = ""
    outcomes: Counter[str] = field(default_factory=Counter)
    faults: list[str] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)

    @property
    def defaults(self) -> int:
        """Decisions answered by the server's default rather than the program."""
        return sum(n for outcome, n in self.outcomes.items() if outcome not in _OWN)

    @property
    def passed(self) -> bool:
        """Whether the match finished with every decision the program's own."""
        return self.status == "finished" and self.defaults == 0


class MatchSetupError(ValueError):
    """The options do not make a valid table (``--hands 0``, ``--limit 0``...): a usage
    error, reported in one line before any server is started."""


def _seats(command: Sequence[str], seat: int, house: str) -> list[SeatAssignment]:
    """The program at ``seat``, the house bot ``house`` at the three others."""
    return [
        SeatAssignment(seat=s, bot_name="program", transport="line", command=list(command))
        if s == seat
        else SeatAssignment(seat=s, bot_name=house, transport="builtin")
        for s in range(4)
    ]


def _table(command: Sequence[str], run: MatchRun, hands: int, house: str, ms: int) -> TableCreate:
    """The ``POST /v1/tables`` body of ``run``; :class:`MatchSetupError` (one line) if
    the options do not fit the protocol's limits."""
    try:
        return TableCreate(
            seed=run.seed,
            hands=hands,
            timing=Timing(decision_ms=ms),
            seats=_seats(command, run.seat, house),
        )
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"]) or "table"
        raise MatchSetupError(f"{where}: {error['msg']}") from None


async def _decisions(rest: RestClient, run: MatchRun, match_id: str) -> None:
    """Count how each of the program's decisions was settled, from the match's game
    record (``log.jsonl``, read by :func:`sdk.records.parse_text`; not a typed resource
    of :class:`RestClient`)."""
    path = f"/v1/matches/{match_id}/log.jsonl"
    response = await rest.http.get(path)
    if response.is_error:
        raise RestError(response.status_code, response.text[:200] or "no body")
    record = parse_text(response.text, source=path)
    for decision in record.decisions:
        if decision.seat == run.seat:
            outcome = str(decision.outcome)
            run.outcomes[outcome] += 1
            if outcome not in _OWN:
                raw = (decision.raw or "").replace("\n", " | ")
                where = step_label(record, decision.after_event)
                run.faults.append(f"{where}: {outcome}: {decision.reason} ({raw!r})")


async def _play_one(rest: RestClient, table: TableCreate, run: MatchRun) -> None:
    """Create the table, wait for its end and fill ``run``. An error answer of the
    server (an unknown house bot...) raises :class:`~sdk.rest.RestError`."""
    created = await rest.create_table(table)
    while True:
        status = await rest.table(created.table_id)
        if status.status in ("finished", "aborted", "incomplete"):
            break
        await asyncio.sleep(0.1)
    run.status, run.scores = status.status, list(status.scores)
    await _decisions(rest, run, created.match_id)


async def _play(
    command: Sequence[str], matches: int, hands: int, seed: int, house: str, decision_ms: int
) -> list[MatchRun]:
    from sdk.server.config import ServerConfig
    from sdk.server.runner import running_server

    runs = [MatchRun(seed + n, n % 4) for n in range(matches)]
    tables = [_table(command, run, hands, house, decision_ms) for run in runs]
    config = ServerConfig(port=0, db_path=":memory:", allow_commands=True, lobby_wait=3600)
    async with running_server(config) as server, RestClient(server.url) as rest:
        for table, run in zip(tables, runs, strict=True):
            await _play_one(rest, table, run)
    return runs


def play_matches(
    command: Sequence[str],
    *,
    matches: int = 1,
    hands: int = 4,
    seed: int = 1,
    house: str = "greedy",
    decision_ms: int = 3000,
) -> list[MatchRun]:
    """Play ``matches`` matches of ``hands`` hands (seeds ``seed``, ``seed + 1``...; the
    program's seat turns 0, 1, 2, 3...) and return what happened in each. Raises
    :class:`MatchSetupError` for options that make no valid table and
    :class:`~sdk.rest.RestError` when the server refuses one (an unknown house bot)."""
    return asyncio.run(_play(command, matches, hands, seed, house, decision_ms))
