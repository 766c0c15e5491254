"""The benchmark scripts whose figures the closing notes quote still run, at tiny sizes.

Each runs as a user would (``python benchmarks/NAME.py ...``) and must print its figures;
the figures themselves are not checked (they depend on the machine).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_script(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / name), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


def test_bench_records_prints_every_setting_and_the_split() -> None:
    done = run_script("bench_records.py", "--hands", "4", "--repeats", "1")
    assert done.returncode == 0, done.stderr
    for label in ("off", "every match", "every 10th deal"):
        assert re.search(rf"--save-logs {label}\s+[\d.]+ hands per CPU-second", done.stdout)
    assert re.search(r"encoding [\d.]+ µs, writing [\d.]+ µs", done.stdout)


def test_bench_records_takes_a_lineup_of_four_and_refuses_two() -> None:
    lineup = "bots.random,bots.random,bots.random,bots.greedy"
    done = run_script("bench_records.py", "--hands", "4", "--repeats", "1", "--bots", lineup)
    assert done.returncode == 0, done.stderr
    assert "bots.random, bots.random, bots.random, bots.greedy" in done.stdout
    refused = run_script("bench_records.py", "--bots", "bots.random,bots.greedy")
    assert refused.returncode == 2
    assert "--bots takes one bot or four, not 2" in refused.stderr


@pytest.mark.parametrize("flags", [(), ("--calm", "--no-claims")])
def test_bench_search_judge_summarises_its_overrides(flags: tuple[str, ...]) -> None:
    done = run_script(
        "bench_search_judge.py", "--hands", "2", "--samples", "4", "--trials", "2", *flags
    )
    assert done.returncode == 0, done.stderr
    assert re.search(r"2 hands, \d+ searches, \d+ overrides", done.stdout)
    for line in done.stdout.splitlines()[:-1]:  # each override says where it was made
        assert re.match(r"  hand \d+ \((calm|threat)\): ", line), line


def test_bench_server_storage_prints_bytes_a_hand_and_the_packing_cpu() -> None:
    done = run_script("bench_server_storage.py", "--tables", "1", "--hands", "2")
    assert done.returncode == 0, done.stderr
    assert re.search(
        r"before \(rows\)\s+2 hands, [\d.]+ MB on disk: [\d,]+ bytes a hand", done.stdout
    )
    assert re.search(
        r"after \(packed\)\s+2 hands, [\d.]+ MB on disk: [\d,]+ bytes a hand", done.stdout
    )
    assert re.search(r"ratio\s+[\d.]+x smaller on disk", done.stdout)
    assert re.search(r"packing [\d.]+ ms, unpacking [\d.]+ ms", done.stdout)


def test_bench_view_open_prints_before_and_after() -> None:
    done = run_script("bench_view_open.py", "--hands", "3", "--repeats", "1")
    assert done.returncode == 0, done.stderr
    assert re.search(r"one a line \d+ ms, in one call \d+ ms", done.stdout)
    assert re.search(r"whole match replayed \(before\): \d+ ms", done.stdout)
    assert re.search(r"after / before: parse [\d.]+, record and page [\d.]+", done.stdout)


def test_bench_server_memory_prints_the_frame_log_figures() -> None:
    done = run_script("bench_server_memory.py", "--frames-only")
    assert done.returncode == 0, done.stderr
    assert re.search(r"MiB as strings, [\d.]+ MiB packed \([\d.]+x\)", done.stdout)
