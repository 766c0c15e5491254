"""Sans-I/O adapters between the line protocol and the referee's values (re-exported).

Three modules hold them: :mod:`protocol.line.client` (a bot behind the protocol),
:mod:`protocol.line.referee` (a referee seat whose bot speaks it) and
:mod:`protocol.line.asks` (the asks of one decision, shared by both); this module keeps
the names importable from where they always were.

>>> client = LineClientAdapter()
>>> client.receive_line("/start MJ 1 bot")
[SessionStart(seat=0, name='bot', match_id='', table_id='', config={}, resumed=False)]
>>> client.receive_line("/ready"), client.lines_to_send()
([], ['/ready'])
"""

from protocol.line.asks import (
    CLAIM_ASK_ORDER,
    REPLY_OF_ASK,
    TURN_ASK_ORDER,
    LineActionError,
    LineReplyError,
    LineSessionError,
    LineStateError,
    answerable,
)
from protocol.line.client import LineClientAdapter
from protocol.line.referee import (
    Decided,
    LineServerSeat,
    LineTable,
    NextAsk,
    ReadyReply,
    TileIdTracker,
)

__all__ = [
    "CLAIM_ASK_ORDER",
    "REPLY_OF_ASK",
    "TURN_ASK_ORDER",
    "Decided",
    "LineActionError",
    "LineClientAdapter",
    "LineReplyError",
    "LineServerSeat",
    "LineSessionError",
    "LineStateError",
    "LineTable",
    "NextAsk",
    "ReadyReply",
    "TileIdTracker",
    "answerable",
]
