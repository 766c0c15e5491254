"""How a decision was settled: the one vocabulary of every record, log and report.

The server (:mod:`sdk.server.records`), the in-process budget (:mod:`sdk.decide`) and the
game records (:mod:`sdk.records`) all use these strings; they are stored and served, so
they never change meaning:

* ``ok``: the seat's own answer was applied;
* ``late``: no usable answer before the deadline (or one after it): the fallback went out;
* ``error``: the bot raised while choosing (in-process): the fallback went out;
* ``illegal``: an answer that was not legal (wrong id, wrong tiles, wrong ask);
* ``malformed``: a reply that could not be read;
* ``disconnected``: the seat was not connected, so the default was applied;
* ``overridden``: the seat's claim was legal but lost to a higher claim (R5).

>>> Outcome("late") is Outcome.LATE, Outcome.LATE == "late"
(True, True)
>>> sorted(o.value for o in FALLBACKS)
['disconnected', 'error', 'illegal', 'late', 'malformed']
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["FALLBACKS", "Outcome"]


class Outcome(StrEnum):
    """How a decision was settled (stable strings: they are stored and served)."""

    OK = "ok"
    LATE = "late"
    ERROR = "error"
    ILLEGAL = "illegal"
    MALFORMED = "malformed"
    DISCONNECTED = "disconnected"
    OVERRIDDEN = "overridden"


FALLBACKS = frozenset(
    {Outcome.LATE, Outcome.ERROR, Outcome.ILLEGAL, Outcome.MALFORMED, Outcome.DISCONNECTED}
)
"""Outcomes where the seat's own answer was not used: a fallback or default went out."""
