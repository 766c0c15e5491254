"""The conformance kit (issue #12 item 6): programs, matches and referees checked.

Our greedy bot passes every shipped transcript; a deliberately broken program (wrong
ids, a late reply, garbage) gets one clear line per fault and exit code 1. A referee
check of our own server passes; a referee that sends an unknown line and a line that
does not fit the game gets both reported, and the bot answers on regardless.
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from pathlib import Path

import httpx
import pytest

from protocol.line.conformance.sources import unsent_forms
from sdk.conformance.cli import main, shipped_transcripts
from sdk.server.config import ServerConfig
from sdk.server.runner import running_server

BROKEN = Path(__file__).parent / "server_bots" / "broken_line.py"
GREEDY = [sys.executable, "-m", "bots.greedy", "--line"]


def test_the_shipped_transcripts_cover_the_public_behaviours() -> None:
    names = {t.name for t in shipped_transcripts()}
    assert {"claim_tiers", "physical_ids", "public_referee_forms"} <= names
    assert all(t.comment and t.referee_lines for t in shipped_transcripts())


def test_greedy_passes_every_transcript(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["program", "--", *GREEDY]) == 0
    out = capsys.readouterr().out
    assert "FAULT" not in out
    assert out.strip().splitlines()[-1].startswith("PASS: 3 transcripts")


def test_a_broken_program_gets_each_fault_reported(capsys: pytest.CaptureFixture[str]) -> None:
    command = [sys.executable, str(BROKEN), "--sleep", "0.8"]
    assert main(["program", "--limit", "0.5", "--", *command]) == 1
    out = capsys.readouterr().out
    faults = [line for line in out.splitlines() if "FAULT" in line]
    assert any("ids_not_held: tile id 473 is not in the hand" in f for f in faults)
    assert any("late: replied after" in f for f in faults)
    assert any("malformed: unknown command '/dance'" in f for f in faults)
    assert any("not_legal: /ask throw cannot be passed" in f for f in faults)
    assert out.strip().splitlines()[-1].startswith("FAIL:")


def test_a_match_against_house_bots(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["program", "--match", "--matches", "1", "--hands", "2", "--seed", "5"]
    assert main([*args, "--", *GREEDY]) == 0
    out = capsys.readouterr().out
    assert "defaults: 0" in out and out.strip().splitlines()[-1] == "PASS: 1 matches, 0 defaults"
    # one numbering: seats 0..3 as in the scores (it printed "seat 1" by the score of seat 0)
    assert "program at seat 0: finished" in out
    scores = next(line for line in out.splitlines() if line.strip().startswith("scores:"))
    assert re.search(r"seat 0 [+-]\d+ \(the program\), seat 1 [+-]\d+, seat 2", scores)


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["program"]) == 2
    assert "give the program after --" in capsys.readouterr().err
    assert main(["fly"]) == 2
    assert main(["referee", "--tcp", "nowhere"]) == 2


async def test_our_server_passes_the_referee_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = ServerConfig(  # --open-line-seats: the kit sends no /token line
        port=0, line_port=0, db_path=str(tmp_path / "l.db"), lobby_wait=3600, line_tokens=False
    )
    seats = [{"seat": 0, "bot_name": "kit", "transport": "line"}] + [
        {"seat": s, "bot_name": "greedy", "transport": "builtin"} for s in (1, 2, 3)
    ]
    async with running_server(config) as server, httpx.AsyncClient(base_url=server.url) as http:
        body = {"seed": 9, "hands": 2, "seats": seats}
        assert (await http.post("/v1/tables", json=body)).status_code == 201
        address = f"127.0.0.1:{server.line_port}"
        code = await asyncio.to_thread(main, ["referee", "--tcp", address])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.strip().splitlines()[-1].startswith("PASS:")


async def test_a_faulty_referee_is_reported_and_the_bot_plays_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    script = [
        "/start MJ 2 kit",
        "/initGame east east 1 1 0",
        "/initCard 110 120 130 150 151 160 170 180 190 210 220 230 310 320 330 410",
        "/fly 1",  # unknown: logged and skipped
        "/throw 1 111",
        "/throw 2 463",  # seat 2 is us: we never held 463
        "/throw 3 112",
        "/throw 4 113",
        "/throw 1 411",
        "/mo 411",
        "/ask throw",
        "/exit",
    ]
    replies: list[str] = []

    async def referee(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for line in script:
            writer.write((line + "\n").encode())
            await writer.drain()
            if line == "/ask throw":
                replies.append((await reader.readline()).decode().strip())
        writer.close()

    server = await asyncio.start_server(referee, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        code = await asyncio.to_thread(main, ["referee", "--tcp", f"127.0.0.1:{port}"])
    out = capsys.readouterr().out
    assert code == 1
    assert "FAULT unparsable: unknown command '/fly'" in out
    assert "FAULT mismatch:" in out and "'/throw 2 463'" in out
    assert replies and replies[0].startswith("/throw ")


def test_our_bot_logs_and_skips_an_unknown_referee_line() -> None:
    import subprocess

    lines = [
        "/start MJ 1 kit",
        "/initGame East East 1 1 0",
        "/initCard 110 120 130 150 151 160 170 180 190 210 220 230 310 320 330 410 411",
        "/fly away",
        "/ask throw",
    ]
    bot = subprocess.Popen(
        GREEDY, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert bot.stdin is not None and bot.stdout is not None
    bot.stdin.write("\n".join(lines) + "\n")
    bot.stdin.flush()
    answer = bot.stdout.readline()
    _, err = bot.communicate("/exit\n", timeout=120)
    assert answer.startswith("/throw ") and bot.returncode == 0, err
    assert "/fly away" in err


def test_the_referee_check_on_stdin_and_stdout() -> None:
    import subprocess

    kit = [sys.executable, "-m", "sdk.conformance", "referee", "--stdio"]
    proc = subprocess.Popen(
        kit, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdin is not None and proc.stdout is not None
    deal = "110 120 130 150 151 160 170 180 190 210 220 230 310 320 330 410 411"
    proc.stdin.write(f"/start MJ 1 kit\n/ready\n/initGame east east 1 1 0\n/initCard {deal}\n")
    proc.stdin.write("/ask throw\n")
    proc.stdin.flush()
    assert proc.stdout.readline().strip() == "/ready"
    answer = proc.stdout.readline().strip()
    _, report = proc.communicate("/exit\n", timeout=120)
    assert answer.startswith("/throw ") and proc.returncode == 0, report
    assert report.strip().splitlines()[-1].startswith("PASS: 6 lines received, 1 decisions")


# -- issue #32 item 6: transcripts that model the public referee; deaths told as such --

SHIPPED = Path(__file__).parents[1] / "protocol" / "line" / "conformance" / "transcripts"
PUBLIC = Path(__file__).parent / "server_bots" / "public_parser_line.py"
DYING = Path(__file__).parent / "server_bots" / "dying_line.py"


def test_the_shipped_transcripts_use_only_forms_a_public_referee_sends() -> None:
    for transcript in shipped_transcripts():
        assert unsent_forms(transcript.referee_lines) == [], transcript.name


@pytest.mark.parametrize("name", ["claim_tiers", "physical_ids", "public_referee_forms"])
def test_a_program_parsing_like_the_public_client_passes(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    command = [sys.executable, str(PUBLIC), str(SHIPPED / f"{name}.txt")]
    assert main(["program", "--transcript", name, "--", *command]) == 0, capsys.readouterr().out
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith("PASS: 1 transcripts")


def test_a_form_the_public_client_aborts_on_is_reported_as_the_crash_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = (SHIPPED / "physical_ids.txt").read_text().replace("< /mo 150", "< /draw 150")
    script = tmp_path / "old_forms.txt"
    script.write_text(old)
    command = [sys.executable, str(PUBLIC), str(script)]
    assert main(["program", "--transcript", str(script), "--", *command]) == 1
    out = capsys.readouterr().out
    assert "crash: the program was killed by SIGABRT; its output ended" in out
    assert "sent since its last line: '/throw 1 463', " in out and "'/draw 150'" in out
    assert "late" not in out


@pytest.mark.parametrize(
    ("how", "said"),
    [
        ("segv", "crash: the program was killed by SIGSEGV; its output ended"),
        ("exit", "crash: the program exited with code 3; its output ended"),
        ("close", "closed: the program closed its standard output"),
    ],
)
def test_a_program_that_dies_is_reported_as_dead_not_late(
    how: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    command = [sys.executable, str(DYING), "--how", how]
    started = time.monotonic()
    assert main(["program", "--transcript", "physical_ids", "--", *command]) == 1
    out = capsys.readouterr().out
    assert said in out and "ms after the referee's '/ask throw'" in out, out
    assert "late" not in out and "ERROR " in out
    assert time.monotonic() - started < 2.9  # told at once, not after the 3 s limit
