"""One rule for the names people read (issue 32): protocol v1 ``hello``, REST seats, line
``/start`` names and the leaderboard all go through :func:`protocol.names.display_name`."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from protocol.line.codec import StartLine
from protocol.line.tile_ids import LineError
from protocol.names import bot_name, display_name
from protocol.wire.messages import Hello
from protocol.wire.rest import SeatAssignment
from sdk.server.ratings import UNNAMED, credited_players

WELCOME = [
    "機器人",
    "麻將\u3000王",
    "Ångström_bot",
    "🀄",
    "👩\u200d💻 coder",  # joined emoji
    "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # a subdivision flag
    "❤\ufe0f bot",
    "Tiếng Việt",  # stacked marks, within the bound
    "ภาษาไทย่",
    "हिन्दी",
]

REFUSED = {
    "   ": "visible",
    "\u00a0\u00a0": "visible",  # no-break spaces
    "\u3000": "visible",
    "\u3164\u3164": "visible",  # Hangul fillers show nothing
    "\u2800": "visible",
    "\u0301\u0301": "visible",  # marks with nothing to stand on
    "bot\ue000": "private-use",
    "\U000f0000x": "private-use",
    "x\u0378": "unassigned",  # an unassigned code point
    "z" + "\u0301\u0300\u0302\u0303\u0304\u0306": "combining marks",
    "evil\u202etxt": "formatting",
    "zero\u200bwidth": "formatting",
    "a\u200db": "formatting",  # a joiner outside an emoji
    "line\nbreak": "control",
}


@pytest.mark.parametrize("name", WELCOME)
def test_names_of_every_script_and_emoji_are_welcome(name: str) -> None:
    assert display_name(name) == name
    assert Hello(bot_name=name, bot_version=name).bot_name == name
    assert SeatAssignment(seat=0, bot_name=name).bot_name == name


@pytest.mark.parametrize(("name", "why"), REFUSED.items())
def test_names_that_hide_or_forge_text_are_refused_everywhere(name: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        display_name(name)
    with pytest.raises(ValidationError):
        Hello(bot_name=name)
    with pytest.raises(ValidationError):
        SeatAssignment(seat=0, bot_name=name)
    if name.strip():  # a version may be empty: blank ones are trimmed to nothing
        with pytest.raises(ValidationError):
            Hello(bot_name="ok", bot_version=name)


def test_names_are_normalised_and_trimmed_where_they_enter() -> None:
    composed = "caf\u00e9"
    assert display_name(" cafe\u0301\u00a0") == composed
    assert Hello(bot_name="  cafe\u0301 ").bot_name == composed
    assert SeatAssignment(seat=1, bot_name="cafe\u0301").bot_name == composed
    assert Hello(bot_name="x", bot_version=" 1.0 ").bot_version == "1.0"


def test_the_house_namespace_is_reserved_for_the_server() -> None:
    for taken in ("house:greedy", "HOUSE:greedy", " house:random", "ｈｏｕｓｅ：greedy"):
        with pytest.raises(ValueError, match="reserved"):
            bot_name(taken)
        with pytest.raises(ValidationError):
            Hello(bot_name=taken)
        with pytest.raises(ValidationError):
            SeatAssignment(seat=0, bot_name=taken)
    assert bot_name("greedy") == "greedy" and bot_name("my house: bot") == "my house: bot"


def test_line_start_names_follow_the_rule_narrowed_to_one_ascii_word() -> None:
    assert StartLine(0, "my_bot").name == "my_bot"
    for bad in ("my bot", "機器人", "bot\x1b", "\u00a0"):
        with pytest.raises(LineError):
            StartLine(0, bad)


def test_the_leaderboard_shows_names_by_the_same_rule() -> None:
    seats = [
        {"seat": 0, "player": ["cafe\u0301 ", " 2 "]},
        {"seat": 1, "player": ["\u00a0", ""]},  # stored before the rule
        {"seat": 2, "transport": "builtin"},
        {"seat": 3, "transport": "ws", "version": "1"},
    ]
    names, versions = credited_players(["x", "y", "greedy", "greedy"], seats)
    assert names == ("caf\u00e9", UNNAMED, "house:greedy", "greedy")
    assert versions == ("2", "", "", "1")
