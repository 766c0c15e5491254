"""The real clock offline (issue 18): ``--local`` and :func:`sdk.local.play_match` replace
a late answer by the fallback with a warning naming the decision, as the server and the
arena do; ``--no-clock`` lets it stand."""

from __future__ import annotations

import logging
import re
import time

import pytest

from protocol.actions import Action
from sdk.bot import Bot, DecisionRequest
from sdk.budget import Budget, Outcome
from sdk.cli import main
from sdk.local import play_match
from sdk.view import GameView

FAST = Budget(decision=1.0, safety_margin=0.5)  # 0.5 s to answer


class SlowOnce(Bot):
    """Answers its first decision after 0.6 s with the last legal action (never the
    default), then at once."""

    name = "slow"

    def __init__(self) -> None:
        super().__init__()
        self.first: tuple[int, DecisionRequest] | None = None

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        if self.first is None:
            self.first = (view.hand_number, request)
            time.sleep(0.6)
        return request.legal_actions[-1]


def _others() -> list[Bot]:
    return [Bot.from_function(lambda v, r: r.default(), name=f"p{i}") for i in (1, 2, 3)]


def test_a_late_answer_is_replaced_with_a_warning_naming_the_decision(
    caplog: pytest.LogCaptureFixture,
) -> None:
    slow = SlowOnce()
    with caplog.at_level(logging.WARNING, logger="sdk.decide"):
        result = play_match([slow, *_others()], seed=3, hands=1, budget=FAST)
    assert result.stats[0].outcomes.get(Outcome.LATE) == 1
    late = [r.getMessage() for r in caplog.records if "was late" in r.getMessage()]
    assert len(late) == 1
    seat = result.seats[0]
    assert late[0].startswith("slow was late: 0.6")
    assert f"hand 1, seat {seat}, " in late[0] and "the fallback is used" in late[0]


def test_without_the_clock_the_late_answer_stands(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="sdk.decide"):
        result = play_match([SlowOnce(), *_others()], seed=3, hands=1, budget=FAST, clock=False)
    assert result.stats[0].outcomes.get(Outcome.LATE, 0) == 0
    assert not [r for r in caplog.records if "was late" in r.getMessage()]


def test_local_command_warns_and_no_clock_silences(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--local", "--hands", "1", "--seed", "3", "--safety-margin", "2.5", "--json"]
    assert main(SlowOnce, argv) == 0
    err = capsys.readouterr().err
    assert re.search(
        r"slow was late: 0\.\d\d s for hand 1, seat \d, .*, which allowed 0\.[45]\d s", err
    )
    assert (
        "warning: 1 of your decisions took longer than 0.5 s and were answered by the "
        "fallback, as a server would; --no-clock lets them stand"
    ) in err
    assert main(SlowOnce, [*argv, "--no-clock"]) == 0
    assert "late" not in capsys.readouterr().err
