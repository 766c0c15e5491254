"""Full seeded matches of a line-protocol program against house bots on the local server.

The server (:mod:`sdk.server`, in this process, loopback, an in-memory league) starts
the program for one seat, as ``--seat cmd:...`` would, and fills the other three with a
house bot. Each match's decision records say how every decision of the program was
settled: its own action (``ok``), a claim that lost to a higher one (``overridden``), or
a default (``late``, ``illegal``, ``malformed``, ``disconnected``).
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["MatchRun", "play_matches"]

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
        return sum(n for outcome, n in self.outcomes.items() if outcome not in _OWN)

    @property
    def passed(self) -> bool:
        return self.status == "finished" and self.defaults == 0


async def _play(
    command: Sequence[str], matches: int, hands: int, seed: int, house: str, decision_ms: int
) -> list[MatchRun]:
    import httpx

    from sdk.server.config import ServerConfig
    from sdk.server.runner import running_server

    config = ServerConfig(port=0, db_path=":memory:", allow_commands=True, lobby_wait=3600)
    runs: list[MatchRun] = []
    async with running_server(config) as server, httpx.AsyncClient(base_url=server.url) as http:
        for n in range(matches):
            run = MatchRun(seed + n, n % 4)
            seats = [
                {"seat": s, "bot_name": "program", "transport": "line", "command": list(command)}
                if s == run.seat
                else {"seat": s, "bot_name": house, "transport": "builtin"}
                for s in range(4)
            ]
            body = {"seed": run.seed, "hands": hands, "seats": seats}
            body["timing"] = {"decision_ms": decision_ms}
            created = (await http.post("/v1/tables", json=body)).json()
            while True:
                status = (await http.get(f"/v1/tables/{created['table_id']}")).json()
                if status["status"] in ("finished", "aborted"):
                    break
                await asyncio.sleep(0.1)
            run.status, run.scores = status["status"], status["scores"]
            text = (await http.get(f"/v1/matches/{created['match_id']}/log.jsonl")).text
            for record in map(json.loads, text.splitlines()):
                if record["type"] == "decision" and record["seat"] == run.seat:
                    run.outcomes[record["outcome"]] += 1
                    if record["outcome"] not in _OWN:
                        raw = (record["raw"] or "").replace("\n", " | ")
                        run.faults.append(f"{record['outcome']}: {record['reason']} ({raw!r})")
            runs.append(run)
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
    program's seat turns 0, 1, 2, 3...) and return what happened in each."""
    return asyncio.run(_play(command, matches, hands, seed, house, decision_ms))
