"""Events: every change of a hand or a match, as small immutable values.

The referee appends one event per change; a seat's :class:`~protocol.view.SeatView` is
rebuilt by applying them. :func:`project` gives an event exactly as one seat may see it:
another seat's deal keeps only its tile count, another seat's draw and concealed kong
have no tile, and another seat's :class:`Declined` is left out. Nothing hidden is carried
in a projected event (the field is ``None`` and absent from the JSON).

Every event has a JSON form, a plain dict with a ``"type"`` key and tiles as text, and
:func:`event_from_json` reads it back:

>>> ev = Draw(seat=1, replacement=False, tile=Tile.M5)
>>> ev.to_json()
{'type': 'draw', 'seat': 1, 'replacement': False, 'tile': '5m'}
>>> project(ev, 2).to_json()
{'type': 'draw', 'seat': 1, 'replacement': False}
>>> event_from_json(ev.to_json()) == ev
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar

from protocol.errors import MahjongError
from protocol.melds import Meld
from protocol.tiles import Tile

__all__ = [
    "AddedKong",
    "Chow",
    "ConcealedKong",
    "Deal",
    "Declined",
    "Discard",
    "Draw",
    "Event",
    "EventParseError",
    "ExhaustiveDraw",
    "ExposedKong",
    "FourWindsAbort",
    "HandEnd",
    "HandResult",
    "HandStart",
    "MatchEnd",
    "Pung",
    "Win",
    "event_from_json",
    "project",
]


class EventParseError(MahjongError):
    """A JSON object could not be read as an event."""


# Codecs: how one field is written to JSON and read back. None is never written.
_Codec = tuple[Callable[[Any], Any], Callable[[Any], Any]]
_INT: _Codec = (int, int)
_BOOL: _Codec = (bool, bool)
_TILE: _Codec = (str, Tile.parse)
_TILES: _Codec = (lambda ts: [str(t) for t in ts], lambda ts: tuple(Tile.parse(t) for t in ts))
_INTS: _Codec = (list, tuple)


def _meld_to_json(meld: Meld) -> dict[str, Any]:
    out: dict[str, Any] = {"meld": str(meld)}
    if meld.called is not None:
        out["called"] = str(meld.called)
    if meld.source is not None:
        out["from"] = meld.source
    return out


def _meld_from_json(data: Mapping[str, Any]) -> Meld:
    meld = Meld.parse(data["meld"])
    called = data.get("called")
    return Meld(
        meld.kind, meld.tile, None if called is None else Tile.parse(called), data.get("from")
    )


_MELDS: _Codec = (
    lambda ms: [_meld_to_json(m) for m in ms],
    lambda ms: tuple(_meld_from_json(m) for m in ms),
)
_STR: _Codec = (str, str)


class Event:
    """Base of all events. ``seat`` is the seat the event is about, ``None`` for events
    about the whole table; ``type`` is the stable JSON name."""

    __slots__ = ()
    type: ClassVar[str]
    seat: int | None
    _fields: ClassVar[tuple[tuple[str, str, _Codec], ...]]

    def to_json(self) -> dict[str, Any]:
        """A plain dict with a ``"type"`` key; fields that are ``None`` are left out."""
        out: dict[str, Any] = {"type": self.type}
        for name, key, (encode, _) in self._fields:
            value = getattr(self, name)
            if value is not None:
                out[key] = encode(value)
        return out


_TYPES: dict[str, type[Event]] = {}


def _register(cls: type[Event]) -> type[Event]:
    """Record the event type by its JSON name and give it a fast ``__init__``.

    A frozen dataclass assigns its fields through ``object.__setattr__``; the referee
    creates two events per turn, so this builds the same ``__init__`` (same parameters,
    same defaults) from the slot descriptors instead, which is about twice as fast. The
    instances stay frozen: attribute assignment still raises."""
    _TYPES[cls.type] = cls
    params, body = [], []
    env: dict[str, Any] = {}
    for f in fields(cls):
        env[f"_set_{f.name}"] = getattr(cls, f.name).__set__
        if f.default is MISSING:
            params.append(f.name)
        else:
            env[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        body.append(f"    _set_{f.name}(self, {f.name})")
    source = f"def __init__(self, {', '.join(params)}):\n" + ("\n".join(body) or "    pass")
    exec(source, env)
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[misc]
    return cls


@_register
@dataclass(frozen=True, slots=True)
class HandStart(Event):
    """A hand begins: its number in the match, dealer, round wind and the scores so far."""

    type: ClassVar[str] = "hand_start"
    seat: ClassVar[None] = None
    _fields = (
        ("hand", "hand", _INT),
        ("dealer", "dealer", _INT),
        ("round_wind", "round_wind", _TILE),
        ("scores", "scores", _INTS),
    )
    hand: int
    dealer: int
    round_wind: Tile
    scores: tuple[int, ...]


@_register
@dataclass(frozen=True, slots=True)
class Deal(Event):
    """``seat`` is dealt ``count`` tiles (R1), in deal order; ``tiles`` only for that seat."""

    type: ClassVar[str] = "deal"
    _fields = (("seat", "seat", _INT), ("count", "count", _INT), ("tiles", "tiles", _TILES))
    seat: int
    count: int
    tiles: tuple[Tile, ...] | None = None


@_register
@dataclass(frozen=True, slots=True)
class Draw(Event):
    """``seat`` draws from the front, or from the back when ``replacement`` (R1, R8)."""

    type: ClassVar[str] = "draw"
    _fields = (
        ("seat", "seat", _INT),
        ("replacement", "replacement", _BOOL),
        ("tile", "tile", _TILE),
    )
    seat: int
    replacement: bool
    tile: Tile | None = None


@_register
@dataclass(frozen=True, slots=True)
class Discard(Event):
    """``seat`` discards ``tile``."""

    type: ClassVar[str] = "discard"
    _fields = (("seat", "seat", _INT), ("tile", "tile", _TILE))
    seat: int
    tile: Tile


@_register
@dataclass(frozen=True, slots=True)
class Chow(Event):
    """``seat`` chows ``tile`` discarded by ``from_seat`` with its own ``tiles``."""

    type: ClassVar[str] = "chow"
    _fields = (
        ("seat", "seat", _INT),
        ("tile", "tile", _TILE),
        ("tiles", "tiles", _TILES),
        ("from_seat", "from", _INT),
    )
    seat: int
    tile: Tile
    tiles: tuple[Tile, Tile]
    from_seat: int


@_register
@dataclass(frozen=True, slots=True)
class Pung(Event):
    """``seat`` pungs ``tile`` discarded by ``from_seat``."""

    type: ClassVar[str] = "pung"
    _fields = (("seat", "seat", _INT), ("tile", "tile", _TILE), ("from_seat", "from", _INT))
    seat: int
    tile: Tile
    from_seat: int


@_register
@dataclass(frozen=True, slots=True)
class ExposedKong(Event):
    """``seat`` makes an exposed kong (明槓) on ``tile`` discarded by ``from_seat``."""

    type: ClassVar[str] = "kong"
    _fields = (("seat", "seat", _INT), ("tile", "tile", _TILE), ("from_seat", "from", _INT))
    seat: int
    tile: Tile
    from_seat: int


@_register
@dataclass(frozen=True, slots=True)
class AddedKong(Event):
    """``seat`` adds a fourth ``tile`` to its pung (加槓)."""

    type: ClassVar[str] = "added_kong"
    _fields = (("seat", "seat", _INT), ("tile", "tile", _TILE))
    seat: int
    tile: Tile


@_register
@dataclass(frozen=True, slots=True)
class ConcealedKong(Event):
    """``seat`` declares a concealed kong (暗槓); ``tile`` only for that seat."""

    type: ClassVar[str] = "concealed_kong"
    _fields = (("seat", "seat", _INT), ("tile", "tile", _TILE))
    seat: int
    tile: Tile | None = None


@_register
@dataclass(frozen=True, slots=True)
class Declined(Event):
    """``seat`` let a chance go by (R9), seen only by that seat: with ``win`` it could have
    won on ``tile`` and enters the passed-win state; with ``pung`` it could have punged
    ``tile`` and may not pung that kind until its next discard."""

    type: ClassVar[str] = "declined"
    _fields = (
        ("seat", "seat", _INT),
        ("tile", "tile", _TILE),
        ("win", "win", _BOOL),
        ("pung", "pung", _BOOL),
    )
    seat: int
    tile: Tile
    win: bool
    pung: bool


@_register
@dataclass(frozen=True, slots=True)
class Win(Event):
    """``seat`` wins on ``tile``, from ``from_seat`` or by self-draw (``None``). The whole
    hand is revealed: ``hand`` is the concealed tiles including ``tile``, ``melds`` all
    declared sets (concealed kongs included)."""

    type: ClassVar[str] = "win"
    _fields = (
        ("seat", "seat", _INT),
        ("tile", "tile", _TILE),
        ("from_seat", "from", _INT),
        ("hand", "hand", _TILES),
        ("melds", "melds", _MELDS),
    )
    seat: int
    tile: Tile
    from_seat: int | None
    hand: tuple[Tile, ...]
    melds: tuple[Meld, ...]


@_register
@dataclass(frozen=True, slots=True)
class ExhaustiveDraw(Event):
    """Nobody won the last discard (R2): the hand is drawn."""

    type: ClassVar[str] = "exhaustive_draw"
    seat: ClassVar[None] = None
    _fields = ()


@_register
@dataclass(frozen=True, slots=True)
class FourWindsAbort(Event):
    """The first four discards were the same wind (R4): the hand is drawn at once."""

    type: ClassVar[str] = "abort"
    seat: ClassVar[None] = None
    _fields = (("reason", "reason", _STR),)
    reason: str = "four_winds"


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended. ``outcome`` is ``"win"``, ``"exhaustive_draw"`` or
    ``"four_winds"``. For a win: ``winner``, ``discarder`` (``None`` on self-draw),
    ``win_tile`` and ``score``, the scoring module's JSON (split, items, total tai,
    payments). ``payments`` are the four score changes (sum 0; all 0 on a draw, R15)."""

    outcome: str
    payments: tuple[int, int, int, int] = (0, 0, 0, 0)
    winner: int | None = None
    discarder: int | None = None
    win_tile: Tile | None = None
    score: Mapping[str, Any] | None = field(default=None, compare=True)

    def to_json(self) -> dict[str, Any]:
        """A plain dict for logs and the wire."""
        out: dict[str, Any] = {"outcome": self.outcome, "payments": list(self.payments)}
        if self.winner is not None:
            out["winner"] = self.winner
            out["discarder"] = self.discarder
            out["win_tile"] = str(self.win_tile)
            out["score"] = dict(self.score or {})
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> HandResult:
        """Read the dict form of :meth:`to_json`."""
        win_tile = data.get("win_tile")
        return cls(
            outcome=str(data["outcome"]),
            payments=tuple(int(p) for p in data["payments"]),  # type: ignore[arg-type]
            winner=data.get("winner"),
            discarder=data.get("discarder"),
            win_tile=None if win_tile is None else Tile.parse(win_tile),
            score=data.get("score"),
        )


@_register
@dataclass(frozen=True, slots=True)
class HandEnd(Event):
    """The hand is over: its result and the cumulative scores after it."""

    type: ClassVar[str] = "hand_end"
    seat: ClassVar[None] = None
    _fields = (
        ("result", "result", (HandResult.to_json, HandResult.from_json)),
        ("scores", "scores", _INTS),
    )
    result: HandResult
    scores: tuple[int, ...]


@_register
@dataclass(frozen=True, slots=True)
class MatchEnd(Event):
    """The match is over, with the final scores by seat."""

    type: ClassVar[str] = "match_end"
    seat: ClassVar[None] = None
    _fields = (("scores", "scores", _INTS),)
    scores: tuple[int, ...]


_OPTIONAL: dict[type[Event], tuple[str, ...]] = {
    Deal: ("tiles",),
    Draw: ("tile",),
    ConcealedKong: ("tile",),
    Win: ("from_seat",),
}
"""Fields that may be absent: hidden from a projection, or a self-draw's discarder."""


def event_from_json(data: Mapping[str, Any]) -> Event:
    """Read an event from its JSON form; raise :class:`EventParseError`."""
    cls = _TYPES.get(data.get("type")) if isinstance(data, Mapping) else None
    if cls is None:
        raise EventParseError(f"not an event: {data!r}")
    kwargs: dict[str, Any] = {}
    optional = _OPTIONAL.get(cls, ())
    try:
        for name, key, (_, decode) in cls._fields:
            value = data.get(key)
            if value is None and name not in optional:
                raise EventParseError(f"{data!r}: {key!r} is missing")
            kwargs[name] = None if value is None else decode(value)
        return cls(**kwargs)
    except (KeyError, TypeError, ValueError) as exc:
        raise EventParseError(f"{data!r}: {exc}") from None


def project_all(events: Iterable[Event], seat: int) -> list[Event]:
    """The events ``seat`` sees, each as it sees it (see :func:`project`)."""
    out = []
    for ev in events:
        seen = project(ev, seat)
        if seen is not None:
            out.append(seen)
    return out


def project(event: Event, seat: int) -> Event | None:
    """``event`` as ``seat`` may see it, or ``None`` if that seat does not see it at all.

    >>> project(ConcealedKong(0, Tile.E), 1), project(ConcealedKong(0, Tile.E), 0).tile
    (ConcealedKong(seat=0, tile=None), <Tile.E: 27>)
    >>> project(Deal(0, 17, tuple(Tile(k) for k in range(17))), 3)
    Deal(seat=0, count=17, tiles=None)
    """
    if event.seat is None or event.seat == seat:
        return event
    cls = type(event)
    if cls is Draw:  # direct constructors: dataclasses.replace is slow on this hot path
        return Draw(event.seat, event.replacement) if event.tile is not None else event  # type: ignore[attr-defined]
    if cls is Deal:
        return Deal(event.seat, event.count) if event.tiles is not None else event  # type: ignore[attr-defined]
    if cls is ConcealedKong:
        return ConcealedKong(event.seat) if event.tile is not None else event  # type: ignore[attr-defined]
    if cls is Declined:
        return None
    return event
