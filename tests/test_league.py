"""Leagues: a balanced schedule, programs that misbehave, resuming, the results page."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

import pytest
from program_helpers import FAULTY, compile_c, faulty, running

from sdk.arena.league import schedule
from sdk.arena.league_cli import main
from sdk.records import read_record, verify_record


def test_schedule_is_balanced() -> None:
    tables = schedule(6, rounds=2)
    pairs = Counter(p for g in tables for p in itertools.combinations(g, 2))
    assert len(pairs) == 15 and set(pairs.values()) == {2 * 6}  # C(4, 2) * rounds
    assert Counter(e for g in tables for e in g) == dict.fromkeys(range(6), 2 * 10)


def test_league_with_programs_finishes_counts_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    binary = compile_c(tmp_path)
    out = tmp_path / "league"
    argv = [
        "greedy", "random", f"cmd:{binary}",
        faulty("--faults malformed@2,illegal@3,crash@4", "--flood 100000"), faulty("--faults late@2", "--late 0.6"),
        "--out", str(out), "--match-hands", "1", "--workers", "1",
        "--decision-seconds", "0.5", "--program-logs", str(tmp_path / "stderr"),
    ]  # fmt: skip
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "Standings" in text and "Pairs" in text
    records = sorted((out / "records").glob("*.jsonl"))
    assert len(records) == 5 * 4  # five tables, four rotations each
    for path in records:
        verify_record(read_record(path))
    page = (out / "league.html").read_text()
    assert page.count('href="viewer/') == 20 and "<script src" not in page
    assert all((out / "viewer" / f"{p.stem}.html").exists() for p in records)
    assert running(str(FAULTY)) == [] and running(str(binary)) == []
    results = {e["entry"]: e for e in json.loads((out / "results.json").read_text())["standings"]}
    assert results["faulty.py"]["crashed"] == 16  # in each of its 16 matches, restarted
    assert results["faulty.py"]["malformed"] == 16 and results["faulty.py"]["illegal"] >= 1
    assert all(p.stat().st_size < (1 << 16) + 100 for p in (tmp_path / "stderr").iterdir())
    assert results["faulty.py#2"]["late"] >= 16 and results["faulty.py#2"]["crashed"] == 0
    assert results["drawn"]["late"] == results["drawn"]["illegal"] == 0
    assert all(e["rating"] is not None and e["tables"] == 4 for e in results.values())

    (out / "tables" / "table-000003.pickle").unlink()
    assert main(argv) == 0
    assert "4 already played, 1 to play" in capsys.readouterr().err
    assert main([*argv[:-6], "--match-hands", "2", *argv[-4:]]) == 2
    assert "holds another league" in capsys.readouterr().err
    assert json.loads((out / "league.json").read_text())["match_hands"] == 1


def test_league_usage_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["greedy", "random", "greedy", "--out", str(tmp_path)]) == 2
    assert "at least four entries" in capsys.readouterr().err
    assert main(["greedy", "random", "greedy", "tcp:./x {host}", "--out", str(tmp_path)]) == 2
    assert "no {port}" in capsys.readouterr().err


def test_ctrl_c_stops_the_league_and_its_programs(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    hung = faulty("--faults silent@2")
    cmd = [sys.executable, "-m", "sdk.arena.league", "greedy", "random", hung, "defensive",
           faulty("--faults late@1"), "--out", str(tmp_path), "--match-hands", "1",
           "--workers", "2"]  # fmt: skip
    default_sigint = lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)  # noqa: E731
    league = subprocess.Popen(cmd, preexec_fn=default_sigint, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.monotonic() + 60
    while not running(str(FAULTY)) and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.0)
    league.send_signal(signal.SIGINT)
    _, err = league.communicate(timeout=60)
    assert league.returncode == 130, err
    time.sleep(0.5)
    assert running(str(FAULTY)) == []  # the workers stopped their programs' groups
    assert (tmp_path / "league.html").exists()
