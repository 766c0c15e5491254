"""The expect bot (bots.expect): in time under load, reproducible, defensive's answer on
bad input, the reviewer's contract, and its command-line options."""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import pytest
from search_views import own_turns, request_for

from bots.defensive import DefensiveBot
from bots.expect import ExpectBot, ExpectConfig, add_options, configure
from protocol.actions import ActionKind
from protocol.hand_state import HandState
from sdk.bot import DecisionRequest
from sdk.budget import Budget
from sdk.local import play_match
from sdk.view import GameView


def _turns(n: int) -> list[tuple[HandState, int]]:
    return own_turns(n)


def _request(hand: HandState, seat: int, seconds: float = 60.0) -> DecisionRequest:
    return request_for(hand, seat, seconds)


def test_never_late_with_a_200ms_budget_under_a_cpu_bound_neighbour() -> None:
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        budget = Budget(decision=0.4, safety_margin=0.2)  # 200 ms to answer
        bot = ExpectBot(nodes=None, think_ms=10_000)  # the deep pass runs to the clock
        players = [bot, DefensiveBot(), DefensiveBot(), DefensiveBot()]
        result = play_match(players, seed=21, hands=2, budget=budget)
    finally:
        spinner.kill()
        spinner.wait()
    stats = result.stats[0]
    assert stats.fallbacks == 0, stats.outcomes
    assert stats.max <= budget.reply_within


def test_matches_are_reproducible_with_a_node_budget() -> None:
    runs = [
        play_match([ExpectBot(), DefensiveBot(), DefensiveBot(), DefensiveBot()], seed=9, hands=2)
        for _ in range(2)
    ]
    assert runs[0].scores == runs[1].scores


def test_an_impossible_view_gets_defensives_answer_in_time() -> None:
    hand, seat = _turns(1)[0]
    view = hand.view(seat)
    held = next(k for k in range(34) if view.own.counts[k])
    view.public.visible[held] = 4  # five of a kind
    game_view = GameView(view)
    request = _request(hand, seat, seconds=0.5)
    start = time.monotonic()
    action = ExpectBot().choose(game_view, request)
    assert time.monotonic() - start < 0.5
    assert action == DefensiveBot().choose(game_view, request)


def test_explain_lists_every_discard_with_the_reviewers_numbers() -> None:
    for hand, seat in _turns(3):
        view, request = GameView(hand.view(seat)), _request(hand, seat)
        bot = ExpectBot()
        scored = bot.explain(view, request)
        discards = {a for a in request.legal_actions if a.kind is ActionKind.DISCARD}
        assert {a for a, _ in scored} == discards
        values = [n["value"] for _, n in scored]
        assert values == sorted(values, reverse=True)
        for _, numbers in scored:
            assert {"value", "win", "points", "deal_in"} <= set(numbers)
            assert 0 <= numbers["win"] <= 1 and 0 <= numbers["deal_in"] <= 1
        assert bot.choose(view, request) in request.legal_actions


def test_options_make_the_configured_bot() -> None:
    parser = argparse.ArgumentParser()
    add_options(parser)
    config = configure(parser.parse_args(["--depth", "1", "--think-ms", "500", "--nodes", "0"]))
    assert config == ExpectConfig(depth=1, nodes=None, think_ms=500.0)
    for bad in (["--depth", "-1"], ["--think-ms", "0"], ["--nodes", "-3"]):
        with pytest.raises(ValueError):
            configure(parser.parse_args(bad))


def test_the_cost_benchmark_prints_both_bots_by_shanten() -> None:
    done = subprocess.run(
        [sys.executable, "benchmarks/bench_expect.py", "cost", "--hands", "16"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "shanten 1" in done.stdout and "ratio" in done.stdout
    assert "all expect: p50" in done.stdout and "all defensive: p50" in done.stdout
