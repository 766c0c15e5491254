"""The `python -m protocol.analyze` command line, run as a user would."""

from __future__ import annotations

import json
import subprocess
import sys


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "protocol.analyze", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_json_report_for_a_waiting_hand() -> None:
    out = run("123m 456p 789s 123s 555s E", "--visible", "EE", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["shanten"] == 0
    assert report["waits"] == ["E"]
    assert report["improvements"] == {"E": 1}  # 4 - 1 in hand - 2 visible


def test_text_report_lists_every_discard_best_first() -> None:
    out = run("1122m 345p 678s 999s EE C F")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[1].startswith("shanten 1")
    table = lines[3:]
    assert len(table) == 12  # twelve distinct kinds in the hand
    assert table[0].split()[0] in ("C", "F")


def test_melds_set_the_number_of_sets_needed() -> None:
    out = run("123m 4p", "--melds", "pung:EEE pung:SSS pung:WWW pung:NNN", "--json")
    report = json.loads(out.stdout)
    assert (report["shanten"], report["waits"]) == (0, ["4p"])


def test_bad_input_exits_2_with_the_error() -> None:
    out = run("12x")
    assert out.returncode == 2
    assert "'x'" in out.stderr
    out = run("123m 456p 789s")
    assert out.returncode == 2
    assert "9 concealed tiles" in out.stderr
