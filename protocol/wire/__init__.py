"""Protocol v1: JSON text frames over WebSocket and the REST bodies, sans-I/O.

* :mod:`protocol.wire.messages`: the pydantic models (a discriminated union on ``type``).
* :mod:`protocol.wire.codec`: frames to messages and back, with narrow errors.
* :mod:`protocol.wire.session`: :class:`WireClient` and :class:`WireServerSeat`.
* :mod:`protocol.wire.rest`: REST bodies; :mod:`protocol.wire.schema`: the JSON Schema.
* :mod:`protocol.wire.common`: what a bot receives from either wire format.

See ``protocol/PROTOCOL.md`` for the specification.
"""

PROTOCOL_VERSION = 1
"""The version of protocol v1 this code speaks; sent in ``hello`` and ``welcome``."""

from importlib import import_module  # noqa: E402
from typing import TYPE_CHECKING, Any  # noqa: E402

from protocol.wire.common import (  # noqa: E402
    ActionRequest,
    ErrorCode,
    Outcome,
    RejectReason,
    ServerError,
    SessionEnd,
    SessionStart,
)

# The pydantic-backed parts load on first use, so that the line protocol (which shares
# ``protocol.wire.common``) and the referee never import pydantic.
_LAZY = {
    **dict.fromkeys(
        (
            "UnknownMessageError",
            "WireDecodeError",
            "WireError",
            "decode_client_frame",
            "decode_server_frame",
            "encode",
            "event_frame",
        ),
        "protocol.wire.codec",
    ),
    **dict.fromkeys(
        (
            "Decision",
            "SequenceGapError",
            "VersionMismatchError",
            "WireClient",
            "WireServerSeat",
            "WireStateError",
        ),
        "protocol.wire.session",
    ),
}

if TYPE_CHECKING:
    from protocol.wire.codec import (
        UnknownMessageError,
        WireDecodeError,
        WireError,
        decode_client_frame,
        decode_server_frame,
        encode,
        event_frame,
    )
    from protocol.wire.session import (
        Decision,
        SequenceGapError,
        VersionMismatchError,
        WireClient,
        WireServerSeat,
        WireStateError,
    )


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'protocol.wire' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "PROTOCOL_VERSION",
    "ActionRequest",
    "Decision",
    "ErrorCode",
    "Outcome",
    "RejectReason",
    "SequenceGapError",
    "ServerError",
    "SessionEnd",
    "SessionStart",
    "UnknownMessageError",
    "VersionMismatchError",
    "WireClient",
    "WireDecodeError",
    "WireError",
    "WireServerSeat",
    "WireStateError",
    "decode_client_frame",
    "decode_server_frame",
    "encode",
    "event_frame",
]
