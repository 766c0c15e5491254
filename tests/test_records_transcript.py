"""One seat's record rebuilt from a line-protocol transcript, and the tools that read it.

A whole match is played over TCP against a scripted referee with ``--save-transcript``;
the record rebuilt from the transcript must hold exactly the referee's projection for
that seat (hand ends and scores included), its decisions with the rules model's legal
actions, and the replay and review tools must show it as that seat saw it.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from transcript_helpers import play_transcribed

from protocol.actions import Action
from protocol.events import HandEnd
from protocol.match import Match
from sdk.records import CorruptRecordError, Record, encode_record, verify_record, views_at
from sdk.records.transcript import looks_like_transcript, record_from_transcript
from sdk.replay.__main__ import main as replay_main
from sdk.review.__main__ import main as review_main

SEAT = 2


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Match, list[Action]]:
    """A 2-hand match with our bot at seat 2: its transcript, the referee's match and
    the actions the seat answered."""
    path = tmp_path_factory.mktemp("transcript") / "game.txt"
    return (path, *play_transcribed(path, seed=5, hands=2, seat=SEAT))


@pytest.fixture(scope="module")
def record(played: tuple[Path, Match, list[Action]]) -> Record:
    path = played[0]
    return record_from_transcript(path.read_text(), str(path))


def test_the_record_is_the_referees_projection_for_the_seat(
    played: tuple[Path, Match, list[Action]],
    record: Record,
) -> None:
    _, match, answered = played
    assert record.perspective == SEAT and record.header.seats[SEAT].name == "bot"
    assert list(record.events) == match.projected_events(SEAT)  # hand ends scored by the seat
    assert [d.applied for d in record.decisions] == answered and len(answered) > 10
    ends = [e for e in match.events if isinstance(e, HandEnd)]
    assert [(h.result, h.scores) for h in record.hands] == [(e.result, e.scores) for e in ends]
    assert record.summary is not None and record.summary.scores == match.scores
    for d in record.decisions:  # the rules model offered exactly what was recorded
        assert d.seat == SEAT and d.ms is not None and 0 <= d.ms < 3000
        assert views_at(record, d.after_event)[SEAT].legal_actions() == d.legal


def test_a_seats_record_is_neither_written_nor_verified(record: Record) -> None:
    with pytest.raises(ValueError, match="cannot be written as a game record"):
        encode_record(record)
    with pytest.raises(ValueError, match="cannot be replayed through the referee"):
        verify_record(record)


def test_replay_and_review_show_it_as_the_seat_saw_it(
    played: tuple[Path, Match, list[Action]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(played[0])
    assert replay_main([path, "--print", "--width", "200"]) == 0
    out = capsys.readouterr().out
    assert f"seen by seat {SEAT}" in out and "bot (seat 2) chose" in out
    assert "time not recorded" not in out and " ms, ok)" in out and "tai item" in out
    page = tmp_path / "view.html"
    assert replay_main([path, "--html", str(page)]) == 0
    assert f"seat {SEAT}'s view (bot)" in page.read_text()
    assert review_main([path, "--seat", str(SEAT), "--bot", "bots.defensive"]) == 0
    assert "seat 2 (bot)" in capsys.readouterr().out
    for main in (replay_main, review_main):
        other = ["--seat", "0"] + (["--bot", "bots.greedy"] if main is review_main else [])
        assert main([path, *other]) == 2
        assert capsys.readouterr().err.strip() == (
            f"error: --seat 0: this transcript shows seat {SEAT} only"
        )


def test_a_session_cut_short_is_read_as_far_as_it_goes(
    played: tuple[Path, Match, list[Action]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    lines = played[0].read_text().splitlines()
    cut = tmp_path / "cut.txt"
    cut.write_text("\n".join(lines[: len(lines) // 2]) + "\n")
    record = record_from_transcript(cut.read_text(), str(cut))
    assert record.summary is None and len(record.decisions) > 0
    assert replay_main([str(cut), "--print"]) == 0
    capsys.readouterr()


def test_a_transcript_that_does_not_fit_names_its_line(
    played: tuple[Path, Match, list[Action]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    lines = played[0].read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("! discard"))
    lines[at] = "! pung"  # not among the offered actions
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(CorruptRecordError, match=f"line {at + 1}: .*pung is not legal here"):
        record_from_transcript(bad.read_text(), str(bad))
    assert replay_main([str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"line {at + 1}" in err and "Traceback" not in err


def test_a_referee_line_that_cannot_be_read_is_skipped_as_in_play(
    played: tuple[Path, Match, list[Action]],
    record: Record,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # the session logged and skipped such a line; the transcript kept it; so does the record
    lines = played[0].read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("< /mo"))
    lines.insert(at, "< /bogus 1 2")
    with caplog.at_level(logging.WARNING, "sdk.records.transcript"):
        again = record_from_transcript("\n".join(lines) + "\n", "odd.txt")
    assert again.events == record.events and len(again.decisions) == len(record.decisions)
    (message,) = [r.getMessage() for r in caplog.records]
    assert message.startswith(f"odd.txt line {at + 1}: ignoring a line that cannot be read")


def test_a_game_record_is_not_taken_for_a_transcript() -> None:
    assert looks_like_transcript("# a comment\n< /start MJ 1 x\n")
    assert looks_like_transcript("\n< /start MJ 1 x\n")
    assert not looks_like_transcript('{"type":"header"}\n')
