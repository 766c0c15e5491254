"""The scenario judge CLI: output, --seat projection, exit codes, implicit passes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from protocol.judge import main, run_scenario

SCENARIOS = Path(__file__).parent / "scenarios"
FILLERS = ["258m 369p 147s ESWNCFP", "369m 147p 258s ESWNCFP"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else {}), err


def write(tmp_path: Path, data: dict) -> str:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_prints_all_events_and_the_result(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, str(SCENARIOS / "r10_heavenly_win.json"))
    assert code == 0
    result = out["result"]
    assert (result["outcome"], result["winner"], result["discarder"]) == ("win", 0, None)
    assert result["win_tile"] == "9s" and result["total_tai"] == 23
    assert result["payments"] == [37500, -12500, -12500, -12500]
    assert result["split"]["pair"] == "9s"
    assert {i["name"]: i["tai"] for i in result["items"]}["天胡"] == 16
    deals = [e for e in out["events"] if e["type"] == "deal"]
    assert all("tiles" in d for d in deals)


def test_seat_option_prints_that_seat_s_projection(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, str(SCENARIOS / "r08_r09_exposed_kong_then_concealed_kong.json"), "--seat", "1"
    )
    assert code == 0
    for event in out["events"]:
        if event.get("seat") not in (None, 1) and event["type"] in (
            "deal",
            "draw",
            "concealed_kong",
        ):
            assert "tile" not in event and "tiles" not in event
        assert event["type"] != "declined" or event["seat"] == 1
    kongs = [e for e in out["events"] if e["type"] == "concealed_kong"]
    assert kongs == [{"type": "concealed_kong", "seat": 2}]


def test_illegal_action_exits_1_naming_step_action_legal_reason(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, str(SCENARIOS / "r07_chow_ban_own_last_discard.json"))
    assert code == 1
    error = out["error"]
    assert error["action"] == {"type": "chow", "tiles": ["4p", "6p"]}
    assert error["legal"] == [{"type": "pung"}, {"type": "pass"}]
    assert "R7" in error["reason"] and f"step {error['step']}" in err


def test_failed_check_exits_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads((SCENARIOS / "r10_heavenly_win.json").read_text(encoding="utf-8"))
    data["expect"]["result"]["total_tai"] = 22
    data["actions"].insert(0, {"expect_pending": {"1": ["pass"]}})
    code, out, err = run(capsys, write(tmp_path, data))
    assert code == 3
    assert len(out["failures"]) == 2 and "total_tai" in err


@pytest.mark.parametrize(
    "data",
    [
        {"dealer": 0},
        {"wall": "123m"},
        {"hands": ["123m"] * 4},
        {"wall_seed": 1, "actions": [{"seat": 0}]},
        {"wall_seed": 1, "actions": [{"seat": 9, "action": "pass"}]},
        {"wall_seed": 1, "actions": [{"seat": 0, "action": "jump"}]},
    ],
)
def test_malformed_scenarios_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: dict
) -> None:
    code, out, err = run(capsys, write(tmp_path, data))
    assert code == 2 and out == {} and err.startswith("judge:")


def test_passes_may_be_left_out() -> None:
    # Seat 2 may pung the dealer's 5p; the script goes on with seat 1's discard, so
    # seat 2 passes implicitly (and so enters the passed-pung state, R9).
    data = {
        "dealer": 0,
        "hands": [
            "147m 258p 369s ESWNCFP N",
            FILLERS[0],
            "55p 123m 789m 11s 99s 567s E",
            FILLERS[1],
        ],
        "draws": "1m",
        "actions": [{"seat": 0, "action": "discard 5p"}, {"seat": 1, "action": "discard 1m"}],
    }
    report = run_scenario(data)
    assert report.error is None and report.failures == []
    kinds = [e.to_json() for e in report.hand.events[-4:]]
    assert {"type": "declined", "seat": 2, "tile": "5p", "win": False, "pung": True} in kinds


def test_module_entry_point(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "protocol.judge", str(SCENARIOS / "r04_four_winds.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert json.loads(done.stdout)["result"] == {"outcome": "four_winds", "payments": [0, 0, 0, 0]}
