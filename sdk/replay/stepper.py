"""Keyboard stepping through a record, as a small state machine (no terminal I/O here:
:mod:`sdk.replay.__main__` reads the keys and draws).

Keys: right arrow, ``n``, space or enter: next event; left arrow, ``p`` or backspace:
previous; down / up arrow, ``d`` / ``D``: next / previous decision; PageDown / PageUp,
``]`` / ``[``: next / previous hand; Home / End: start / end of the hand; ``q`` or
Escape: quit. Other keys do nothing.

>>> from protocol.match import Match
>>> from sdk.records import Header, SeatInfo, build_record
>>> m = Match.new(seed=1, hands=1)
>>> rec = build_record(Header(1, 1, tuple(SeatInfo(s, s, "b") for s in range(4))), m.events, [])
>>> s = Stepper(rec, hand=0)
>>> s.step, s.press("right"), s.step, s.press("left"), s.step, s.press("q")
(1, True, 2, True, 1, False)
"""

from __future__ import annotations

from sdk.records import Record

__all__ = ["KEYS", "KEY_HELP", "Stepper"]

KEYS = {
    "right": "next",
    "n": "next",
    " ": "next",
    "enter": "next",
    "left": "prev",
    "p": "prev",
    "backspace": "prev",
    "d": "next_decision",
    "down": "next_decision",
    "D": "prev_decision",
    "up": "prev_decision",
    "]": "next_hand",
    "pagedown": "next_hand",
    "[": "prev_hand",
    "pageup": "prev_hand",
    "home": "hand_start",
    "end": "hand_end",
    "q": "quit",
    "escape": "quit",
}

KEY_HELP = "→/n next  ←/p back  ↓/d ↑/D decision  PgDn/] PgUp/[ hand  Home/End  q quit"
"""The key line under the keyboard replay."""


class Stepper:
    """The step shown (events applied) and how keys move it. Steps stay inside the
    chosen hand's range unless ``]`` / ``[`` change hands. ``seat`` limits decision
    jumps to that seat's decisions."""

    def __init__(self, record: Record, hand: int = 0, seat: int | None = None) -> None:
        self.record = record
        self.seat = seat
        self.hands = sum(1 for e in record.events if e.type == "hand_start")
        self.decision_steps = sorted(
            {d.after_event for d in record.decisions if seat is None or d.seat == seat}
        )
        self.goto_hand(hand)

    def goto_hand(self, hand: int) -> None:
        """Show hand ``hand`` from its first event."""
        self.hand = hand
        span = self.record.hand_steps(hand)
        self.first, self.last = span.start + 1, span.stop
        self.step = self.first

    def press(self, key: str) -> bool:
        """Apply one key; ``False`` when it asks to quit."""
        action = KEYS.get(key)
        if action == "quit":
            return False
        if action == "next":
            self.step = min(self.step + 1, self.last)
        elif action == "prev":
            self.step = max(self.step - 1, self.first)
        elif action == "next_decision":
            later = [s for s in self.decision_steps if self.step < s <= self.last]
            self.step = later[0] if later else self.last
        elif action == "prev_decision":
            earlier = [s for s in self.decision_steps if self.first <= s < self.step]
            self.step = earlier[-1] if earlier else self.first
        elif action == "next_hand" and self.hand + 1 < self.hands:
            self.goto_hand(self.hand + 1)
        elif action == "prev_hand" and self.hand > 0:
            self.goto_hand(self.hand - 1)
        elif action == "hand_start":
            self.step = self.first
        elif action == "hand_end":
            self.step = self.last
        return True
