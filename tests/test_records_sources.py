"""Game records from ``--local`` (``--save-log``) and the arena (``--save-logs``): the
same writer, the same record for the same play, fallbacks recorded with their outcome."""

from __future__ import annotations

from pathlib import Path

import pytest
from arena_bots import Illegal, Raising
from record_helpers import check_views_against_referee

from bots.greedy import GreedyBot
from sdk.arena import run_arena
from sdk.arena.cli import main as arena_main
from sdk.arena.deal import deal_seed
from sdk.cli import EXIT_OK, EXIT_USAGE, main
from sdk.local import play_match
from sdk.records import Outcome, comparable_lines, read_record, verify_record


def test_local_save_log_writes_a_record_and_says_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sub" / "game.jsonl"
    argv = ["--local", "--hands", "2", "--seed", "5", "--save-log", str(path)]
    assert main(GreedyBot, argv) == EXIT_OK
    err = capsys.readouterr().err
    assert f"record: {path} (match local-5)" in err
    record = read_record(path)
    verify_record(record)
    assert record.header.seed == 5 and record.summary.status == "finished"  # type: ignore[union-attr]
    assert record.header.origin.source == "local" and record.header.seats[0].name == "greedy"
    assert check_views_against_referee(record) > len(record.decisions)


def test_local_save_log_to_an_unwritable_place_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    argv = ["--local", "--hands", "1", "--save-log", str(blocker / "game.jsonl")]
    assert main(GreedyBot, argv) == EXIT_USAGE
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --save-log") and "\n" not in err


def test_local_save_log_to_a_directory_is_refused_before_the_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--local", "--hands", "1", "--save-log", str(tmp_path)]
    assert main(GreedyBot, argv) == EXIT_USAGE
    out, err = capsys.readouterr()
    assert err.strip() == f"error: --save-log {tmp_path}: is a directory; give a file name"
    assert out == ""  # refused before playing: no match summary


def test_local_and_arena_records_of_one_seed_differ_only_in_timing(tmp_path: Path) -> None:
    out = tmp_path / "records"
    run_arena(["bots.greedy"] * 4, hands=2, match_hands=2, seed=9, backend="local", save_logs=out)
    (path,) = sorted(out.glob("*.jsonl"))
    arena = read_record(path)
    local = play_match([GreedyBot() for _ in range(4)], seed=deal_seed(9, 0), hands=2, record=True)
    assert local.record is not None
    assert arena.header.origin.source == "arena" and arena.header.origin.deal == 0
    assert comparable_lines(arena) == comparable_lines(local.record)
    assert arena.decisions[0].ms is not None


def test_arena_samples_every_nth_deal_and_the_cli_says_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "logs"
    argv = ["bots.random"] * 4 + ["--hands", "8", "--match-hands", "1", "--backend", "local"]
    assert arena_main([*argv, "--duplicate", "--save-logs", str(out), "--quiet"]) == 0
    assert len(list(out.glob("*.jsonl"))) == 8  # 2 deals of 4 seatings, one hand each
    err = capsys.readouterr().err
    assert f"records: 8 game records in {out}" in err
    sampled = tmp_path / "sampled"
    assert (
        arena_main([*argv, "--save-logs", str(sampled), "--save-logs-every", "4", "--quiet"]) == 0
    )
    names = sorted(p.name for p in sampled.glob("*.jsonl"))
    assert names == ["arena-0-deal000000-seats0123.jsonl", "arena-0-deal000004-seats0123.jsonl"]
    for name in names:
        verify_record(read_record(sampled / name))


def test_fallbacks_are_recorded_with_their_outcome_and_answer() -> None:
    bots = [Raising(), Illegal(), GreedyBot(), GreedyBot()]
    record = play_match(bots, seed=2, hands=1, record=True).record
    assert record is not None
    verify_record(record)
    raised = [d for d in record.decisions if d.seat == 0]
    assert raised and all(d.outcome is Outcome.ERROR and d.answer is None for d in raised)
    assert all(d.fallback and d.applied in d.legal for d in raised)
    illegal = [d for d in record.decisions if d.outcome is Outcome.ILLEGAL]
    assert illegal and all(d.seat == 1 and d.answer not in d.legal for d in illegal)
