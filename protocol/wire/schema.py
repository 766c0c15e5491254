"""The JSON Schema of protocol v1, generated from the models; the committed copy is
``protocol/schema/protocol-v1.schema.json`` (a test fails when they differ).

Regenerate with ``python -m protocol.wire --schema``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic.json_schema import models_json_schema

from protocol.wire import PROTOCOL_VERSION
from protocol.wire import messages as m
from protocol.wire import rest as r

__all__ = ["SCHEMA_PATH", "schema", "schema_text"]

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "schema" / "protocol-v1.schema.json"

_SERVER = (m.Welcome, m.EventMsg, m.Request, m.Ack, m.Rejected, m.ErrorMsg, m.Bye)
_CLIENT = (m.Hello, m.Ready, m.Reply)
_REST = (
    r.Health,
    r.TableCreate,
    r.TableCreated,
    r.TableStatus,
    r.TableList,
    r.MatchLog,
    r.Leaderboard,
    r.ErrorBody,
)


def _union(models: tuple[type, ...]) -> dict[str, Any]:
    return {
        "oneOf": [{"$ref": f"#/$defs/{c.__name__}"} for c in models],
        "discriminator": {
            "propertyName": "type",
            "mapping": {
                c.model_fields["type"].default: f"#/$defs/{c.__name__}"  # type: ignore[attr-defined]
                for c in models
            },
        },
    }


def schema() -> dict[str, Any]:
    """The whole schema: ``$defs`` of every model, and the two frame unions."""
    _, defs = models_json_schema(
        [(c, "validation") for c in (*_SERVER, *_CLIENT, *_REST)],
        ref_template="#/$defs/{model}",
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://taimahjong.example/protocol-v1.schema.json",
        "title": "taimahjong protocol v1",
        "description": "Frames (server_message, client_message) and REST bodies; see PROTOCOL.md.",
        "protocol_version": PROTOCOL_VERSION,
        "server_message": _union(_SERVER),
        "client_message": _union(_CLIENT),
        "rest": {c.__name__: {"$ref": f"#/$defs/{c.__name__}"} for c in _REST},
        "$defs": defs["$defs"],
    }


def schema_text() -> str:
    """The schema as committed: sorted keys, two-space indent, final newline."""
    return json.dumps(schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
