"""``--save-transcript``: a line-protocol session kept as a conformance-kit transcript.

A whole match over TCP against a scripted referee, played through the command line: the
transcript's referee lines are exactly those the referee sent, it replays step by step
through a fresh client adapter (every reply and every offered legal set the same), and
the conformance kit plays it against the same bot as a program with no fault.
"""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import pytest
from test_line_transcripts import MockReferee
from test_sdk_line import Referee
from transcript_helpers import serve_one_match

from bots.greedy import GreedyBot
from protocol.line.conformance import parse_transcript
from protocol.wire.common import SessionEnd, SessionStart
from sdk.cli import EXIT_OK, EXIT_USAGE, main
from sdk.conformance.program import run_transcript


async def test_a_tcp_session_is_saved_as_a_transcript_that_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    referee, sent = Referee(seed=11, hands=2, seat=1), []
    server, port = await serve_one_match(referee, sent)
    path = tmp_path / "games" / "seat2.txt"  # its folder is made
    argv = ["--tcp", f"127.0.0.1:{port}", "--save-transcript", str(path), "--json"]
    async with server:
        code = await asyncio.to_thread(main, GreedyBot, argv)
    assert code == EXIT_OK
    assert f"transcript: {path}" in capsys.readouterr().err

    transcript = parse_transcript(path.read_text(), path.name)
    assert transcript.comment.startswith("greedy: a line-protocol session")
    assert transcript.referee_lines == sent  # every line the referee wrote, in order
    kinds = [step.kind for step in transcript.steps]
    assert kinds.count("!") == len(referee.answered) > 10
    assert kinds.count("?") == kinds.count("!")
    lines = path.read_text().splitlines()
    timed = [lines[i + 1] for i, line in enumerate(lines) if line.startswith("! ")]
    assert all(re.fullmatch(r"# \d+\.\d ms", line) for line in timed), timed[:3]

    # step by step through a fresh adapter: the same offered actions, the same replies
    items = MockReferee(path).run()
    assert isinstance(items[0], SessionStart) and isinstance(items[-1], SessionEnd)

    # the conformance kit replays it against the bot as a program: nothing diverges
    command = [sys.executable, "-m", "bots.greedy", "--line", "--log-level", "ERROR"]
    run = await asyncio.to_thread(run_transcript, command, transcript, 3.0)
    assert run.passed and not run.diverged, (run.faults, run.error, run.diverged)
    assert len(run.steps) >= len(referee.answered)


@pytest.mark.parametrize("mode", [["--local"], ["--url", "ws://127.0.0.1:9/v1/ws"]])
def test_save_transcript_is_for_the_line_protocol_only(
    mode: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.txt"
    assert main(GreedyBot, [*mode, "--save-transcript", str(path)]) == EXIT_USAGE
    assert "--save-transcript is for the line protocol" in capsys.readouterr().err
    assert not path.exists()


def test_an_unwritable_transcript_is_refused_before_connecting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    argv = ["--tcp", "127.0.0.1:9", "--save-transcript", str(blocker / "t.txt")]
    assert main(GreedyBot, argv) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith("error: --save-transcript") and "cannot connect" not in err
    assert "Traceback" not in err


def test_a_referee_that_cannot_be_reached_leaves_no_transcript(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.txt"
    assert main(GreedyBot, ["--tcp", "127.0.0.1:9", "--save-transcript", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: cannot connect to 127.0.0.1:9")
    assert not path.exists()  # nothing was played: no empty file to mistake for a game
