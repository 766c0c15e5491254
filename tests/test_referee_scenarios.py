"""Every scenario file in tests/scenarios plays as its ``expect`` says (rules R1-R10).

Each file scripts a hand (hands, draws, replacements, actions) and states, from the rules
alone, which actions must be legal at some points (``expect_pending`` steps) and how the
hand ends (``expect``); see docs/SCENARIOS.md. A scenario that expects an illegal action
names the step and a fragment of the reason (the ruling id).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from protocol.judge import run_scenario

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.json"))


def test_scenarios_exist_for_every_ruling() -> None:
    covered = set()
    for path in SCENARIOS:
        covered.update(json.loads(path.read_text(encoding="utf-8"))["rulings"])
    assert {f"R{i}" for i in range(1, 11)} | {"R17"} <= covered


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    report = run_scenario(data)
    assert report.failures == []
    if "error" in data["expect"]:
        assert report.error is not None
    else:
        assert report.error is None, report.error
