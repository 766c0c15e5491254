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

from protocol.wire.codec import (  # noqa: E402
    UnknownMessageError,
    WireDecodeError,
    WireError,
    decode_client_frame,
    decode_server_frame,
    encode,
    event_frame,
)
from protocol.wire.common import (  # noqa: E402
    ActionRequest,
    ErrorCode,
    Outcome,
    RejectReason,
    ServerError,
    SessionEnd,
    SessionStart,
)
from protocol.wire.session import (  # noqa: E402
    Decision,
    SequenceGapError,
    VersionMismatchError,
    WireClient,
    WireServerSeat,
    WireStateError,
)

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
