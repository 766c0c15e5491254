"""The reviewer asks a line-protocol program (``--bot cmd:./prog``) what it would have
answered at a seat's recorded decisions: the same answers as its in-process twin."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from program_helpers import compile_c, running

from protocol.actions import PASS, Action
from sdk.bot import Bot, DecisionRequest
from sdk.local import play_match
from sdk.review.reviewer import review_record


def default_twin() -> Bot:
    """The C program's policy in-process: the R17 default (pass, throw the drawn tile)."""
    return Bot.from_function(lambda view, request: request.default(), name="twin")


def _lowest(view: object, request: DecisionRequest) -> Action:
    """Pass every claim, else the first legal action (the lowest discard, or a win)."""
    return PASS if PASS in request.legal_actions else request.legal_actions[0]


def test_a_program_reviews_like_its_twin(tmp_path: Path) -> None:
    binary = compile_c(tmp_path)
    bots = [Bot.from_function(_lowest, name=f"p{i}") for i in range(4)]
    record = play_match(bots, seed=21, hands=2, record=True).record
    assert record is not None
    for seat in (0, 2):
        by_program = review_record(record, seat, f"cmd:{binary}")
        by_twin = review_record(record, seat, default_twin)
        answers = [d.bot_answer for d in by_program.decisions]
        assert len(answers) > 10 and answers == [d.bot_answer for d in by_twin.decisions]
        applied = [d.decision.applied for d in by_program.decisions]
        assert answers != applied  # its own answers, not the record's
    assert running(str(binary)) == []


def test_a_program_needs_the_full_record(tmp_path: Path) -> None:
    binary = compile_c(tmp_path)
    record = play_match([default_twin() for _ in range(4)], seed=2, hands=1, record=True).record
    assert record is not None
    side = dataclasses.replace(record, perspective=1)  # one seat's side: no wall, no ids
    with pytest.raises(ValueError, match="full game record"):
        review_record(side, 1, f"cmd:{binary}")
