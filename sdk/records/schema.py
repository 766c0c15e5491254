"""The JSON Schema of record format v1, generated from pydantic models of each line;
the committed copy is ``sdk/records/schema/record-v1.schema.json`` (a test fails when
they differ, and another validates real records against the models).

The event models are generated from :mod:`protocol.events` itself (each event type's
fields and codecs), so a new event or field changes the schema. The writer and reader do
not use pydantic (they are on the arena's path); :func:`validate_line` does, for tests
and ``python -m sdk.records --validate``. Regenerate with ``python -m sdk.records
--schema``.

>>> validate_line({"type": "result", "status": "finished", "hands_played": 1,
...                "scores": [0, 0, 0, 0], "ended_at": None}).type
'result'
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model
from pydantic.json_schema import models_json_schema

from protocol import events as ev
from protocol.actions import ActionKind
from protocol.tiles import KIND_COUNT, Tile
from sdk.records.model import FORMAT, SOURCES, VERSION
from sdk.records.outcome import Outcome

__all__ = ["LINE_MODELS", "SCHEMA_PATH", "schema", "schema_text", "validate_line"]

SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / f"record-v{VERSION}.schema.json"

TileName = StrEnum("TileName", {str(Tile(k)): str(Tile(k)) for k in range(KIND_COUNT)})  # type: ignore[misc]
"""A tile in the project's notation: ``1m``..``9m``, ``1p``.., ``1s``.., ``E S W N C F P``."""
Seat = Annotated[int, Field(ge=0, le=3)]
Scores = Annotated[list[int], Field(min_length=4, max_length=4)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ActionJson(_Strict):
    """An action as :meth:`protocol.actions.Action.to_json` writes it."""

    type: ActionKind
    tile: TileName | None = None
    tiles: Annotated[list[TileName], Field(min_length=2, max_length=2)] | None = None


class MeldJson(_Strict):
    """A meld in an event: its text (``pung:555s``), the claimed tile and from whom."""

    meld: str
    called: TileName | None = None
    from_: Seat | None = Field(default=None, alias="from")


class ScoreItemJson(_Strict):
    id: str
    name: str
    tai: int
    count: int


class ScoreJson(BaseModel):
    """The scoring module's breakdown of a win (:mod:`protocol.scoring`)."""

    split: dict[str, Any]
    items: list[ScoreItemJson]
    total_tai: int
    payments: Scores


class HandResultJson(_Strict):
    outcome: Literal["win", "exhaustive_draw", "four_winds"]
    payments: Scores
    winner: Seat | None = None
    discarder: Seat | None = None
    win_tile: TileName | None = None
    score: ScoreJson | None = None


_CODEC_TYPES: list[tuple[Any, Any]] = [
    (ev._INT, int),
    (ev._BOOL, bool),
    (ev._TILE, TileName),
    (ev._TILES, list[TileName]),
    (ev._INTS, list[int]),
    (ev._MELDS, list[MeldJson]),
    (ev._STR, str),
]


def _field_type(name: str, codec: Any) -> Any:
    for known, annotation in _CODEC_TYPES:
        if codec is known:
            return annotation
    if name == "result":
        return HandResultJson
    raise TypeError(f"no schema type for event field {name!r}")


def _event_model(cls: type[ev.Event]) -> type[BaseModel]:
    optional = ev._OPTIONAL.get(cls, ())
    fields: dict[str, Any] = {"type": (Literal[cls.type], ...)}  # type: ignore[valid-type]
    for name, key, codec in cls._fields:
        annotation = _field_type(name, codec)
        if name in optional:
            fields[key] = (annotation | None, None)
        else:
            fields[key] = (annotation, ...)
    return create_model(  # type: ignore[call-overload,no-any-return]
        f"Event_{cls.type}", __config__=ConfigDict(extra="forbid"), __doc__=cls.__doc__, **fields
    )


EVENT_MODELS = tuple(_event_model(cls) for cls in ev._TYPES.values())
EventJson = Annotated[
    Union[EVENT_MODELS],  # noqa: UP007
    Field(discriminator="type"),
]


class SeatJson(_Strict):
    seat: Seat
    player: Seat
    name: str
    version: str


class TimingJson(_Strict):
    decision_seconds: float
    safety_margin: float
    started_at: float | None


class OriginJson(_Strict):
    source: Literal[SOURCES]  # type: ignore[valid-type]
    match_id: str
    table_id: str | None = None
    deal: int | None = None


class HeaderLine(_Strict):
    """The first line of every record."""

    type: Literal["header"]
    format: Literal[FORMAT]  # type: ignore[valid-type]
    version: Literal[VERSION]  # type: ignore[valid-type]
    rules: str
    seed: int
    hands: Annotated[int, Field(ge=1)]
    first_dealer: Seat
    seats: Annotated[list[SeatJson], Field(min_length=4, max_length=4)]
    timing: TimingJson
    origin: OriginJson


class EventLine(_Strict):
    """One referee event; ``index`` counts from 0 over the whole match."""

    type: Literal["event"]
    index: Annotated[int, Field(ge=0)]
    event: EventJson  # type: ignore[valid-type]


class DecisionLine(_Strict):
    """One settled decision, right before the events it caused."""

    type: Literal["decision"]
    hand: Annotated[int, Field(ge=0)]
    seat: Seat
    after_event: Annotated[int, Field(ge=0)]
    request_id: str
    legal: list[ActionJson]
    answer: ActionJson | None
    applied: ActionJson
    outcome: Outcome
    ms: float | None
    raw: str | None = None
    reason: str | None = None
    sent_at: float | None = None
    replied_at: float | None = None


class HandLine(_Strict):
    """A hand's result, right after its ``hand_end`` event."""

    type: Literal["hand"]
    hand: Annotated[int, Field(ge=0)]
    dealer: Seat
    round_wind: Literal["E", "S", "W", "N"]
    end_event: Annotated[int, Field(ge=0)]
    result: HandResultJson
    scores: Scores


class ResultLine(_Strict):
    """The last line, once the match is over."""

    type: Literal["result"]
    status: Literal["finished", "aborted"]
    hands_played: Annotated[int, Field(ge=0)]
    scores: Scores
    ended_at: float | None


LINE_MODELS: tuple[type[BaseModel], ...] = (
    HeaderLine,
    EventLine,
    DecisionLine,
    HandLine,
    ResultLine,
)
_LINE = TypeAdapter(
    Annotated[
        Union[LINE_MODELS],  # noqa: UP007
        Field(discriminator="type"),
    ]
)


def validate_line(data: Any) -> BaseModel:
    """Check one parsed line against the schema's models (raises pydantic's
    ``ValidationError``)."""
    return _LINE.validate_python(data)  # type: ignore[no-any-return]


def schema() -> dict[str, Any]:
    """The whole schema: ``$defs`` of every line model and a ``line`` union."""
    _, defs = models_json_schema(
        [(c, "validation") for c in LINE_MODELS], ref_template="#/$defs/{model}"
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://taimahjong.example/record-v{VERSION}.schema.json",
        "title": f"taimahjong game record v{VERSION}",
        "description": "One JSON object per line: a header, then events, decisions and "
        "hand results in order, then a result line; see docs/RECORDS.md.",
        "record_version": VERSION,
        "oneOf": [{"$ref": f"#/$defs/{c.__name__}"} for c in LINE_MODELS],
        "$defs": defs["$defs"],
    }


def schema_text() -> str:
    """The schema as committed: sorted keys, two-space indent, final newline."""
    return json.dumps(schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
