"""How people number hands and steps, and how that maps to a record's indexes.

The rule (docs/RECORDS.md, "Numbering"): hands are numbered from 1 for people ("hand 1"
is a match's first hand); a step is counted within its hand, step ``S`` being the table
after the hand's event ``S`` (step 0: right after its ``hand_start``). Seats stay 0..3
as in the line protocol. Record files and REST keep their 0-based hand index
(``HandStart.hand``, ``HandRecord.hand``) and count events over the whole match
(``Decision.after_event``).

So "hand 3 step 12" opens with ``python -m sdk.replay RECORD --hand 3 --step 12`` and in
the viewer at ``#hand=3&step=12``.

>>> hand_number(0), hand_index(1)
(1, 0)
>>> viewer_anchor(2, 12)
'#hand=3&step=12'
>>> from sdk.records import Header, SeatInfo, build_record
>>> from protocol.match import Match
>>> m = Match.new(seed=1, hands=1)
>>> rec = build_record(Header(1, 1, tuple(SeatInfo(s, s, "b") for s in range(4))), m.events, [])
>>> in_hand(rec, 3), match_step(rec, 0, 2)
((0, 2), 3)
"""

from __future__ import annotations

from sdk.records import Record

__all__ = [
    "hand_index",
    "hand_label",
    "hand_number",
    "in_hand",
    "match_step",
    "step_label",
    "steps_in_hand",
    "viewer_anchor",
]


def hand_number(index: int) -> int:
    """The number people see for the hand at 0-based ``index``."""
    return index + 1


def hand_index(number: int) -> int:
    """The 0-based index of the hand people call ``number``."""
    return number - 1


def hand_label(index: int) -> str:
    """``"hand 1"`` for the hand at 0-based ``index`` 0.

    >>> hand_label(10)
    'hand 11'
    """
    return f"hand {hand_number(index)}"


def in_hand(record: Record, step: int) -> tuple[int, int]:
    """(0-based hand index, step within the hand) of the record's ``step`` (events
    applied over the match). A step at or before a ``hand_start`` belongs to the hand
    before it; step 0 (before any event) is hand 0's step 0."""
    starts = _starts(record)
    hand = 0
    for i, start in enumerate(starts):
        if start < step:
            hand = i
    start = starts[hand] if starts else 0
    return hand, max(0, step - 1 - start)


def match_step(record: Record, hand: int, step: int) -> int:
    """The record's step (events applied over the match) of step ``step`` within the
    hand at 0-based index ``hand``: the inverse of :func:`in_hand`."""
    return record.hand_steps(hand).start + 1 + step


def steps_in_hand(record: Record, hand: int) -> int:
    """How many steps the hand at 0-based ``hand`` has (one per event)."""
    return len(record.hand_steps(hand))


def step_label(record: Record, step: int) -> str:
    """The record's ``step`` as people read it: ``"hand 2 step 7"``."""
    hand, within = in_hand(record, step)
    return f"{hand_label(hand)} step {within}"


def viewer_anchor(hand: int, step: int) -> str:
    """The viewer's anchor for step ``step`` within the hand at 0-based ``hand``
    (docs/VIEWER.md)."""
    return f"#hand={hand_number(hand)}&step={step}"


def _starts(record: Record) -> list[int]:
    return [i for i, e in enumerate(record.events) if e.type == "hand_start"]
