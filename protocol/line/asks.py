"""The asks of one decision, shared by both sides of the line protocol.

The line protocol asks one decision as a sequence of ``/ask`` lines: on one's own turn
``/ask hu``, ``/ask gong``, ``/ask throw``; on another seat's discard ``/ask hu``,
``/ask gong`` (exposed kong), ``/ask pong``, ``/ask eat``, each only if legal. Each
``/ask`` gets exactly one line; the first answer that is not ``/pass`` is the decision.
This module holds their order, which reply answers which ask, and the errors of a
session (:mod:`protocol.line.client` and :mod:`protocol.line.referee` build on it).

>>> from protocol.actions import PUNG
>>> answerable(PUNG, AskKind.PONG), answerable(PUNG, AskKind.EAT)
(True, False)
>>> REPLY_OF_ASK[AskKind.THROW].__name__
'ThrowReply'
"""

from __future__ import annotations

from protocol.actions import PASS, Action, ActionKind
from protocol.line.codec import AskKind, EatReply, GongReply, HuReply, PongReply, ThrowReply
from protocol.line.tile_ids import LineError
from protocol.wire.common import RejectReason

__all__ = [
    "CLAIM_ASK_ORDER",
    "KONGS",
    "REPLY_OF_ASK",
    "TURN_ASK_ORDER",
    "LineActionError",
    "LineReplyError",
    "LineSessionError",
    "LineStateError",
    "answerable",
    "still_answerable",
]

TURN_ASK_ORDER: dict[AskKind, int] = {AskKind.HU: 0, AskKind.GONG: 1, AskKind.THROW: 2}
"""The order of the asks of one's own turn (the rank of each)."""
CLAIM_ASK_ORDER: dict[AskKind, int] = {
    AskKind.HU: 0,
    AskKind.GONG: 1,
    AskKind.PONG: 1,
    AskKind.EAT: 2,
}
"""The order of the asks on a discard (pong and gong share a rank: either may come first)."""

KONGS = (ActionKind.CONCEALED_KONG, ActionKind.ADDED_KONG)


class LineStateError(LineError):
    """A line does not fit the state of the session (for example ``/initCard`` before
    ``/initGame``, or a second ``/ask`` before the first was answered)."""


class LineActionError(LineError):
    """The bot's action cannot answer the current ``/ask`` (not legal, or no ask)."""


class LineSessionError(LineStateError):
    """The referee's lines leave the session unable to go on (an ``/ask throw`` for a
    hand the seat never got, a ``/start`` that moves the seat in the middle of a hand):
    ``fatal``, so it ends the session as a protocol error even when unreadable lines are
    otherwise skipped."""

    fatal = True


class LineReplyError(LineError):
    """A program's reply was refused; ``reason`` (:class:`RejectReason`) says why. The
    server applies the seat's R17 default and may report the reason."""

    def __init__(self, reason: RejectReason, message: str, line: object = None) -> None:
        self.reason = reason
        self.line = line
        super().__init__(f"{reason.value}: {message}" + (f" (line {line!r})" if line else ""))


def answerable(action: Action, ask: AskKind) -> bool:
    """Whether ``action`` is written as the answer to ``ask`` (else the answer is /pass).

    >>> from protocol.actions import DISCARD
    >>> answerable(DISCARD[0], AskKind.THROW), answerable(DISCARD[0], AskKind.HU)
    (True, False)
    """
    kind = action.kind
    if ask is AskKind.HU:
        return kind is ActionKind.WIN
    if ask is AskKind.GONG:
        return kind in KONGS or kind is ActionKind.KONG
    if ask is AskKind.PONG:
        return kind is ActionKind.PUNG
    if ask is AskKind.EAT:
        return kind is ActionKind.CHOW
    return kind is ActionKind.DISCARD


def still_answerable(action: Action, ask: AskKind, claim: bool) -> bool:
    """Whether ``action`` can be answered by ``ask`` or by an ask that may follow it."""
    order = CLAIM_ASK_ORDER if claim else TURN_ASK_ORDER
    here = order.get(ask, 0)
    if action is PASS:
        return claim
    return any(answerable(action, a) for a, rank in order.items() if rank >= here)


REPLY_OF_ASK: dict[AskKind, type] = {
    AskKind.HU: HuReply,
    AskKind.GONG: GongReply,
    AskKind.PONG: PongReply,
    AskKind.EAT: EatReply,
    AskKind.THROW: ThrowReply,
}
