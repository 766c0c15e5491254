"""The command line and the report files."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from sdk.arena.cli import main

BOTS = [
    "arena_bots:SeededRandom",
    "arena_bots:SeededRandom",
    "arena_bots:FirstLegal",
    "bots.random",
]


def test_writes_json_markdown_and_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [*BOTS, "--hands", "8", "--match-hands", "2", "--duplicate", "--backend", "local"]
    assert main([*argv, "--seed", "5", "--out", str(tmp_path), "--log", "--quiet"]) == 0
    report = json.loads((tmp_path / "arena.json").read_text())
    assert report["partial"] is False
    assert (report["deals"], report["matches"], report["hands"]) == (1, 4, 8)
    assert report["config"]["labels"] == ["seeded", "seeded", "first", "random"]
    assert [b["bot"] for b in report["bots"]] == ["seeded", "first", "random"]
    assert [(p["a"], p["b"]) for p in report["pairs"]] == [
        ("seeded", "first"),
        ("seeded", "random"),
        ("first", "random"),
    ]
    seeded = report["bots"][0]
    assert seeded["hands"] == 16 and seeded["points_per_hand"]["n"] == 1  # 2 players x 8
    markdown = (tmp_path / "arena.md").read_text()
    assert "| seeded |" in markdown and "## Pairwise differences" in markdown
    assert len(list((tmp_path / "records").glob("*.jsonl"))) == 4  # --log: the records
    out = capsys.readouterr().out
    assert "Pairs" in out
    # one deal: no spread, no test; it said "no significant difference"
    assert all(p["verdict"].startswith("not tested: 1 deal") for p in report["pairs"])
    assert "untested" in out and "no significant difference" not in out + markdown


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["bots.random", "bots.random", "bots.random", "no_such_bot_mod"]) == 2
    assert "no bot 'no_such_bot_mod': it is not a house bot" in capsys.readouterr().err
    assert main(["bots.random"] * 4 + ["--log"]) == 2
    assert "--log needs --out DIR" in capsys.readouterr().err
    both = ["--log", "--out", str(tmp_path), "--save-logs", str(tmp_path / "r")]
    assert main(["bots.random"] * 4 + both) == 2
    assert "give one of them" in capsys.readouterr().err
    assert main(["bots.random"] * 4 + ["--match-hands", "0"]) == 2
    for count in (3, 5, 0):  # it said "the following arguments are required: BOT"
        assert main(["bots.random"] * count) == 2
        err = capsys.readouterr().err.strip()
        assert "needs 4 bots" in err and err.endswith(f"got {count} (see --help)")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--decision-seconds", "0"], "--decision-seconds must be positive, not 0.0"),
        (["--safety-margin", "5"], "--safety-margin must be at least 0 and less than"),
        (["--save-logs-every", "0"], "--save-logs-every must be at least 1, not 0"),
        (["--save-logs", "{file}/records"], "--save-logs {file}/records: "),
    ],
)
def test_budget_and_record_options_are_checked_before_the_run(
    flags: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"  # a file where a directory would have to be made
    blocker.write_text("")
    flags = [f.format(file=blocker) for f in flags]
    assert main(["bots.random"] * 4 + ["--hands", "4", "--quiet", *flags]) == 2
    out, err = capsys.readouterr()
    assert message.format(file=blocker) in err and "Traceback" not in err
    assert out == ""  # nothing was played


def test_ray_backend_without_ray_explains_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    assert main(["bots.random"] * 4 + ["--backend", "ray", "--hands", "1", "--quiet"]) == 1
    assert "pip install '.[ray]'" in capsys.readouterr().err
