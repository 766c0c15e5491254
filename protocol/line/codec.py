"""The tournament line protocol, both directions: text lines to typed messages and back.

One ASCII line per message (``\\n`` ends it; a trailing ``\\r`` is accepted), words split
by spaces. Seats are 1..4 on the wire and 0..3 in the typed messages; tiles are physical
tile ids (:mod:`protocol.line.tile_ids`). The referee's lines parse with
:func:`parse_referee_line`, the program's replies with :func:`parse_program_line`; every
message formats back with ``str()`` (or :meth:`format`), so ``parse(str(m)) == m``.

>>> m = parse_referee_line("/throw 2 153\\r\\n")
>>> m, str(m)
(ThrowLine(seat=1, tile=153), '/throw 2 153')
>>> parse_referee_line("/gong 3 0")
GongLine(seat=2, kind=<GongKind.CONCEALED: 0>, tiles=())
>>> str(EatReply((121, 131))), parse_program_line("/pass")
('/eat 121 131', PassReply())
>>> parse_referee_line("/pong 1 150 151")
Traceback (most recent call last):
  ...
protocol.line.codec.LineParseError: '/pong 1 150 151': /pong <seat> needs 3 tile ids, not 2

What the public referee and clients send is accepted too (``/start MJ <seat>`` with an
empty name, ``/draw <id>`` for ``/mo <id>``, capitalised winds, ``/exit`` with
arguments, the ids of ``/pong`` and ``/eat`` in any order); what we write is always the
canonical form above:

>>> parse_referee_line("/draw 153"), parse_referee_line("/exit 0 0 0 0")
(MoLine(tile=153), ExitLine(word='exit'))
>>> m = parse_referee_line("/initGame East East 3 2 0"); str(m)
'/initGame East East 3 2 0'
>>> parse_referee_line("/start MJ 2 ")
StartLine(seat=1, name='', game='MJ')

The commands live in two tables (:data:`REFEREE_COMMANDS`, :data:`PROGRAM_COMMANDS`), so a
command that turns out different in the official appendix is a one-line change.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum

from protocol.line.tile_ids import LineError, TileIdError, kind_of
from protocol.names import display_name
from protocol.tiles import Tile

__all__ = [
    "PROGRAM_COMMANDS",
    "REFEREE_COMMANDS",
    "WIND_WORDS",
    "AskKind",
    "AskLine",
    "EatLine",
    "EatReply",
    "ExitLine",
    "GongKind",
    "GongLine",
    "GongReply",
    "HuLine",
    "HuReply",
    "InitCardLine",
    "InitGameLine",
    "LineParseError",
    "MoLine",
    "PassReply",
    "PongLine",
    "PongReply",
    "ProgramLine",
    "ReadyLine",
    "RefereeLine",
    "StartLine",
    "ThrowLine",
    "ThrowReply",
    "parse_program_line",
    "parse_referee_line",
]

MAX_LINE = 255
"""Clients commonly read at most this many bytes per line; longer lines are refused."""


class LineParseError(LineError):
    """A line is not a valid message; ``line`` is the offending text and the message
    says what is wrong with it."""

    def __init__(self, line: object, reason: str) -> None:
        self.line = line
        self.reason = reason
        super().__init__(f"{line!r}: {reason}")


class _Invalid(LineError):
    """Raised while checking one message's fields; the parser names the line."""


class AskKind(StrEnum):
    """What ``/ask`` asks about (the word after ``/ask``)."""

    THROW = "throw"
    EAT = "eat"
    PONG = "pong"
    GONG = "gong"
    HU = "hu"


class GongKind(IntEnum):
    """The kong-kind number of ``/gong`` lines."""

    CONCEALED = 0
    ADDED = 1
    EXPOSED = 4


WIND_WORDS: dict[str, Tile] = {"east": Tile.E, "south": Tile.S, "west": Tile.W, "north": Tile.N}
_WORD_OF_WIND = {v: k for k, v in WIND_WORDS.items()}
_NUMBER = re.compile(r"[0-9]{1,6}")


# --- field checks ----------------------------------------------------------------------


def _seat(seat: int) -> int:
    if not isinstance(seat, int) or not 0 <= seat <= 3:
        raise _Invalid(f"seat {seat!r} is not 0..3 (1..4 on the wire)")
    return seat


def _ids(tiles: Sequence[int], n: int | tuple[int, ...], what: str) -> tuple[int, ...]:
    tiles = tuple(tiles)
    allowed = (n,) if isinstance(n, int) else n
    if len(tiles) not in allowed:
        want = " or ".join(str(a) for a in allowed)
        raise _Invalid(f"{what} needs {want} tile ids, not {len(tiles)}")
    try:
        for t in tiles:
            kind_of(t)
    except TileIdError as exc:
        raise _Invalid(str(exc)) from None
    if len(set(tiles)) != len(tiles):
        raise _Invalid(f"{what} names the same tile id twice")
    return tiles


def _same_kind(tiles: tuple[int, ...], what: str) -> None:
    if len({kind_of(t) for t in tiles}) > 1:
        raise _Invalid(f"{what}: tiles {' '.join(map(str, tiles))} are not all the same kind")


def _chow_kinds(kinds: list[Tile], what: str) -> None:
    kinds = sorted(kinds)
    if kinds[0].is_honor or any(k.suit != kinds[0].suit for k in kinds):
        raise _Invalid(f"{what}: a chow is three tiles of one suit")
    if len(kinds) == 3 and kinds != [kinds[0], kinds[0] + 1, kinds[0] + 2]:
        raise _Invalid(f"{what}: {' '.join(map(str, kinds))} is not a run")
    if len(kinds) == 2 and kinds[1] - kinds[0] not in (1, 2):
        raise _Invalid(f"{what}: {kinds[0]} and {kinds[1]} cannot be part of one chow")


def _word(name: str) -> str:
    """``name`` if it is one word of printable ASCII: a name by the one rule for names
    (:func:`~protocol.names.display_name`: it must not forge a log line or colour a
    terminal), narrowed to what ``/start`` can carry."""
    try:
        shown = display_name(name)
    except ValueError:
        shown = ""
    if shown != name or not (name.isascii() and name.isprintable()) or " " in name:
        raise _Invalid(f"{name!r} must be one ASCII word")
    return name


# --- referee to program ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StartLine:
    """``/start MJ <seat> <name>``: a session starts; the program sits at ``seat``."""

    seat: int
    name: str
    game: str = "MJ"

    def __post_init__(self) -> None:
        _seat(self.seat)
        if self.name:  # the public referee may send an empty name: "/start MJ 2 "
            _word(self.name)
        _word(self.game)

    def format(self) -> str:
        """The line as it is written on the wire."""
        return f"/start {self.game} {self.seat + 1} {self.name}"


@dataclass(frozen=True, slots=True)
class InitGameLine:
    """``/initGame <table wind> <round wind> <n> <dealer> <repeat>``: a hand starts.

    ``number`` is the ambiguous third field (the seat that opens the wall, the hand
    number or the round, 1..4 as the public referee writes it); ``dealer`` is a seat
    0..3; ``repeat`` is always 0 under these rules. The winds are written capitalised,
    as the public referee writes them (``East``), and read in any case."""

    table_wind: Tile
    round_wind: Tile
    number: int
    dealer: int
    repeat: int = 0

    def __post_init__(self) -> None:
        for wind in (self.table_wind, self.round_wind):
            if wind not in _WORD_OF_WIND:
                raise _Invalid(f"{wind!r} is not a wind")
        _seat(self.dealer)
        if self.number < 0 or self.repeat < 0:
            raise _Invalid("the hand number and the repeat count are not negative")

    def format(self) -> str:
        """The line as it is written on the wire."""
        t, r = _WORD_OF_WIND[self.table_wind], _WORD_OF_WIND[self.round_wind]
        return f"/initGame {t.title()} {r.title()} {self.number} {self.dealer + 1} {self.repeat}"


@dataclass(frozen=True, slots=True)
class InitCardLine:
    """``/initCard <id> ...``: the program's starting tiles (17 for the dealer, else 16)."""

    tiles: tuple[int, ...]

    def __post_init__(self) -> None:
        _ids(self.tiles, (16, 17), "/initCard")

    def format(self) -> str:
        """The line as it is written on the wire."""
        return "/initCard " + " ".join(map(str, self.tiles))


@dataclass(frozen=True, slots=True)
class MoLine:
    """``/mo <id>``: the program drew this tile (normal draw or kong replacement)."""

    tile: int

    def __post_init__(self) -> None:
        _ids((self.tile,), 1, "/mo")

    def format(self) -> str:
        """The line as it is written on the wire."""
        return f"/mo {self.tile}"


@dataclass(frozen=True, slots=True)
class AskLine:
    """``/ask <kind>``: answer with exactly one line."""

    kind: AskKind

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", AskKind(self.kind))

    def format(self) -> str:
        """The line as it is written on the wire."""
        return f"/ask {self.kind.value}"


@dataclass(frozen=True, slots=True)
class ThrowLine:
    """``/throw <seat> <id>``: ``seat`` discarded ``tile`` (sent to the discarder too)."""

    seat: int
    tile: int

    def __post_init__(self) -> None:
        _seat(self.seat)
        _ids((self.tile,), 1, "/throw <seat>")

    def format(self) -> str:
        """The line as it is written on the wire."""
        return f"/throw {self.seat + 1} {self.tile}"


@dataclass(frozen=True, slots=True)
class EatLine:
    """``/eat <seat> <own> <taken> <own>``: ``seat`` chowed ``taken``."""

    seat: int
    own_a: int
    taken: int
    own_b: int

    def __post_init__(self) -> None:
        _seat(self.seat)
        ids = _ids((self.own_a, self.taken, self.own_b), 3, "/eat <seat>")
        _chow_kinds([kind_of(t) for t in ids], "/eat <seat>")

    def format(self) -> str:
        """The line as it is written on the wire."""
        return f"/eat {self.seat + 1} {self.own_a} {self.taken} {self.own_b}"


@dataclass(frozen=True, slots=True)
class PongLine:
    """``/pong <seat> <id> <id> <id>``: ``seat`` punged."""

    seat: int
    tiles: tuple[int, ...]

    def __post_init__(self) -> None:
        _seat(self.seat)
        _same_kind(_ids(self.tiles, 3, "/pong <seat>"), "/pong <seat>")

    def format(self) -> str:
        """The line as it is written on the wire."""
        return f"/pong {self.seat + 1} " + " ".join(map(str, self.tiles))


_GONG_SEEN_IDS = {GongKind.EXPOSED: (4,), GongKind.ADDED: (1,), GongKind.CONCEALED: (0, 4)}


@dataclass(frozen=True, slots=True)
class GongLine:
    """``/gong <seat> <kind> <ids>``: 4 ids for an exposed kong, 1 for an added kong, 4
    for one's own concealed kong and none for another seat's concealed kong."""

    seat: int
    kind: GongKind
    tiles: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        _seat(self.seat)
        object.__setattr__(self, "kind", _gong_kind(self.kind))
        ids = _ids(self.tiles, _GONG_SEEN_IDS[self.kind], f"/gong <seat> {int(self.kind)}")
        _same_kind(ids, "/gong <seat>")

    def format(self) -> str:
        """The line as it is written on the wire."""
        return " ".join(map(str, ("/gong", self.seat + 1, int(self.kind), *self.tiles)))


@dataclass(frozen=True, slots=True)
class HuLine:
    """``/hu <seat> <winning id> <rest of the hand...>``: ``seat`` won.

    ``rest`` is the rest of the winner's concealed hand (up to 16 ids). A referee that
    also lists the tiles of the declared sets (up to 21 ids in all) is read too: the
    client adapter takes them out."""

    seat: int
    win_tile: int
    rest: tuple[int, ...] = field(default=())

    def __post_init__(self) -> None:
        _seat(self.seat)
        _ids((self.win_tile, *self.rest), tuple(range(1, 22)), "/hu <seat>")

    def format(self) -> str:
        """The line as it is written on the wire."""
        return " ".join(map(str, ("/hu", self.seat + 1, self.win_tile, *self.rest)))


@dataclass(frozen=True, slots=True)
class ExitLine:
    """``/exit`` or ``/close``: the game ends; the program should close."""

    word: str = "exit"

    def __post_init__(self) -> None:
        if self.word not in ("exit", "close"):
            raise _Invalid(f"/{self.word} is not /exit or /close")

    def format(self) -> str:
        """The line as it is written on the wire."""
        return f"/{self.word}"


@dataclass(frozen=True, slots=True)
class ReadyLine:
    """``/ready``: the referee's readiness probe, and the program's answer to it."""

    def format(self) -> str:
        """The line as it is written on the wire."""
        return "/ready"


# --- program to referee ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ThrowReply:
    """``/throw <id>``: discard."""

    tile: int

    def __post_init__(self) -> None:
        _ids((self.tile,), 1, "/throw")

    def format(self) -> str:
        """The line as it is written on the wire."""
        return f"/throw {self.tile}"


@dataclass(frozen=True, slots=True)
class EatReply:
    """``/eat <id> <id>``: chow with these two own tiles."""

    tiles: tuple[int, int]

    def __post_init__(self) -> None:
        ids = _ids(self.tiles, 2, "/eat")
        _chow_kinds([kind_of(t) for t in ids], "/eat")

    def format(self) -> str:
        """The line as it is written on the wire."""
        return f"/eat {self.tiles[0]} {self.tiles[1]}"


@dataclass(frozen=True, slots=True)
class PongReply:
    """``/pong <id> <id>``: pung with these two own tiles."""

    tiles: tuple[int, int]

    def __post_init__(self) -> None:
        _same_kind(_ids(self.tiles, 2, "/pong"), "/pong")

    def format(self) -> str:
        """The line as it is written on the wire."""
        return f"/pong {self.tiles[0]} {self.tiles[1]}"


_GONG_REPLY_IDS = {GongKind.CONCEALED: 4, GongKind.ADDED: 1, GongKind.EXPOSED: 3}


@dataclass(frozen=True, slots=True)
class GongReply:
    """``/gong 0 <4 ids>`` (concealed), ``/gong 1 <id>`` (added), ``/gong 4 <3 ids>``
    (exposed, with the three own tiles)."""

    kind: GongKind
    tiles: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", _gong_kind(self.kind))
        ids = _ids(self.tiles, _GONG_REPLY_IDS[self.kind], f"/gong {int(self.kind)}")
        _same_kind(ids, "/gong")

    def format(self) -> str:
        """The line as it is written on the wire."""
        return " ".join(map(str, ("/gong", int(self.kind), *self.tiles)))


@dataclass(frozen=True, slots=True)
class HuReply:
    """``/hu``: win."""

    def format(self) -> str:
        """The line as it is written on the wire."""
        return "/hu"


@dataclass(frozen=True, slots=True)
class PassReply:
    """``/pass``: decline."""

    def format(self) -> str:
        """The line as it is written on the wire."""
        return "/pass"


RefereeLine = (
    StartLine
    | InitGameLine
    | InitCardLine
    | MoLine
    | AskLine
    | ThrowLine
    | EatLine
    | PongLine
    | GongLine
    | HuLine
    | ExitLine
    | ReadyLine
)
"""Any line the referee sends."""
ProgramLine = ThrowReply | EatReply | PongReply | GongReply | HuReply | PassReply | ReadyLine
"""Any line the program sends."""

for _cls in (*RefereeLine.__args__, *ProgramLine.__args__):  # type: ignore[attr-defined]
    _cls.__str__ = _cls.format  # type: ignore[method-assign]


def _gong_kind(value: object) -> GongKind:
    try:
        return GongKind(value)
    except ValueError:
        raise _Invalid(f"kong kind {value!r} is not 0, 1 or 4") from None


# --- parsing ---------------------------------------------------------------------------


def _num(word: str) -> int:
    if not _NUMBER.fullmatch(word):
        raise _Invalid(f"{word!r} is not a number")
    return int(word)


def _nums(words: Sequence[str]) -> tuple[int, ...]:
    return tuple(_num(w) for w in words)


def _wire_seat(word: str) -> int:
    n = _num(word)
    if not 1 <= n <= 4:
        raise _Invalid(f"seat {word} is not 1..4")
    return n - 1


def _arity(args: Sequence[str], n: int, usage: str) -> None:
    if len(args) != n:
        raise _Invalid(f"expected {usage}")


def _p_start(a: list[str]) -> StartLine:
    if len(a) == 2:  # "/start MJ <seat> " with an empty name (the public referee)
        a = [*a, ""]
    _arity(a, 3, "/start MJ <seat> <name>")
    return StartLine(_wire_seat(a[1]), a[2], a[0])


def _wind(word: str) -> Tile:
    wind = WIND_WORDS.get(word.lower())
    if wind is None:
        raise _Invalid(f"{word!r} is not a wind (east, south, west, north)")
    return wind


def _p_init_game(a: list[str]) -> InitGameLine:
    _arity(a, 5, "/initGame <table wind> <round wind> <n> <dealer seat> <repeat>")
    return InitGameLine(_wind(a[0]), _wind(a[1]), _num(a[2]), _wire_seat(a[3]), _num(a[4]))


def _p_init_card(a: list[str]) -> InitCardLine:
    return InitCardLine(_nums(a))


def _p_mo(a: list[str]) -> MoLine:
    _arity(a, 1, "/mo <id> (or /draw <id>)")
    return MoLine(_num(a[0]))


def _p_exit(a: list[str]) -> ExitLine:
    """Any ``/exit`` ends the game; an older form carries arguments (``/exit 0 0 0 0``)."""
    return ExitLine()


def _p_ask(a: list[str]) -> AskLine:
    _arity(a, 1, "/ask throw|eat|pong|gong|hu")
    try:
        return AskLine(AskKind(a[0]))
    except ValueError:
        raise _Invalid(f"/ask {a[0]} is not throw, eat, pong, gong or hu") from None


def _seat_and(a: list[str], usage: str) -> tuple[int, tuple[int, ...]]:
    if not a:
        raise _Invalid(f"expected {usage}")
    return _wire_seat(a[0]), _nums(a[1:])


def _p_throw_seen(a: list[str]) -> ThrowLine:
    _arity(a, 2, "/throw <seat> <id>")
    return ThrowLine(_wire_seat(a[0]), _num(a[1]))


def _p_eat_seen(a: list[str]) -> EatLine:
    seat, ids = _seat_and(a, "/eat <seat> <own> <taken> <own>")
    _ids(ids, 3, "/eat <seat>")
    return EatLine(seat, *ids)


def _p_pong_seen(a: list[str]) -> PongLine:
    seat, ids = _seat_and(a, "/pong <seat> <id> <id> <id>")
    return PongLine(seat, ids)


def _p_gong_seen(a: list[str]) -> GongLine:
    if len(a) < 2:
        raise _Invalid("expected /gong <seat> <0|1|4> <ids...>")
    return GongLine(_wire_seat(a[0]), _gong_kind(_num(a[1])), _nums(a[2:]))


def _p_hu_seen(a: list[str]) -> HuLine:
    seat, ids = _seat_and(a, "/hu <seat> <winning id> <rest of the hand...>")
    if not ids:
        raise _Invalid("/hu <seat> needs the winning tile id")
    return HuLine(seat, ids[0], ids[1:])


def _no_args(cls: Callable[[], object], usage: str) -> Callable[[list[str]], object]:
    def parse(a: list[str]) -> object:
        _arity(a, 0, usage)
        return cls()

    return parse


def _p_throw(a: list[str]) -> ThrowReply:
    _arity(a, 1, "/throw <id>")
    return ThrowReply(_num(a[0]))


def _p_eat(a: list[str]) -> EatReply:
    _arity(a, 2, "/eat <id> <id>")
    return EatReply(_nums(a))  # type: ignore[arg-type]


def _p_pong(a: list[str]) -> PongReply:
    _arity(a, 2, "/pong <id> <id>")
    return PongReply(_nums(a))  # type: ignore[arg-type]


def _p_gong(a: list[str]) -> GongReply:
    if not a:
        raise _Invalid("expected /gong 0 <4 ids>, /gong 1 <id> or /gong 4 <3 ids>")
    return GongReply(_gong_kind(_num(a[0])), _nums(a[1:]))


REFEREE_COMMANDS: dict[str, Callable[[list[str]], object]] = {
    "/start": _p_start,
    "/initGame": _p_init_game,
    "/initCard": _p_init_card,
    "/mo": _p_mo,
    "/draw": _p_mo,  # the public simulator's logs write /draw for /mo
    "/ask": _p_ask,
    "/throw": _p_throw_seen,
    "/eat": _p_eat_seen,
    "/pong": _p_pong_seen,
    "/gong": _p_gong_seen,
    "/hu": _p_hu_seen,
    "/exit": _p_exit,
    "/close": lambda a: ExitLine("close"),  # like /exit, with or without arguments
    "/ready": _no_args(ReadyLine, "/ready"),
}
"""Parsers of the referee's lines, by command word."""

PROGRAM_COMMANDS: dict[str, Callable[[list[str]], object]] = {
    "/throw": _p_throw,
    "/eat": _p_eat,
    "/pong": _p_pong,
    "/gong": _p_gong,
    "/hu": _no_args(HuReply, "/hu"),
    "/pass": _no_args(PassReply, "/pass"),
    "/ready": _no_args(ReadyLine, "/ready"),
}
"""Parsers of the program's lines, by command word."""


def _split(line: str | bytes) -> list[str]:
    if isinstance(line, bytes | bytearray):
        try:
            line = bytes(line).decode("ascii")
        except UnicodeDecodeError:
            raise _Invalid("a line is ASCII text") from None
    if not isinstance(line, str):
        raise _Invalid(f"a line is text, not {type(line).__name__}")
    if line.endswith("\n"):
        line = line[:-1]
    if line.endswith("\r"):
        line = line[:-1]
    if not line.isascii():
        raise _Invalid("a line is ASCII text")
    if len(line) > MAX_LINE:
        raise _Invalid(f"a line has at most {MAX_LINE} characters")
    if "\n" in line or "\r" in line:
        raise _Invalid("one message per line")
    words = line.split()
    if not words:
        raise _Invalid("empty line")
    return words


def _parse(line: str | bytes, table: dict[str, Callable[[list[str]], object]]) -> object:
    try:
        words = _split(line)
        parse = table.get(words[0])
        if parse is None:
            known = ", ".join(table)
            raise _Invalid(f"unknown command {words[0]!r} (known: {known})")
        return parse(words[1:])
    except LineError as exc:
        raise LineParseError(line, str(exc)) from None


def parse_referee_line(line: str | bytes) -> RefereeLine:
    """Read one line the referee sent; raise :class:`LineParseError` naming the line."""
    return _parse(line, REFEREE_COMMANDS)  # type: ignore[return-value]


def parse_program_line(line: str | bytes) -> ProgramLine:
    """Read one line a program sent; raise :class:`LineParseError` naming the line."""
    return _parse(line, PROGRAM_COMMANDS)  # type: ignore[return-value]
