"""The learning example runs end to end (tiny sizes): it records greedy, trains, reports
the held-out agreement and plays the model in the arena."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).parent.parent / "examples" / "imitate_greedy.py"


def test_imitation_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("imitate_greedy", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    args = ["--matches", "3", "--match-hands", "1", "--epochs", "2", "--arena-hands", "8"]
    assert module.main([*args, "--workers", "1", "--held-out", "0.34"]) == 0
    out = capsys.readouterr().out
    assert "held-out" in out and "all decisions" in out
    assert "imitation" in out and "95% CI" in out and "0 fallbacks" in out
