"""The command line ``python -m protocol.score``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from protocol.score import build_situation, main
from protocol.scoring import InvalidSituationError
from protocol.tiles import Tile


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    # The rules' worked example: seat 1 self-draws 門清自摸 3 tai while seat 0 deals.
    code, out, _ = run(capsys, "123m 567m 345p 456s 678s 5p", "--win", "5p", "--self-draw",
                       "--winner", "1", "--dealer", "0")  # fmt: skip
    assert code == 0
    assert "門清自摸  3 (concealed_self_draw)" in out
    assert "total: 3 tai" in out
    assert "seat 0 -3000, seat 1 +8000, seat 2 -2500, seat 3 -2500" in out
    assert "split: 55p | chow:123m* chow:567m* chow:345p* chow:456s* chow:678s*" in out


def test_json_report_with_melds(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "1m 234p 678s",
        "--win",
        "1m",
        "--from",
        "2",
        "--melds",
        "pung:555p chow:123m",
        "concealed_kong:EEEE",
        "--seat-wind",
        "E",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    # The dealer (seat 0, East, from --seat-wind E) wins on seat 2's discard: 莊家 1,
    # 門風刻 1 and 圈風刻 1 for the EEEE kong, 暗槓 2, and 1m 234p 678s waits on 1m
    # alone: 獨聽 1. Seat 2 pays 1000 + 6 × 500.
    assert {i["id"]: i["tai"] for i in data["items"]} == {
        "dealer": 1,
        "seat_wind_pung": 1,
        "round_wind_pung": 1,
        "single_wait": 1,
        "concealed_kong": 2,
    }
    assert data["total_tai"] == 6
    assert data["payments"] == [4000, 0, -4000, 0]


def test_seat_wind_sets_the_winner_or_the_dealer() -> None:
    s = build_situation("123m 567m 345p 456s 678s 55p", "8s", seat_wind="W", dealer=1)
    assert (s.winner, s.dealer, s.seat_wind) == (3, 1, Tile.W)
    s = build_situation("123m 567m 345p 456s 678s 55p", "8s", seat_wind="N", winner=2)
    assert (s.winner, s.dealer) == (2, 3)
    with pytest.raises(InvalidSituationError):
        build_situation("123m 567m 345p 456s 678s 55p", "8s", seat_wind="N", winner=2, dealer=0)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["123m 567m 345p 456s 678s 5p", "--win", "9p", "--self-draw"], "not five sets"),
        (["123m 567m 345p 456s 6s 5p", "--win", "5p", "--self-draw"], "concealed tiles"),
        (["1111m 567m 345p 456s 67s 5p", "--win", "1m", "--from", "1"], "copies of 1m"),
        (["123m 567m 345p 456s 678s 5p", "--win", "5p", "--from", "0"], "own discard"),
        (["123m 567m 345p 456s 678s 5p", "--win", "5x", "--self-draw"], "not a tile"),
        (["11m 234p 567p", "--win", "1m", "--self-draw", "--melds", "chow:EEE"], "chow"),
        (["123m 567m 345p 456s 678s 5p", "--win", "5p", "--from", "2", "--last-tile"], "R2"),
    ],
)
def test_bad_input_exits_2_naming_the_problem(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("error: ")
    assert message in err


def test_module_entry_point() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "protocol.score",
            "234m 567m 345p 456s 678s 5p",
            "--win",
            "5p",
            "--from",
            "2",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    # Seat 0 deals and wins: 莊家 1, 門清 1, 平胡 2 (345p+5p waits on 2p and 5p), 斷么九 1.
    assert json.loads(proc.stdout)["total_tai"] == 5
    bad = subprocess.run(
        [sys.executable, "-m", "protocol.score", "123m", "--win", "1m", "--self-draw"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2
    assert "error:" in bad.stderr
