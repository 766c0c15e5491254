"""Actions: what a seat may answer when the referee asks it to decide.

An :class:`Action` is a small immutable value. All of them are interned (there are only
a few hundred), so building a list of legal actions allocates nothing but the tuple, and
``action in legal`` is mostly an identity test. Each has a stable text and JSON form:

>>> a = Action.parse("chow 4m 6m")
>>> a.to_json()
{'type': 'chow', 'tiles': ['4m', '6m']}
>>> Action.from_json({"type": "discard", "tile": "5m"}) is Action.discard(Tile.M5)
True
>>> str(Action.concealed_kong(Tile.E)), str(PASS), Action.parse("added_kong 5p").tile
('concealed_kong E', 'pass', <Tile.P5: 13>)
>>> Action(ActionKind.DISCARD, Tile.E) is Action.discard(Tile.E), Action.parse("pung")
(True, Action.parse('pung'))

Build them from notation, tiles or ints; the claims without a tile are constants too:

>>> Action.discard("9s"), Action.chow("4m", "6m"), Action.pung() is PUNG, Action.pass_()
(Action.parse('discard 9s'), Action.parse('chow 4m 6m'), True, Action.parse('pass'))

Legal lists are ordered by :attr:`Action.sort_key`: win, concealed kongs, added kongs,
exposed kong, pung, chows, discards (each by tile), pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from protocol.errors import MahjongError, TileParseError
from protocol.tiles import KIND_COUNT, Tile, parse_tiles

TileLike = str | int
"""A tile as an argument: text in tournament notation (``"5m"``, ``"E"``, ``"C"``), a
:class:`~protocol.tiles.Tile` (an int) or a plain kind 0..33."""

__all__ = [
    "ADDED_KONG",
    "CHOW",
    "CLAIM_KINDS",
    "CONCEALED_KONG",
    "DISCARD",
    "KONG",
    "PASS",
    "PUNG",
    "WIN",
    "Action",
    "ActionKind",
    "ActionParseError",
    "TileLike",
]


class ActionParseError(MahjongError):
    """Text or JSON could not be read as an action; the message says why."""


class ActionKind(StrEnum):
    """The kinds of action; the values are the stable text and JSON names."""

    WIN = "win"
    CONCEALED_KONG = "concealed_kong"
    ADDED_KONG = "added_kong"
    KONG = "kong"  # exposed kong on a discard (明槓)
    PUNG = "pung"
    CHOW = "chow"
    DISCARD = "discard"
    PASS = "pass"


_ORDER = {kind: i for i, kind in enumerate(ActionKind)}
_WITH_TILE = frozenset({ActionKind.CONCEALED_KONG, ActionKind.ADDED_KONG, ActionKind.DISCARD})
CLAIM_KINDS = frozenset({ActionKind.WIN, ActionKind.KONG, ActionKind.PUNG, ActionKind.CHOW})
"""Kinds that answer another seat's discard (besides pass)."""


class Action:
    """One decision. ``tile`` is set for discards and own-turn kongs; ``tiles`` holds the
    two tiles a chow takes from the claimer's hand (lowest first).

    Actions are immutable and interned: ``Action(kind, tile, tiles)`` returns the one
    shared instance (or raises :class:`ActionParseError` for an impossible action), so
    equality is identity and ``action in legal`` is a C-level identity scan. The
    constructors (:meth:`discard`, :meth:`chow`, ...) and the module constants are the
    cheap ways to get them.
    """

    __slots__ = ("kind", "tile", "tiles")
    kind: ActionKind
    tile: Tile | None
    tiles: tuple[Tile, Tile] | None

    def __new__(
        cls,
        kind: ActionKind | str,
        tile: int | None = None,
        tiles: tuple[int, int] | None = None,
    ) -> Action:
        key = (
            _kind(kind),
            None if tile is None else int(tile),
            None if tiles is None else tuple(int(t) for t in tiles),
        )
        found = _INTERNED.get(key)
        if found is None:
            raise ActionParseError(f"no such action: {kind} tile={tile!r} tiles={tiles!r}")
        return found

    @classmethod
    def _make(
        cls, kind: ActionKind, tile: Tile | None = None, tiles: tuple[Tile, Tile] | None = None
    ) -> Action:
        self = object.__new__(cls)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "tile", tile)
        object.__setattr__(self, "tiles", tiles)
        key = (kind, None if tile is None else int(tile), None if tiles is None else tuple(tiles))
        _INTERNED[key] = self
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Action is immutable (cannot set {name})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Action is immutable (cannot delete {name})")

    def __reduce__(self) -> tuple[type[Action], tuple[object, ...]]:
        return (Action, (self.kind, self.tile, self.tiles))

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"

    @property
    def sort_key(self) -> tuple[int, int]:
        """The position of this action in a legal list."""
        if self.kind is ActionKind.CHOW:
            assert self.tiles is not None
            return (_ORDER[self.kind], self.tiles[0] * KIND_COUNT + self.tiles[1])
        return (_ORDER[self.kind], -1 if self.tile is None else int(self.tile))

    @staticmethod
    def discard(tile: TileLike) -> Action:
        """Discard one tile of kind ``tile`` (text such as ``"9s"``, a :class:`Tile` or
        an int).

        >>> Action.discard("9s") is Action.discard(Tile.S9) is Action.discard(26)
        True
        """
        if (type(tile) is Tile or type(tile) is int) and 0 <= tile < KIND_COUNT:
            return _DISCARDS[tile]  # the hot path: no conversion
        return _DISCARDS[_kind_of(tile)]

    @staticmethod
    def concealed_kong(tile: TileLike) -> Action:
        """Declare four concealed ``tile`` as a kong (R8); ``tile`` as for :meth:`discard`.

        >>> str(Action.concealed_kong("C"))
        'concealed_kong C'
        """
        return _CONCEALED_KONGS[_kind_of(tile)]

    @staticmethod
    def added_kong(tile: TileLike) -> Action:
        """Add a concealed ``tile`` to one's own pung (R8); ``tile`` as for :meth:`discard`."""
        return _ADDED_KONGS[_kind_of(tile)]

    @staticmethod
    def chow(a: TileLike, b: TileLike | None = None) -> Action:
        """Chow the pending discard with own tiles ``a`` and ``b`` (any order), each as
        for :meth:`discard`; or both in one text, ``Action.chow("4m 6m")``.

        >>> Action.chow("6m", "4m") is Action.chow("4m 6m") is Action.chow(Tile.M4, 5)
        True
        """
        if b is None:
            a, b = _two_tiles(a)
        ka, kb = _kind_of(a), _kind_of(b)
        key = (ka, kb) if ka < kb else (kb, ka)
        action = _CHOWS.get(key)
        if action is None:
            raise ActionParseError(
                f"{Tile(ka)} and {Tile(kb)} cannot make a chow with a third tile"
            )
        return action

    @staticmethod
    def win() -> Action:
        """Declare a win: on the pending discard, or by self-draw on one's own turn
        (the constant :data:`WIN`).

        >>> Action.win() is WIN
        True
        """
        return WIN

    @staticmethod
    def pung() -> Action:
        """Pung the pending discard (the constant :data:`PUNG`)."""
        return PUNG

    @staticmethod
    def kong() -> Action:
        """Exposed kong on the pending discard, 明槓 (the constant :data:`KONG`)."""
        return KONG

    @staticmethod
    def pass_() -> Action:
        """Let the pending discard go (the constant :data:`PASS`; ``pass`` is a Python
        keyword, hence the underscore).

        >>> Action.pass_() is PASS is Action.parse("pass")
        True
        """
        return PASS

    def __str__(self) -> str:
        if self.tiles is not None:
            return f"{self.kind.value} {self.tiles[0]} {self.tiles[1]}"
        if self.tile is not None:
            return f"{self.kind.value} {self.tile}"
        return self.kind.value

    def to_json(self) -> dict[str, Any]:
        """A plain dict, for example ``{"type": "discard", "tile": "5m"}``."""
        out: dict[str, Any] = {"type": self.kind.value}
        if self.tile is not None:
            out["tile"] = str(self.tile)
        if self.tiles is not None:
            out["tiles"] = [str(t) for t in self.tiles]
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Action:
        """Read the dict form; raise :class:`ActionParseError`."""
        if not isinstance(data, Mapping):
            raise ActionParseError(f"an action is a JSON object, not {data!r}")
        kind = _kind(data.get("type"))
        tile, tiles = data.get("tile"), data.get("tiles")
        if kind is ActionKind.CHOW:
            if not isinstance(tiles, list | tuple) or len(tiles) != 2 or tile is not None:
                raise ActionParseError(f"{dict(data)!r}: a chow names two tiles in 'tiles'")
            return cls.chow(_tile(tiles[0]), _tile(tiles[1]))
        if tiles is not None:
            raise ActionParseError(f"{dict(data)!r}: only a chow has 'tiles'")
        return _build(kind, tile, data)

    @classmethod
    def parse(cls, text: str) -> Action:
        """Read the text form (``discard 5m``, ``chow 4m 6m``, ``pung``, ``win``...)."""
        words = text.split()
        if not words:
            raise ActionParseError("an empty line is not an action")
        kind = _kind(words[0])
        if kind is ActionKind.CHOW:
            if len(words) != 3:
                raise ActionParseError(f"{text!r}: write a chow as 'chow 4m 6m'")
            return cls.chow(_tile(words[1]), _tile(words[2]))
        if len(words) > 2:
            raise ActionParseError(f"{text!r}: too many words")
        return _build(kind, words[1] if len(words) == 2 else None, text)


def _kind(value: Any) -> ActionKind:
    try:
        return ActionKind(value)
    except ValueError:
        names = ", ".join(k.value for k in ActionKind)
        raise ActionParseError(f"{value!r} is not an action type ({names})") from None


def _kind_of(value: Any) -> int:
    """The kind 0..33 of a tile given as text, :class:`Tile` or int."""
    if isinstance(value, str):
        return _tile(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < KIND_COUNT:
        return int(value)
    raise ActionParseError(f"{value!r} is not a tile (give text such as '5m', a Tile or 0..33)")


def _two_tiles(text: Any) -> tuple[Tile, Tile]:
    if not isinstance(text, str):
        raise ActionParseError(f"a chow needs two tiles, got only {text!r}")
    try:
        tiles = parse_tiles(text, check_counts=False)
    except TileParseError as exc:
        raise ActionParseError(str(exc)) from None
    if len(tiles) != 2:
        raise ActionParseError(f"{text!r}: a chow names two own tiles, such as '4m 6m'")
    return tiles[0], tiles[1]


def _tile(value: Any) -> Tile:
    if not isinstance(value, str):
        raise ActionParseError(f"{value!r} is not a tile in text form such as '5m'")
    try:
        return Tile.parse(value)
    except TileParseError as exc:
        raise ActionParseError(str(exc)) from None


def _build(kind: ActionKind, tile: Any, source: Any) -> Action:
    if kind in _WITH_TILE:
        if tile is None:
            raise ActionParseError(f"{source!r}: {kind.value} needs a tile")
        table = {
            ActionKind.DISCARD: _DISCARDS,
            ActionKind.CONCEALED_KONG: _CONCEALED_KONGS,
            ActionKind.ADDED_KONG: _ADDED_KONGS,
        }[kind]
        return table[_tile(tile)]
    if tile is not None:
        raise ActionParseError(f"{source!r}: {kind.value} takes no tile")
    return _SIMPLE[kind]


_INTERNED: dict[tuple[object, ...], Action] = {}
_DISCARDS: tuple[Action, ...] = tuple(Action._make(ActionKind.DISCARD, Tile(k)) for k in range(34))
_CONCEALED_KONGS: tuple[Action, ...] = tuple(
    Action._make(ActionKind.CONCEALED_KONG, Tile(k)) for k in range(34)
)
_ADDED_KONGS: tuple[Action, ...] = tuple(
    Action._make(ActionKind.ADDED_KONG, Tile(k)) for k in range(34)
)
_CHOWS: dict[tuple[int, int], Action] = {
    (a, a + d): Action._make(ActionKind.CHOW, tiles=(Tile(a), Tile(a + d)))
    for a in range(27)
    for d in (1, 2)
    if a % 9 + d <= 8
}
_SIMPLE: dict[ActionKind, Action] = {
    k: Action._make(k) for k in (ActionKind.WIN, ActionKind.KONG, ActionKind.PUNG, ActionKind.PASS)
}

WIN = _SIMPLE[ActionKind.WIN]
KONG = _SIMPLE[ActionKind.KONG]
PUNG = _SIMPLE[ActionKind.PUNG]
PASS = _SIMPLE[ActionKind.PASS]
DISCARD = _DISCARDS
"""``DISCARD[k]`` is the interned discard of kind ``k``."""
CONCEALED_KONG = _CONCEALED_KONGS
ADDED_KONG = _ADDED_KONGS
CHOW = _CHOWS
"""``CHOW[(a, b)]`` (``a < b``) is the interned chow with own tiles ``a`` and ``b``."""
