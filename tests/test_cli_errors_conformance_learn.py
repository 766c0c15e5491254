"""One-line errors and documented exit codes of the conformance kit, the learning tools,
the score CLI and the scenario judge: 2 for a usage error (a bad option, a missing
input), 1 for bad data, never a traceback; a reader that closes the pipe ends quietly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from protocol.judge import main as judge_main
from protocol.score import main as score_main
from sdk.conformance.cli import main as conformance_main
from sdk.learn.dataset import main as dataset_main
from sdk.learn.encoding import main as encoding_main

GREEDY = [sys.executable, "-m", "bots.greedy", "--line"]


def _one_line(err: str) -> str:
    """The single error line of ``err`` (asserting there is exactly one, no traceback)."""
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err.strip()


def test_a_transcript_file_that_is_not_one_is_bad_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_text("not json\n")
    assert conformance_main(["program", "--transcript", str(junk), "--", *GREEDY]) == 1
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("error: ") and "junk.jsonl line 1" in line


def test_a_transcript_that_is_not_ascii_is_bad_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.txt"
    junk.write_bytes(b"< /start \xff\n")
    assert conformance_main(["program", "--transcript", str(junk), "--", *GREEDY]) == 1
    assert "junk.txt" in _one_line(capsys.readouterr().err)


def test_a_missing_transcript_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "nofile.txt")
    assert conformance_main(["program", "--transcript", missing, "--", *GREEDY]) == 2
    assert "nofile.txt" in _one_line(capsys.readouterr().err)


def test_an_unknown_house_bot_reports_the_servers_message(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["program", "--match", "--matches", "1", "--hands", "1", "--house", "nosuch"]
    assert conformance_main([*args, "--", *GREEDY]) == 2
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("error: ") and "no house bot 'nosuch'" in line


def test_match_options_out_of_range_are_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert conformance_main(["program", "--match", "--hands", "0", "--", *GREEDY]) == 2
    assert "hands" in _one_line(capsys.readouterr().err)


def test_program_help_shows_the_command_after_the_double_dash(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert conformance_main(["program", "--help"]) == 0
    out = capsys.readouterr().out
    assert "usage: taimahjong-conformance program [options] -- CMD [ARGS...]" in out
    assert "exit codes:" in out


def test_conformance_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert conformance_main(["program", "--limit", "x", "--", *GREEDY]) == 2
    assert "--limit" in _one_line(capsys.readouterr().err)
    assert conformance_main(["list", "--", "x"]) == 2
    _one_line(capsys.readouterr().err)


def test_conformance_module_entry_point_has_no_traceback(tmp_path: Path) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_text("not json\n")
    kit = [sys.executable, "-m", "sdk.conformance", "program", "--transcript", str(junk)]
    done = subprocess.run(
        [*kit, "--", *GREEDY],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 1
    assert _one_line(done.stderr).startswith("error: ")


def test_encoding_layout_ends_quietly_when_the_reader_goes_away() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "sdk.learn.encoding"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # like `| head` that has already exited
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0
    assert err == ""


def test_encoding_layout_prints_and_rejects_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert encoding_main([]) == 0
    assert capsys.readouterr().out.startswith("observation v")
    assert encoding_main(["--nope"]) == 2
    assert "--nope" in _one_line(capsys.readouterr().err)


def test_dataset_missing_input_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "d.npz"
    assert dataset_main([str(tmp_path / "nofile"), "-o", str(out), "--quiet"]) == 2
    assert "nofile: no such file or folder" in _one_line(capsys.readouterr().err)
    assert not out.exists()


def test_dataset_corrupt_record_stays_bad_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_text("not json\n")
    assert dataset_main([str(junk), "-o", str(tmp_path / "d.npz"), "--quiet"]) == 1
    assert "junk.jsonl line 1" in _one_line(capsys.readouterr().err)


def test_score_names_the_winning_tile_in_notation(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["123m 456p 789s 123s 44m 678s", "--win", "5m", "--self-draw", "--dealer", "0"]
    assert score_main(argv) == 2
    line = _one_line(capsys.readouterr().err)
    assert line == "error: the winning tile 5m is not among the concealed tiles"


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"not json\n", "not JSON"),
        (b"\xff\xfe{", "not UTF-8"),
        (b"[" * 100_000, "nested too deep"),
        (json.dumps({"a": 1}).encode(), "give exactly one of"),
        (json.dumps({"wall_seed": 1, "expect": 3}).encode(), "'expect' is a JSON object"),
        (json.dumps({"wall_seed": 1, "expect": {"result": 3}}).encode(), "expect.result"),
        (
            json.dumps({"wall_seed": 1, "actions": [{"expect_pending": {"x": []}}]}).encode(),
            "not a seat 0..3",
        ),
    ],
)
def test_judge_malformed_scenarios_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, words: str
) -> None:
    scenario = tmp_path / "junk.jsonl"
    scenario.write_bytes(content)
    assert judge_main([str(scenario)]) == 2  # the judge's documented code (docs/SCENARIOS.md)
    line = _one_line(capsys.readouterr().err)
    assert line.startswith(f"judge: {scenario}: ") and words in line


def test_judge_missing_scenario_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert judge_main([str(tmp_path / "nofile.json")]) == 2
    assert _one_line(capsys.readouterr().err).endswith("nofile.json: No such file or directory")
