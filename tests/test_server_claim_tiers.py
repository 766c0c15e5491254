"""The server asks line-protocol seats for claims tier by tier (issue #12 item 1).

A program that removes a claim's tiles from its hand the moment it answers (as the
public tournament client does) plays whole seeded matches against three house bots that
claim everything they may: every answer it gives is applied, so it never loses track of
its hand, and none of its decisions is a default. A chow that loses to a pung is
recorded as ``overridden``, never as an applied chow. (Asked everything at once, the
same program loses track of its hand in these seeded matches: seeds 72 and 73.)
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import httpx

from sdk.server.config import ServerConfig
from sdk.server.runner import running_server

EAGER = Path(__file__).parent / "server_bots" / "eager_line.py"
HOUSE = {"claimer": "server_bots.claimer:Claimer"}


async def _play(url: str, seed: int, hands: int, program_seat: int, report: Path) -> list[dict]:
    command = [sys.executable, str(EAGER), "--report", str(report)]
    seats = [
        {"seat": s, "bot_name": "eager", "transport": "line", "command": command}
        if s == program_seat
        else {"seat": s, "bot_name": "claimer", "transport": "builtin"}
        for s in range(4)
    ]
    async with httpx.AsyncClient(base_url=url) as http:
        response = await http.post(
            "/v1/tables", json={"seed": seed, "hands": hands, "seats": seats}
        )
        assert response.status_code == 201, response.text
        created = response.json()
        for _ in range(600):
            status = (await http.get(f"/v1/tables/{created['table_id']}")).json()
            if status["status"] in ("finished", "aborted"):
                break
            await asyncio.sleep(0.05)
        assert status["status"] == "finished", status
        text = (await http.get(f"/v1/matches/{created['match_id']}/log.jsonl")).text
    for _ in range(100):  # the program writes its report as it exits
        if report.exists():
            break
        await asyncio.sleep(0.05)
    return [json.loads(line) for line in text.splitlines()]


async def test_an_eager_program_against_aggressive_claimers_never_loses_its_hand(
    tmp_path: Path,
) -> None:
    config = ServerConfig(
        port=0, db_path=str(tmp_path / "league.db"), allow_commands=True, house_bots=HOUSE
    )
    decisions: list[dict] = []
    claims = 0
    async with running_server(config) as server:
        for n, (seed, seat) in enumerate([(71, 1), (72, 2), (73, 0), (74, 3)]):
            report = tmp_path / f"eager{n}.json"
            records = await _play(server.url, seed, 8, seat, report)
            found = json.loads(report.read_text())
            assert found["mismatches"] == 0, found["notes"]
            claims += found["claims"]
            mine = [r for r in records if r["type"] == "decision" and r["seat"] == seat]
            assert mine and all(r["outcome"] in ("ok", "overridden") for r in mine), [
                r for r in mine if r["outcome"] not in ("ok", "overridden")
            ]
            # its pung, kong or chow answers are applied: only a win can lose (to a win)
            lost = [r for r in mine if r["outcome"] == "overridden"]
            assert all(r["applied"]["type"] == "win" for r in lost)
            decisions += [r for r in records if r["type"] == "decision"]
    assert claims > 0
    chows_lost = [
        d for d in decisions if d["outcome"] == "overridden" and d["applied"]["type"] == "chow"
    ]
    assert all("lost to seat" in d["reason"] for d in chows_lost)
    assert any(d["reason"].endswith("'s pung (R5)") for d in chows_lost), chows_lost
