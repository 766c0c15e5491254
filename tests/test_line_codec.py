"""Line protocol codec: every command both ways, the tile-id table, specific errors, fuzz."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.errors import MahjongError
from protocol.line.codec import (
    AskKind,
    AskLine,
    EatLine,
    EatReply,
    ExitLine,
    GongKind,
    GongLine,
    GongReply,
    HuLine,
    HuReply,
    InitCardLine,
    InitGameLine,
    LineParseError,
    MoLine,
    PassReply,
    PongLine,
    PongReply,
    ReadyLine,
    StartLine,
    ThrowLine,
    ThrowReply,
    parse_program_line,
    parse_referee_line,
)
from protocol.line.tile_ids import ALL_TILE_IDS, TileIdError, copy_of, kind_of, tile_id
from protocol.tiles import Tile

DEAL = "/initCard 110 111 112 113 120 130 220 230 240 280 281 350 360 370 410 411 450"

REFEREE_LINES = {
    "/start MJ 2 alice": StartLine(1, "alice"),
    "/initGame East South 3 2 0": InitGameLine(Tile.E, Tile.S, 3, 1, 0),
    DEAL: InitCardLine(
        (110, 111, 112, 113, 120, 130, 220, 230, 240, 280, 281, 350, 360, 370, 410, 411, 450)
    ),
    "/mo 153": MoLine(153),
    "/ask throw": AskLine(AskKind.THROW),
    "/ask eat": AskLine(AskKind.EAT),
    "/ask pong": AskLine(AskKind.PONG),
    "/ask gong": AskLine(AskKind.GONG),
    "/ask hu": AskLine(AskKind.HU),
    "/throw 4 473": ThrowLine(3, 473),
    "/eat 1 120 140 130": EatLine(0, 120, 140, 130),
    "/pong 3 150 151 153": PongLine(2, (150, 151, 153)),
    "/gong 2 4 270 271 272 273": GongLine(1, GongKind.EXPOSED, (270, 271, 272, 273)),
    "/gong 2 1 152": GongLine(1, GongKind.ADDED, (152,)),
    "/gong 1 0 110 111 112 113": GongLine(0, GongKind.CONCEALED, (110, 111, 112, 113)),
    "/gong 3 0": GongLine(2, GongKind.CONCEALED),
    "/hu 1 282 220 230 240 280 281 350 360 370 410 411": HuLine(
        0, 282, (220, 230, 240, 280, 281, 350, 360, 370, 410, 411)
    ),
    "/exit": ExitLine(),
    "/close": ExitLine("close"),
    "/ready": ReadyLine(),
}
PROGRAM_LINES = {
    "/throw 460": ThrowReply(460),
    "/eat 120 130": EatReply((120, 130)),
    "/pong 150 151": PongReply((150, 151)),
    "/gong 0 110 111 112 113": GongReply(GongKind.CONCEALED, (110, 111, 112, 113)),
    "/gong 1 152": GongReply(GongKind.ADDED, (152,)),
    "/gong 4 270 271 272": GongReply(GongKind.EXPOSED, (270, 271, 272)),
    "/hu": HuReply(),
    "/pass": PassReply(),
    "/ready": ReadyLine(),
}


@pytest.mark.parametrize("line", REFEREE_LINES)
def test_every_referee_line_round_trips(line: str) -> None:
    msg = REFEREE_LINES[line]
    assert parse_referee_line(line) == msg
    assert str(msg) == msg.format() == line
    assert parse_referee_line(line + "\r\n") == msg


@pytest.mark.parametrize("line", PROGRAM_LINES)
def test_every_program_line_round_trips(line: str) -> None:
    msg = PROGRAM_LINES[line]
    assert parse_program_line(line) == msg
    assert str(msg) == line
    assert parse_program_line(line.encode() + b"\n") == msg


def test_the_commands_cover_the_whole_protocol_table() -> None:
    words = {line.split()[0] for line in REFEREE_LINES}
    assert words == {"/start", "/initGame", "/initCard", "/mo", "/ask", "/throw", "/eat",
                     "/pong", "/gong", "/hu", "/exit", "/close", "/ready"}  # fmt: skip
    assert {line.split()[0] for line in PROGRAM_LINES} == {
        "/throw", "/eat", "/pong", "/gong", "/hu", "/pass", "/ready"}  # fmt: skip


def test_seats_are_one_to_four_on_the_wire() -> None:
    assert parse_referee_line("/throw 1 110").seat == 0
    assert parse_referee_line("/throw 4 110").seat == 3
    assert str(ThrowLine(0, 110)) == "/throw 1 110"


def test_tile_ids_follow_type_rank_copy() -> None:
    assert len(ALL_TILE_IDS) == len(set(ALL_TILE_IDS)) == 136
    assert tile_id(Tile.M1, 0) == 110 and tile_id(Tile.P9, 3) == 293
    assert tile_id(Tile.S5, 1) == 351 and tile_id(Tile.N, 2) == 442
    assert [kind_of(t) for t in (450, 460, 470)] == [Tile.C, Tile.F, Tile.P]
    for kind in Tile:
        for copy in range(4):
            tid = tile_id(kind, copy)
            assert kind_of(tid) is kind and copy_of(tid) == copy
            assert tid // 100 == (4 if kind.is_honor else "mps".index(kind.suit) + 1)
            assert tid // 10 % 10 == kind.rank
    for bad in (0, 100, 109, 114, 200, 194, 480, 474, 500, -110):
        with pytest.raises(TileIdError):
            kind_of(bad)


BAD_REFEREE = {
    "": "empty line",
    "/throw 5 110": "seat 5 is not 1..4",
    "/throw 0 110": "seat 0 is not 1..4",
    "/throw 1 480": "480 is not a tile id",
    "/throw 1": "expected /throw <seat> <id>",
    "/pong 1 150 151": "needs 3 tile ids, not 2",
    "/pong 1 150 151 160": "not all the same kind",
    "/eat 1 110 150 120": "is not a run",
    "/eat 1 410 420 430": "a chow is three tiles of one suit",
    "/gong 1 2 110": "kong kind 2 is not 0, 1 or 4",
    "/gong 1 0 110 111": "needs 0 or 4 tile ids, not 2",
    "/initCard 110 111": "needs 16 or 17 tile ids, not 2",
    "/initCard " + " ".join(["110"] * 16): "names the same tile id twice",
    "/initGame east up 1 1 0": "'up' is not a wind",
    "/ask chi": "/ask chi is not throw, eat, pong, gong or hu",
    "/mo 1_10": "'1_10' is not a number",
    "/mo +110": "'+110' is not a number",
    "/hu 1": "needs the winning tile id",
    "/fly 1": "unknown command '/fly'",
    "/mo 110\n/mo 111": "one message per line",
    "/start MJ 1 名": "ASCII",
}


@pytest.mark.parametrize("line", BAD_REFEREE)
def test_malformed_referee_lines_raise_naming_the_line(line: str) -> None:
    with pytest.raises(LineParseError) as info:
        parse_referee_line(line)
    assert info.value.line == line
    assert repr(line) in str(info.value)
    assert BAD_REFEREE[line] in str(info.value)


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("/throw 1 110", "expected /throw <id>"),
        ("/eat 110 130 150", "expected /eat <id> <id>"),
        ("/eat 110 140", "cannot be part of one chow"),
        ("/pong 110 120", "not all the same kind"),
        ("/gong 4 110 111", "needs 3 tile ids"),
        ("/gong 1 110 111", "needs 1 tile ids"),
        ("/hu 110", "expected /hu"),
        ("/ask hu", "unknown command '/ask'"),
    ],
)
def test_malformed_program_lines_raise_naming_the_line(line: str, why: str) -> None:
    with pytest.raises(LineParseError, match=why):
        parse_program_line(line)


def test_overlong_and_non_ascii_bytes_are_refused() -> None:
    with pytest.raises(LineParseError, match="at most 255"):
        parse_referee_line("/initCard " + "110 " * 80)
    with pytest.raises(LineParseError, match="ASCII"):
        parse_program_line(b"/throw \xff")


def test_messages_check_their_fields_when_built() -> None:
    with pytest.raises(MahjongError):
        ThrowLine(4, 110)
    with pytest.raises(MahjongError):
        StartLine(0, "two words")


@pytest.mark.parametrize("name", ["bot\x1b[31m", "nul\x00", "del\x7f", "tab\tbed"])
def test_a_start_name_with_a_control_character_is_refused(name: str) -> None:
    # a name must not forge a log line or colour a terminal (one ASCII word, printable)
    with pytest.raises(MahjongError, match="must be one ASCII word"):
        StartLine(0, name)


tile_ids = st.sampled_from(ALL_TILE_IDS)
seats = st.integers(0, 3)


@given(seats, tile_ids)
def test_random_throws_and_draws_round_trip(seat: int, tid: int) -> None:
    for msg in (ThrowLine(seat, tid), MoLine(tid), ThrowReply(tid)):
        parse = parse_program_line if isinstance(msg, ThrowReply) else parse_referee_line
        assert parse(str(msg)) == msg


@given(seats, st.lists(tile_ids, min_size=16, max_size=17, unique=True))
def test_random_hands_round_trip(seat: int, ids: list[int]) -> None:
    assert parse_referee_line(str(InitCardLine(tuple(ids)))) == InitCardLine(tuple(ids))
    hu = HuLine(seat, ids[0], tuple(ids[1:]))
    assert parse_referee_line(str(hu)) == hu


@given(st.binary(max_size=300))
def test_random_bytes_never_crash_the_decoders(data: bytes) -> None:
    for parse in (parse_referee_line, parse_program_line):
        try:
            parse(data)
        except LineParseError as exc:
            assert exc.line == data


@given(st.lists(st.sampled_from(["/throw", "/eat", "/pong", "/gong", "/hu", "/mo", "/ask",
                                 "/initCard", "/start", "1", "4", "0", "110", "473", "999",
                                 "hu", "MJ", "east", "-1", "x"]), max_size=8))  # fmt: skip
def test_random_word_salad_never_crashes(words: list[str]) -> None:
    line = " ".join(words)
    for parse in (parse_referee_line, parse_program_line):
        try:
            msg = parse(line)
        except LineParseError:
            continue
        assert parse(str(msg)) == msg
