"""Game records: round trips, rebuilt views against the referee's, the committed
schema, and narrow errors for truncated, corrupt and other-version records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from record_helpers import check_views_against_referee, play_recorded

from protocol.actions import PASS, ActionKind
from protocol.events import HandEnd
from sdk.records import (
    CorruptRecordError,
    Outcome,
    Record,
    RecordVersionError,
    TruncatedRecordError,
    encode_record,
    iter_views,
    parse_text,
    public_at,
    read_record,
    spectator_events,
    verify_record,
    views_at,
)
from sdk.records.__main__ import main as records_main
from sdk.records.schema import SCHEMA_PATH, schema_text, validate_line

ROUND_TRIP_MATCHES = 52
"""52 matches of 4 hands: 208 seeded hands."""


@pytest.fixture(scope="module")
def played() -> Record:
    return play_recorded(seed=11, hands=4)


def test_a_record_reads_back_equal(played: Record) -> None:
    record = played
    again = parse_text(encode_record(record))
    assert again == record
    assert encode_record(again) == encode_record(record)


def test_rebuilt_views_equal_the_referees_at_every_step_of_208_hands() -> None:
    hands = 0
    for seed in range(ROUND_TRIP_MATCHES):
        record = parse_text(encode_record(play_recorded(seed=1000 + seed, hands=4)))
        verify_record(record)
        hands += len(record.hands)
        assert check_views_against_referee(record) > len(record.decisions)
    assert hands >= 200


def test_views_at_a_step_are_fresh_and_match_the_iteration(played: Record) -> None:
    record = played
    step = record.steps // 2
    for s, views in iter_views(record):
        if s == step:
            assert views_at(record, step) == views
            break
    with pytest.raises(IndexError):
        views_at(record, record.steps)


def test_the_spectator_sees_no_concealed_tile_and_the_same_public_state(played: Record) -> None:
    record = played
    for ev in spectator_events(record):
        data = ev.to_json()
        assert ev.type not in ("declined",)
        if ev.type in ("deal", "draw", "concealed_kong"):
            assert "tile" not in data and "tiles" not in data
    step = record.hands[0].end_event
    assert public_at(record, step) == views_at(record, step)[2].public


def test_hand_lines_carry_the_scoring_breakdown(played: Record) -> None:
    record = played
    assert len(record.hands) == 4 and record.summary.hands_played == 4  # type: ignore[union-attr]
    for hand in record.hands:
        assert type(record.events[hand.end_event]) is HandEnd
        if hand.result.outcome == "win":
            assert hand.result.score["items"] is not None  # type: ignore[index]
    assert record.summary.scores == record.hands[-1].scores  # type: ignore[union-attr]


def test_a_claim_that_lost_is_marked_overridden() -> None:
    for seed in range(40):
        record = play_recorded(seed=seed, hands=2)
        for d in record.decisions:
            if d.outcome is Outcome.OVERRIDDEN:
                window = record.decisions_at(d.after_event)
                assert d.applied.kind in (ActionKind.CHOW, ActionKind.PUNG, ActionKind.KONG)
                assert d.applied is not PASS and len(window) > 1
                return
    pytest.fail("no overridden claim in 40 seeded matches")


def test_every_line_validates_against_the_schema(played: Record) -> None:
    for line in encode_record(played).splitlines():  # type: ignore[attr-defined]
        validate_line(json.loads(line))


def test_the_committed_schema_matches_the_models(tmp_path: Path) -> None:
    assert SCHEMA_PATH.read_text() == schema_text(), (
        "sdk/records/schema/record-v1.schema.json is out of date: run python -m sdk.records --schema"
    )
    path = tmp_path / "s.json"
    assert records_main(["--schema", "--check", str(path)]) == 1
    assert records_main(["--schema", str(path)]) == 0
    assert records_main(["--schema", "--check", str(path)]) == 0


def test_validate_command(
    played: Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(encode_record(played))  # type: ignore[attr-defined]
    assert records_main(["--validate", str(good)]) == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text(good.read_text().replace('"outcome":"ok"', '"outcome":"great"', 1))
    assert records_main(["--validate", str(bad)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "\n" not in err and "great" in err


def test_verify_catches_a_decision_that_does_not_give_the_events(played: Record) -> None:
    text = encode_record(played)
    lines = text.splitlines()
    i = next(i for i, line in enumerate(lines) if '"type":"decision"' in line and "discard" in line)
    d = json.loads(lines[i])
    other = next(a for a in d["legal"] if a != d["applied"])
    d["applied"] = d["answer"] = other
    lines[i] = json.dumps(d)
    record = parse_text("\n".join(lines) + "\n")
    with pytest.raises(CorruptRecordError, match=r"differ|do not give event"):
        verify_record(record)


# --- bad input --------------------------------------------------------------------------


def _text(played: Record) -> str:
    return encode_record(played)


def test_a_cut_last_line_is_truncated(played: Record) -> None:
    text = _text(played)
    with pytest.raises(TruncatedRecordError, match=r"line .*cut"):
        parse_text(text[: len(text) // 2])


def test_a_missing_result_line_is_truncated_unless_partial(played: Record) -> None:
    lines = _text(played).splitlines(keepends=True)
    text = "".join(lines[: len(lines) // 2])
    with pytest.raises(TruncatedRecordError, match="no result line"):
        parse_text(text)
    assert parse_text(text, partial=True).summary is None
    with pytest.raises(TruncatedRecordError, match="empty"):
        parse_text("")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda ls: ls.insert(5, "not json at all"), "line 6: the record is corrupt: not JSON"),
        (lambda ls: ls.insert(5, "[1, 2]"), "not a JSON object"),
        (lambda ls: ls.insert(5, '{"type":"gossip"}'), "unknown line type 'gossip'"),
        (lambda ls: ls.pop(3), "event 3 where 2 is due"),
        (lambda ls: ls.append(ls[-1]), "after the result line"),
        (lambda ls: ls.insert(3, ""), "an empty line"),
    ],
)
def test_a_corrupt_line_is_named(played: Record, change: object, message: str) -> None:
    lines = _text(played).splitlines()
    change(lines)  # type: ignore[operator]
    with pytest.raises(CorruptRecordError, match=message):
        parse_text("\n".join(lines) + "\n")


def test_a_hand_line_that_disagrees_with_its_event_is_corrupt(played: Record) -> None:
    lines = _text(played).splitlines()
    i = next(i for i, line in enumerate(lines) if line.startswith('{"type":"hand"'))
    hand = json.loads(lines[i])
    hand["scores"] = [s + 1 for s in hand["scores"]]
    lines[i] = json.dumps(hand)
    with pytest.raises(CorruptRecordError, match="disagrees"):
        parse_text("\n".join(lines) + "\n")


def test_another_version_or_format_is_refused(played: Record, tmp_path: Path) -> None:
    lines = _text(played).splitlines()
    header = json.loads(lines[0])
    header["version"] = 2
    path = tmp_path / "v2.jsonl"
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    with pytest.raises(RecordVersionError, match="version 2; this code reads version 1"):
        read_record(path)
    with pytest.raises(RecordVersionError, match="not a taimahjong-record header"):
        parse_text('{"type":"match","match_id":"m1"}\n')
