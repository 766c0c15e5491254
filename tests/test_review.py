"""The reviewer: the same bot agrees with itself, deal-ins and wins let go by are costed,
and the command line gives text, HTML and one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from bots.greedy import GreedyBot
from protocol.actions import PASS, WIN, Action
from sdk.bot import DecisionRequest
from sdk.local import play_match
from sdk.records import Record, encode_record, read_record
from sdk.review import review_html, review_record
from sdk.review.__main__ import main
from sdk.view import GameView


class NeverWins(GreedyBot):
    """Greedy, but lets every win go by (R9): the reviewer must cost each one."""

    name = "never-wins"

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        action = super().choose(view, request)
        return request.default() if action is WIN else action  # type: ignore[return-value]


@pytest.fixture(scope="module")
def greedy_record() -> Record:
    record = play_match([GreedyBot() for _ in range(4)], seed=1, hands=4, record=True).record
    assert record is not None
    return record


def test_the_bot_that_played_agrees_with_itself_at_every_decision(greedy_record: Record) -> None:
    review = review_record(greedy_record, 0, "bots.greedy", reference="bots.random")
    n, bot, _ = review.agreement()
    assert n == len(greedy_record.decisions_of(0)) and bot == n


def test_a_deal_in_is_costed_what_the_seat_paid(greedy_record: Record) -> None:
    hand = next(h for h in greedy_record.hands if h.result.discarder == 3)
    review = review_record(greedy_record, 3, "bots.random")
    worst = review.costliest()
    dealt = [d for d in worst if d.note.startswith("dealt in")]
    assert dealt and dealt[0].cost == -hand.result.payments[3] > 0
    assert dealt[0].decision.applied.tile == hand.result.win_tile


def test_a_win_let_go_by_is_costed_and_shanten_is_measured() -> None:
    bots = [NeverWins(), GreedyBot(), GreedyBot(), GreedyBot()]
    record = None
    for seed in range(8):
        record = play_match(bots, seed=seed, hands=4, record=True).record
        assert record is not None
        if any(d.seat == 0 and WIN in d.legal for d in record.decisions):
            break
    assert record is not None
    review = review_record(record, 0, "bots.greedy")
    passed = [d for d in review.decisions if WIN in d.decision.legal]
    assert passed and all(d.cost and d.cost > 0 and "go by" in d.note for d in passed)
    assert all(d.bot_answer is WIN and not d.bot_agrees for d in passed)
    for d in passed:  # complete after a self-draw, waiting on the discard of a claim
        claim = PASS in d.decision.legal
        assert d.shanten_before == (0 if claim else -1)
        assert not claim or d.waits_before
    assert any(d.waits_after for d in review.decisions)
    assert all(sum(d.unseen) > 0 for d in review.decisions)


def test_the_command_line_writes_text_and_html(
    greedy_record: Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text(encode_record(greedy_record), encoding="utf-8")
    html = tmp_path / "review.html"
    argv = [str(path), "--seat", "3", "--bot", "bots.random", "--html", str(html)]
    assert main([*argv, "--width", "200"]) == 0
    out = capsys.readouterr().out
    assert "seat 3 (greedy)" in out and "decisions that cost the most" in out
    page = html.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "dealt in" in page and "http" not in page
    review = review_record(read_record(path), 3, "bots.random")
    assert review_html(review, "review.viewer.html") == page
    assert (tmp_path / "review.viewer.html").read_text(encoding="utf-8").startswith("<!DOCTYPE")


@pytest.mark.parametrize(
    ("argv", "code", "words"),
    [
        (["--bot", "no_such_module_xyz"], 2, "is not a house bot (defensive, expect, greedy"),
        (["--bot", "bots.random", "MISSING"], 2, "no such file"),
    ],
)
def test_bad_arguments_are_one_line_errors(
    greedy_record: Record,
    tmp_path: Path,
    argv: list[str],
    code: int,
    words: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text(encode_record(greedy_record), encoding="utf-8")
    args = [str(tmp_path / "missing.jsonl") if a == "MISSING" else a for a in argv]
    target = [] if "MISSING" in argv else [str(path)]
    assert main([*target, "--seat", "0", *args]) == code
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "\n" not in err and words in err


def test_a_width_too_narrow_is_a_usage_error(
    greedy_record: Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text(encode_record(greedy_record), encoding="utf-8")
    with pytest.raises(SystemExit) as info:
        main([str(path), "--seat", "0", "--bot", "greedy", "--width", "-3"])
    assert info.value.code == 2
    assert "error: argument --width: -3 is too narrow" in capsys.readouterr().err
