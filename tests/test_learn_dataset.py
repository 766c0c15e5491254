"""The dataset tool: a record's encoding equals the live one; bad records are reported
with their line, and skipped or fatal by flag."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bots.greedy import GreedyBot
from bots.random import RandomBot
from protocol.events import project
from protocol.match import Match
from sdk.bot import DecisionRequest
from sdk.learn.action_space import index_of, legal_mask
from sdk.learn.dataset import COLUMNS, build_dataset, main
from sdk.learn.encoding import OBS_SIZE, encode
from sdk.mirror import Mirror
from sdk.records import (
    CorruptRecordError,
    Decision,
    Header,
    SeatInfo,
    build_record,
    encode_record,
)

Live = dict[tuple[int, int], tuple[np.ndarray, np.ndarray, int]]


def _play_live(seed: int, hands: int) -> tuple[str, Live]:
    """Play a match of greedy and random bots, each deciding from its own mirror (as a
    bot at a table does); keep what each computed live, keyed by (events so far, seat);
    return the match's record text and that."""
    bots = [GreedyBot(), RandomBot(seed=seed), GreedyBot(), RandomBot(seed=seed + 1)]
    match = Match.new(seed, hands)
    mirrors = [Mirror(s) for s in range(4)]
    fed = 0
    live: Live = {}
    decisions = []
    while not match.is_over:
        for event in match.events[fed:]:
            for mirror in mirrors:
                seen = project(event, mirror.seat)
                if seen is not None:
                    mirror.apply(seen)
        fed = len(match.events)
        seat, legal = next(iter(match.pending().items()))
        window = mirrors[seat].window
        action = bots[seat].choose(window, DecisionRequest(legal, 1e18, "", window.drawn_tile))
        live[(fed, seat)] = (encode(window), legal_mask(legal), index_of(action))
        decisions.append(Decision(match.hand_no, seat, fed, legal, action, action))
        match.apply(seat, action)
    names = ["greedy", "random", "greedy", "random"]
    header = Header(seed, hands, tuple(SeatInfo(s, s, names[s]) for s in range(4)))
    return encode_record(build_record(header, match.events, decisions, status="finished")), live


def test_the_encoding_of_a_record_equals_the_encoding_from_live_play(tmp_path: Path) -> None:
    text, live = _play_live(seed=21, hands=4)
    (tmp_path / "game.jsonl").write_text(text)
    report = build_dataset([tmp_path], tmp_path / "data.npz")
    data = np.load(tmp_path / "data.npz")
    assert report.samples == len(live) == len(data["action"]) > 60
    assert data["observation"].shape == (len(live), OBS_SIZE)
    assert set(data.files) == set(COLUMNS)
    keys = sorted(live, key=lambda k: (k[0], k[1]))  # the record's order: event, then seat
    for row, key in enumerate(keys):
        obs, mask, action = live[key]
        assert data["seat"][row] == key[1]
        assert (data["observation"][row] == obs).all(), f"decision {key}"
        assert (data["mask"][row] == mask).all()
        assert data["action"][row] == action
    assert not data["fallback"].any()


def test_outcome_is_the_seats_points_in_the_hand_and_bot_filter(tmp_path: Path) -> None:
    text, _ = _play_live(seed=4, hands=2)
    (tmp_path / "a.jsonl").write_text(text)
    build_dataset([tmp_path / "a.jsonl"], tmp_path / "all.npz")
    build_dataset([tmp_path / "a.jsonl"], tmp_path / "greedy.npz", bots=["greedy"])
    every, greedy = np.load(tmp_path / "all.npz"), np.load(tmp_path / "greedy.npz")
    assert set(np.unique(greedy["seat"])) == {0, 2}
    assert len(greedy["action"]) == int(np.isin(every["seat"], [0, 2]).sum())
    from sdk.records import read_record

    record = read_record(tmp_path / "a.jsonl")
    for hand in record.hands:
        rows = every["hand"] == hand.hand
        for seat in range(4):
            got = set(every["outcome"][rows & (every["seat"] == seat)].tolist())
            assert got <= {hand.result.payments[seat]}


def _corrupt(text: str, line: int) -> str:
    lines = text.split("\n")
    lines[line - 1] = lines[line - 1][:-5] + "#oops"
    return "\n".join(lines)


def test_a_corrupt_record_is_reported_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good, _ = _play_live(seed=8, hands=1)
    (tmp_path / "1-good.jsonl").write_text(good)
    (tmp_path / "2-bad.jsonl").write_text(_corrupt(good, 7))
    with pytest.raises(CorruptRecordError, match=r"2-bad\.jsonl line 7"):
        build_dataset([tmp_path], tmp_path / "out.npz")
    assert not (tmp_path / "out.npz").exists()

    assert main([str(tmp_path), "-o", str(tmp_path / "out.npz"), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "2-bad.jsonl line 7" in err and "--skip-bad" in err
    assert err.count("\n") == 1 and "Traceback" not in err

    assert main([str(tmp_path), "-o", str(tmp_path / "out.npz"), "--skip-bad", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "skipped: " in captured.err and "2-bad.jsonl line 7" in captured.err
    assert "from 1 records" in captured.out
    data = np.load(tmp_path / "out.npz")
    assert len(data["action"]) > 0 and set(np.unique(data["record"])) == {0}


def test_missing_input_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = [str(tmp_path / "nope.jsonl"), "-o", str(tmp_path / "x.npz"), "--quiet"]
    assert main(missing) == 2  # a usage error, as docs/LEARNING.md says
    err = capsys.readouterr().err
    assert "nope.jsonl" in err and err.count("\n") == 1


def test_usage_errors_are_one_line_with_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(tmp_path)]) == 2  # no -o
    err = capsys.readouterr().err
    assert "-o" in err and "--help" in err and err.count("\n") == 1
    assert main([str(tmp_path), "-o", "x.npz", "--no-such-flag"]) == 2
    err = capsys.readouterr().err
    assert "--no-such-flag" in err and err.count("\n") == 1 and "Traceback" not in err


def test_large_inputs_stream_rows_to_disk(tmp_path: Path) -> None:
    text, live = _play_live(seed=30, hands=1)
    for i in range(3):
        (tmp_path / f"r{i}.jsonl").write_text(text)
    report = build_dataset([tmp_path], tmp_path / "d.npz")
    data = np.load(tmp_path / "d.npz", mmap_mode="r")
    assert report.records == 3 and len(data["action"]) == 3 * len(live)
    assert np.bincount(data["record"]).tolist() == [len(live)] * 3
