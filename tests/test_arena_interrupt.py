"""Ctrl-C stops a run cleanly and still reports the deals that were played."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from arena_bots import CtrlCAtMatch

from sdk.arena import run_arena

TESTS = Path(__file__).parent


def test_ctrl_c_in_process_finishes_the_current_deal_and_reports_partial() -> None:
    CtrlCAtMatch.started = 0  # SIGINT as match 9 starts: the first match of deal 2
    result = run_arena(
        [CtrlCAtMatch] * 4, hands=400, match_hands=1, duplicate=True, backend="local"
    )
    assert result.partial
    assert (result.deals, result.matches, result.hands) == (3, 12, 12)
    assert result.to_json()["partial"] is True


def test_sigint_to_the_command_line_with_a_process_pool(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), *sys.path])}
    command = [sys.executable, "-m", "sdk.arena", *["arena_bots:SeededRandom"] * 4]
    command += ["--hands", "1000000", "--match-hands", "2", "--workers", "2"]
    command += ["--out", str(tmp_path), "--log", "--quiet"]
    proc = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    records = tmp_path / "records"  # --log: a game record per match
    deadline = time.monotonic() + 30
    while not (records.exists() and any(records.iterdir())) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)  # like Ctrl-C: the parent and its workers
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err.decode()
    report = json.loads((tmp_path / "arena.json").read_text())
    assert report["partial"] is True
    assert 1 <= report["deals"] < 1000000 // 2
    assert report["hands"] == 2 * report["deals"]
    assert len(list(records.glob("*.jsonl"))) == report["matches"]
    assert b"PARTIAL" in out
