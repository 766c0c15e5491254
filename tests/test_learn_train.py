"""The training recipe end to end on a tiny budget, resumed, and its outputs."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np
import pytest

if not os.environ.get("CI"):  # CI has the dev extra, which has torch: there it must run
    pytest.importorskip("torch", reason="the train extra is not installed")

from sdk.learn.mlp import MLP
from sdk.learn.train.__main__ import main


def test_the_recipe_runs_end_to_end_and_resumes(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    run = tmp_path / "run"
    tiny = [
        "--data-hands",
        "4",
        "--epochs",
        "1",
        "--hidden",
        "32",
        "--ppo-envs",
        "2",
        "--eval-hands",
        "4",
        "--eval-every",
        "512",
        "--ppo-warmup",
        "1",
        "--quiet",
        "--teacher",
        "bots.greedy",
    ]
    assert main([str(run), *tiny, "--ppo-steps", "512"]) == 0
    assert "agreement with bots.greedy" in capsys.readouterr().out
    for name in ("bc.npz", "clone.pt", "ppo.pt", "policy.npz", "curve.csv", "summary.json"):
        assert (run / name).exists(), name
    assert (run / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    clone_written = (run / "clone.pt").stat().st_mtime_ns
    first = MLP.load(run / "policy.npz")
    clone = MLP.load(run / "clone.npz")
    assert np.array_equal(first.layers[0][0], clone.layers[0][0])  # warm-up: critic alone

    assert main([str(run), *tiny, "--ppo-steps", "1024"]) == 0  # goes on from 512 steps
    assert (run / "clone.pt").stat().st_mtime_ns == clone_written  # not cloned again
    with (run / "curve.csv").open() as f:
        steps = [(r["stage"], int(r["step"])) for r in csv.DictReader(f)]
    assert steps == [("clone", 0), ("ppo", 512), ("ppo", 1024)]
    later = MLP.load(run / "policy.npz")
    assert not np.array_equal(first.layers[0][0], later.layers[0][0])  # it kept learning


def test_the_same_seed_clones_the_same_network(tmp_path: Path) -> None:
    args = [
        "--data-hands",
        "4",
        "--epochs",
        "1",
        "--hidden",
        "16",
        "--ppo-steps",
        "0",
        "--eval-hands",
        "4",
        "--quiet",
        "--teacher",
        "bots.greedy",
    ]
    assert main([str(tmp_path / "a"), *args]) == 0
    assert main([str(tmp_path / "b"), *args]) == 0
    a, b = MLP.load(tmp_path / "a" / "policy.npz"), MLP.load(tmp_path / "b" / "policy.npz")
    assert all(np.array_equal(x[0], y[0]) for x, y in zip(a.layers, b.layers, strict=True))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--hidden", "big"], "--hidden takes sizes"),
        (["--opponents", "a,b"], "names three bots"),
        (["--epochs", "0"], "--epochs must be at least 1"),
        (["--ppo-lr", "0"], "--ppo-lr must be positive"),
        (["--ppo-anchor", "-1"], "--ppo-anchor must be 0 or more"),
    ],
)
def test_bad_options_are_usage_errors(tmp_path: Path, capsys, args, message) -> None:  # type: ignore[no-untyped-def]
    assert main([str(tmp_path), *args]) == 2
    assert message in capsys.readouterr().err
