"""Names people read: one rule for every bot name and version a client gives (protocol v1
``hello``, REST table seats, line ``/start`` names) and for the names the leaderboard shows.

A name is shown as it is stored, so it must show as what it is: NFC-normalised (two
spellings of ``é`` are one name), trimmed, with at least one visible character, and no
character that hides, reorders or forges text: control and formatting characters
(escapes, bidirectional overrides), private-use and unassigned code points, and no
flood of combining marks stacked on one letter. Letters of every script and emoji are
welcome, joined emoji included.

>>> display_name("  機器人 ")
'機器人'
>>> display_name("cafe\\u0301") == "caf\\u00e9"
True
>>> display_name("👩\\u200d💻 bot")
'👩\\u200d💻 bot'
>>> display_name("\\u00a0\\u00a0")
Traceback (most recent call last):
  ...
ValueError: a name must show at least one visible character
>>> display_name("bot\\x1b[31m")
Traceback (most recent call last):
  ...
ValueError: a name may not contain control, formatting, private-use or unassigned characters (U+001B)

The server plays some seats itself; their results go under the reserved ``house:``
namespace, which no name a client gives may take (:func:`bot_name`).

>>> bot_name("House:greedy")
Traceback (most recent call last):
  ...
ValueError: a name may not start with 'house:' (reserved for the server's own bots)
"""

from __future__ import annotations

import unicodedata

__all__ = ["HOUSE_PREFIX", "MAX_MARKS", "bot_name", "display_name", "house_name"]

MAX_MARKS = 4
"""Combining marks one character may carry (Vietnamese and Thai need two or three)."""
HOUSE_PREFIX = "house:"
"""The namespace of the server's own players on the leaderboard (:func:`house_name`)."""

_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Categories a name may not contain (but see :data:`_JOINERS`)."""
_MARKS = frozenset({"Mn", "Mc", "Me"})
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f")
"""Characters that are letters or symbols to Unicode but show nothing (Hangul fillers,
the blank Braille pattern, the combining grapheme joiner): never the visible one."""
_ZWJ = "\u200d"
_TAGS = range(0xE0020, 0xE0080)
"""Tag characters: the subdivision flags (🏴 and tags, ending with U+E007F)."""
_BLACK_FLAG = "\U0001f3f4"


def _joiner_allowed(text: str, i: int) -> bool:
    """Whether the formatting character at ``i`` is part of an emoji: a zero-width
    joiner between two symbols (👩‍💻), or a tag after the black flag or another tag."""
    char = text[i]
    if char == _ZWJ:
        before = text[:i].rstrip("\ufe0e\ufe0f")
        symbol = ("So", "Sk")
        return (
            bool(before)
            and unicodedata.category(before[-1]) in symbol
            and i + 1 < len(text)
            and unicodedata.category(text[i + 1]) == "So"
        )
    if ord(char) in _TAGS:
        return i > 0 and (text[i - 1] == _BLACK_FLAG or ord(text[i - 1]) in _TAGS)
    return False


def display_name(text: str, what: str = "a name", *, empty: bool = False) -> str:
    """``text`` as it is shown and stored (see the module doc): NFC-normalised and
    trimmed. Raises ``ValueError`` naming what is wrong, by code point (never echoing
    the text). ``empty``: an empty text is allowed (a version).

    >>> display_name("", "a version", empty=True)
    ''
    >>> display_name("x" + "\\u0301" * 5)
    Traceback (most recent call last):
      ...
    ValueError: a name may stack at most 4 combining marks on one character
    """
    text = unicodedata.normalize("NFC", text).strip()
    if not text and empty:
        return text
    visible = False
    marks = 0
    for i, char in enumerate(text):
        category = unicodedata.category(char)
        if category in _HIDDEN and not _joiner_allowed(text, i):
            raise ValueError(
                f"{what} may not contain control, formatting, private-use or unassigned"
                f" characters (U+{ord(char):04X})"
            )
        if category in _MARKS:
            marks += 1
            if marks > MAX_MARKS:
                raise ValueError(
                    f"{what} may stack at most {MAX_MARKS} combining marks on one character"
                )
            continue
        marks = 0
        if category[0] not in "ZC" and char not in _BLANK:
            visible = True
    if not visible:
        raise ValueError(f"{what} must show at least one visible character")
    return text


def bot_name(text: str) -> str:
    """A bot's name as a client gives it: :func:`display_name`, outside the reserved
    ``house:`` namespace (compared as shown: case and width do not matter)."""
    name = display_name(text)
    if unicodedata.normalize("NFKC", name).casefold().startswith(HOUSE_PREFIX):
        raise ValueError(
            f"a name may not start with {HOUSE_PREFIX!r} (reserved for the server's own bots)"
        )
    return name


def house_name(name: str) -> str:
    """The leaderboard name of something the server plays itself (a house bot, or the
    R17 default playing a seat no bot ever took).

    >>> house_name("greedy")
    'house:greedy'
    """
    return HOUSE_PREFIX + name
