"""Programs in any language in the arena: a C program over pipes and over TCP, a
Python program that misbehaves on purpose, duplicate seating event for event, and bad
specs refused before anything plays."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from program_helpers import FAULTY, alive, compile_c, faulty, running

from sdk.arena.api import run_arena
from sdk.arena.cli import main
from sdk.arena.program_settings import CRASHED, ProgramSettings
from sdk.budget import Budget
from sdk.records import Outcome, read_record, verify_record

FAST = Budget(0.5, 0.1)
"""A short clock, so that late answers and hung programs cost little time."""


def _records(folder: Path) -> list:
    records = [read_record(p) for p in sorted(folder.glob("*.jsonl"))]
    for record in records:
        verify_record(record)  # complete and replayable through the referee
        assert record.summary is not None and record.summary.status == "finished"
    return records


def test_c_program_over_pipes_and_tcp(tmp_path: Path) -> None:
    binary = compile_c(tmp_path)
    result = run_arena(
        [f"cmd:{binary}", f"tcp:{binary} {{host}} {{port}}", "greedy", "greedy"],
        hands=4, match_hands=1, duplicate=True, backend="local", seed=3,
        save_logs=tmp_path / "records",
        programs=ProgramSettings(stderr_dir=str(tmp_path / "stderr")),
    )  # fmt: skip
    assert (result.matches, result.hands) == (4, 4)
    for label in ("drawn", "drawn#2"):
        bot = result.bot(label)
        assert bot.timing.count > 20 and bot.fallbacks == 0, bot.outcomes
        assert bot.timing.max < FAST.decision
    assert len(_records(tmp_path / "records")) == 4
    assert running(str(binary)) == []


def test_every_fault_is_counted_and_nothing_is_left(tmp_path: Path) -> None:
    kids = tmp_path / "kids.txt"
    rude = faulty("--faults late@2,malformed@4", "--late 0.7", "--flood 300000")
    crashing = faulty("--faults illegal@2,crash@3")
    hung = faulty("--faults silent@2", f"--child {kids}")
    result = run_arena(
        [rude, crashing, hung, "greedy"],
        hands=4, match_hands=1, duplicate=True, backend="local", seed=1, budget=FAST,
        save_logs=tmp_path / "records",
        programs=ProgramSettings(stderr_dir=str(tmp_path / "stderr"), stderr_bytes=4096),
    )  # fmt: skip
    assert (result.matches, result.hands) == (4, 4)  # every match finished
    labels = [b.label for b in result.bots]
    rude_stats, crash_stats, hung_stats = (result.bot(x) for x in labels if "faulty" in x)
    got = rude_stats.outcomes
    assert got[Outcome.LATE] == 4 and got[Outcome.MALFORMED] == 4, got
    assert Outcome.ILLEGAL not in got and CRASHED not in got, got
    assert crash_stats.outcomes[Outcome.ILLEGAL] >= 1
    assert crash_stats.outcomes[CRASHED] == 4  # restarted for every match
    assert crash_stats.outcomes[Outcome.DISCONNECTED] > 4
    assert hung_stats.outcomes[CRASHED] == 4 and hung_stats.outcomes[Outcome.LATE] == 4 * 3
    stderr = sorted((tmp_path / "stderr").glob("*faulty.py.stderr"))
    assert len(stderr) == 12 and max(p.stat().st_size for p in stderr) < 4096 + 100
    assert len(_records(tmp_path / "records")) == 4
    pids = [int(x) for x in kids.read_text().split()]
    assert len(pids) == 4 and not any(alive(p) for p in pids)  # children stopped too
    assert running(str(FAULTY)) == []


def test_a_late_answer_is_dropped_not_taken_for_the_next_ask(tmp_path: Path) -> None:
    # the answer comes 0.2 s after its deadline, when the next ask (the in-process bots
    # play at once) is already out: without the hold-back it answered that ask (illegal)
    late = faulty("--faults late@2", "--late 0.7")
    result = run_arena([late, "greedy", "greedy", "greedy"], hands=1, match_hands=1,
                       backend="local", seed=1, budget=FAST)  # fmt: skip
    got = result.bots[0].outcomes
    assert got[Outcome.LATE] == 1 and got[Outcome.OK] > 5, got
    assert set(got) == {Outcome.OK, Outcome.LATE}, got


def test_duplicate_seating_is_exact_for_programs(tmp_path: Path) -> None:
    program = f"cmd:{sys.executable} -m bots.greedy --line"
    common = {"hands": 4, "match_hands": 1, "duplicate": True, "backend": "local", "seed": 9}
    run_arena([program] * 4, save_logs=tmp_path / "programs", **common)  # type: ignore[arg-type]
    run_arena(["greedy"] * 4, save_logs=tmp_path / "inproc", **common)  # type: ignore[arg-type]
    run_arena([program, "greedy"] * 2, save_logs=tmp_path / "mixed", **common)  # type: ignore[arg-type]
    programs, inproc = _records(tmp_path / "programs"), _records(tmp_path / "inproc")
    mixed = _records(tmp_path / "mixed")  # programs and bots on one table
    assert len(programs) == len(inproc) == len(mixed) == 4
    for a, b, c in zip(programs, inproc, mixed, strict=True):
        assert a.events == b.events == c.events  # event for event
        assert a.summary.scores == b.summary.scores


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("cmd:", "no program after cmd:"),
        ("cmd:  ", "no program after cmd:"),
        ("tcp:./prog {host}", "the template has no {port} to fill in"),
        ("cmd:./no_such_program_here", "no such program ./no_such_program_here"),
        ("cmd:no_such_program_on_path_x", "no program 'no_such_program_on_path_x' on the PATH"),
        (f"cmd:{FAULTY}", "is not executable"),
    ],
)
def test_bad_program_specs_exit_2_before_playing(
    spec: str, message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main([spec, "greedy", "greedy", "greedy", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert not (tmp_path / "arena.json").exists()


def test_local_match_against_programs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bots.random import RandomBot
    from sdk.cli import main as bot_main

    binary = compile_c(tmp_path)
    opponents = f"cmd:{binary},tcp:{binary} {{host}} {{port}},random"
    argv = ["--hands", "2", "--opponents", opponents, "--json", "--save-log", str(tmp_path / "g")]
    assert bot_main(RandomBot, argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in result["players"]] == ["random", "drawn", "drawn", "random"]
    assert len(result["hands"]) == 2
    verify_record(read_record(next(tmp_path.glob("g*"))))
    assert running(str(binary)) == []
    assert bot_main(RandomBot, ["--opponents", "cmd:./no_such_program_here"]) == 2
    assert "no such program" in capsys.readouterr().err


def test_oversubscription_is_warned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    binary = compile_c(tmp_path)
    monkeypatch.setattr("os.cpu_count", lambda: 4)
    argv = [f"cmd:{binary}", "greedy", "greedy", "greedy", "--hands", "1", "--match-hands", "1"]
    assert main([*argv, "--program-cores", "4", "--workers", "2", "--quiet"]) == 0
    assert "need 8 cores, this machine has 4" in capsys.readouterr().err
    assert main([*argv, "--program-cores", "2", "--quiet"]) == 0  # default: 4 // 2 workers
    assert "warning" not in capsys.readouterr().err


def test_workers_of_multi_core_programs_get_cores_of_their_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import multiprocessing
    import os

    from sdk.arena.program_settings import pin_worker

    pinned: list[list[int]] = []
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    monkeypatch.setattr(os, "sched_setaffinity", lambda pid, cpus: pinned.append(cpus),
                        raising=False)  # fmt: skip
    counter = multiprocessing.get_context("fork").Value("i", 0)
    for _ in range(3):
        pin_worker(counter, 4)
    assert pinned == [[0, 1, 2, 3], [4, 5, 6, 7]]  # a third worker would oversubscribe
    pin_worker(multiprocessing.get_context("fork").Value("i", 0), 1)
    assert len(pinned) == 2  # one-core programs: the OS balances
