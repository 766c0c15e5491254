"""bots.neural: the shipped policy plays everywhere a bot plays, on numpy alone."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from bots.neural import DEFAULT_WEIGHTS, NeuralBot
from sdk.arena import run_arena
from sdk.arena.loader import load_bot
from sdk.botspec import BotLoadError
from sdk.learn.mlp import MLP, PolicyFileError
from sdk.local import play_match


def test_the_shipped_weights_are_small_and_play_a_full_match_with_no_fallback() -> None:
    assert DEFAULT_WEIGHTS.stat().st_size <= 5 * 2**20
    result = play_match([NeuralBot(), NeuralBot(), NeuralBot(), NeuralBot()], seed=5, hands=8)
    assert sum(result.scores) == 0
    assert sum(s.fallbacks for s in result.stats) == 0


def test_playing_needs_no_torch() -> None:
    code = (
        "import sys, bots.neural, sdk.local; bots.neural.NeuralBot(); print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_spec_carries_another_weights_file(tmp_path: Path) -> None:
    net = MLP.random(np.random.default_rng(1), (1104, 8, 151))
    path = tmp_path / "mine.npz"
    np.savez_compressed(path, **net.arrays())
    factory = load_bot(f"bots.neural?weights={path}")
    assert factory.label == "neural:mine"
    result = run_arena(
        [factory.spec, "greedy", "greedy", "greedy"],
        hands=16,
        match_hands=4,
        backend="local",
        duplicate=True,
    )
    assert [b.label for b in result.bots] == ["neural:mine", "greedy"]
    assert result.bots[0].fallbacks == 0


def test_a_bad_weights_file_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(PolicyFileError, match=r"bad\.npz: not a policy file"):
        NeuralBot(bad)
    with pytest.raises(BotLoadError, match="not a policy file"):
        load_bot(f"bots.neural?weights={bad}")
    with pytest.raises(BotLoadError, match="options are key=value"):
        load_bot("bots.neural?weights")
    done = subprocess.run(
        [sys.executable, "-m", "bots.neural", "--local", "--weights", str(tmp_path / "none.npz")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "--weights: no such file" in done.stderr


def test_a_decision_takes_under_two_milliseconds() -> None:
    bot = NeuralBot()
    times: list[float] = []
    original = bot.choose

    def timed(view, request):  # type: ignore[no-untyped-def]
        start = time.process_time()
        try:
            return original(view, request)
        finally:
            times.append(time.process_time() - start)

    bot.choose = timed  # type: ignore[method-assign]
    play_match([bot, NeuralBot(), NeuralBot(), NeuralBot()], seed=2, hands=4)
    assert statistics.median(times) < 0.002
