"""Programs the server starts (``--seat cmd:...``, issue #12 item 5 / #16 item 7).

A program that prints start-up noise, floods its standard error, leaves a child and a
``setsid`` daemon behind and busy-loops after ``/exit`` plays its match with every
decision its own; its standard error lands in a capped per-seat file; when the match ends
its whole process tree is gone, the daemon too (issue #32 item 5), whether the program
busy-loops (killed after the grace) or exits. A program answering garbage at another table stalls neither table.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

import httpx
import pytest

from sdk.server.config import ServerConfig
from sdk.server.runner import running_server

BOTS = Path(__file__).parent / "server_bots"
CAP = 100_000


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state != "Z"  # a zombie has ended (its parent is gone or has not reaped it)


async def _create(http: httpx.AsyncClient, seed: int, command: list[str]) -> dict:
    seats = [{"seat": 0, "bot_name": "prog", "transport": "line", "command": command}] + [
        {"seat": s, "bot_name": "random", "transport": "builtin"} for s in (1, 2, 3)
    ]
    response = await http.post("/v1/tables", json={"seed": seed, "hands": 2, "seats": seats})
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]


async def _finish(http: httpx.AsyncClient, created: dict) -> list[dict]:
    for _ in range(1200):
        status = (await http.get(f"/v1/tables/{created['table_id']}")).json()
        if status["status"] in ("finished", "aborted"):
            break
        await asyncio.sleep(0.05)
    assert status["status"] == "finished", status
    text = (await http.get(f"/v1/matches/{created['match_id']}/log.jsonl")).text
    return [json.loads(line) for line in text.splitlines()]


async def test_noisy_lingering_programs_play_and_are_cleaned_up(tmp_path: Path) -> None:
    logs = tmp_path / "programs"
    config = ServerConfig(
        port=0,
        db_path=str(tmp_path / "league.db"),
        allow_commands=True,
        subprocess_grace=0.5,
        program_log_dir=str(logs),
        program_stderr_bytes=CAP,
    )
    pids = tmp_path / "pids.txt"
    noisy = [sys.executable, str(BOTS / "noisy_line.py"), "--pids", str(pids)]
    noisy += ["--noise", "300", "--stderr-bytes", str(3 * CAP), "--detach"]
    garbage = [sys.executable, str(BOTS / "line_bot.py"), "--mode", "garbage"]
    # (a leftover child keeps the program's pipes open: without the group kill, closing
    # the seat would wait forever, hence the time limit)
    async with asyncio.timeout(120):
        async with running_server(config) as server, httpx.AsyncClient(base_url=server.url) as c:
            first = await _create(c, 81, noisy)
            second = await _create(c, 82, garbage)
            records, spoiled = await asyncio.gather(_finish(c, first), _finish(c, second))
    mine = [r for r in records if r["type"] == "decision" and r["seat"] == 0]
    assert mine and all(r["outcome"] == "ok" for r in mine)  # the noise cost nothing
    bad = [r for r in spoiled if r["type"] == "decision" and r["seat"] == 0]
    assert bad and all(r["outcome"] in ("illegal", "malformed") for r in bad)
    stderr = logs / f"{first['match_id']}-seat0.stderr"
    assert CAP <= stderr.stat().st_size <= CAP + 100
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) == 3  # the child, the program, the setsid daemon
    await _all_gone(started)


async def _all_gone(pids: list[int]) -> None:
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert not any(_alive(p) for p in pids), [
        (p, Path(f"/proc/{p}/stat").read_text()[:80]) for p in pids if _alive(p)
    ]
    assert os.getpid() not in pids


async def test_a_setsid_grandchild_ends_with_its_programs_match(tmp_path: Path) -> None:
    """A program that exits after its match leaves a daemon in a session of its own
    (re-parented away from it at once): the daemon ends with the match too."""
    config = ServerConfig(
        port=0, db_path=str(tmp_path / "league.db"), allow_commands=True, subprocess_grace=5.0
    )
    pids = tmp_path / "pids.txt"
    command = [sys.executable, str(BOTS / "noisy_line.py"), "--pids", str(pids), "--noise", "0"]
    async with asyncio.timeout(120):
        async with running_server(config) as server, httpx.AsyncClient(base_url=server.url) as c:
            await _finish(c, await _create(c, 83, [*command, "--detach", "--then-exit"]))
            started = [int(p) for p in pids.read_text().split()]
            assert len(started) == 3  # the child, the program, the daemon in its session
            await _all_gone(started)  # within 10 s (without the keeper the daemon lives on)


async def test_a_started_programs_name_is_one_start_word_whatever_its_file_name() -> None:
    """``--seat cmd:PATH``: the seat's name is the file name made one ASCII word, so the
    ``/start MJ <seat> <name>`` line can carry it (a space or a non-ASCII letter in the
    file name would otherwise make the table refuse the seat)."""
    from protocol.line.codec import StartLine
    from sdk.server.core import parse_seat_spec

    entrant = parse_seat_spec("cmd:'/opt/bots/my bot 機器' --level 3")
    assert entrant.name == "my_bot___" and entrant.command == [
        "/opt/bots/my bot 機器",
        "--level",
        "3",
    ]
    assert StartLine(0, entrant.name).format() == "/start MJ 1 my_bot___"


@pytest.mark.parametrize(
    ("spec", "name"),
    [
        ("cmd:python mybot.py --line", "mybot.py"),
        ("cmd:/usr/bin/python3.11 -u ./bots/my_bot.py --line", "my_bot.py"),
        ("cmd:python -m bots.greedy --line", "bots.greedy"),
        ("cmd:java -Xmx1g -jar 'tourney bot.jar'", "tourney_bot.jar"),
        ("cmd:python -c 'import x'", "python"),
        ("cmd:./pythonic_bot --line", "pythonic_bot"),  # not an interpreter
    ],
)
async def test_a_program_run_by_an_interpreter_is_named_after_what_it_runs(
    spec: str, name: str
) -> None:
    # every Python bot was "python" in the table log and on the leaderboard
    from sdk.server.core import parse_seat_spec

    assert parse_seat_spec(spec).name == name
