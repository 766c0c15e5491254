"""Scripted line-protocol sessions, in the style of python-chess's MockTransport.

Each file in ``tests/transcripts`` is a session: the referee's lines (``<``), the exact
lines the program must write (``>``), the legal actions the bot must be offered (``?``),
the bot's choice (``!``) and events the adapter must emit (``@``). The expected lines
were written from the protocol description and the rulings, not from the code.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from protocol.actions import Action
from protocol.events import Event, HandEnd, HandResult, event_from_json
from protocol.line.adapter import LineClientAdapter
from protocol.line.codec import parse_program_line
from protocol.wire.common import ActionRequest, SessionEnd, SessionStart
from sdk.arena.loader import load_bot
from sdk.bot import DecisionRequest
from sdk.view import GameView

_STEPS = {"<": "send", ">": "expect", "?": "legal", "!": "choose", "@": "event"}
SHIPPED = Path(__file__).parents[1] / "protocol" / "line" / "conformance" / "transcripts"
TRANSCRIPTS = sorted(
    [*(Path(__file__).parent / "transcripts").glob("*.txt"), *SHIPPED.glob("*.txt")]
)


class MockReferee:
    """Plays a transcript against a :class:`LineClientAdapter` and checks every step."""

    def __init__(self, path: Path) -> None:
        self.steps = [
            (line[0], line[2:].strip())
            for line in path.read_text().splitlines()
            if line.strip() and not line.startswith("#")
        ]
        self.adapter = LineClientAdapter()
        self.written: list[str] = []
        self.events: list[Event] = []
        self.request: ActionRequest | None = None
        self.items: list[object] = []

    def run(self) -> list[object]:
        for n, (kind, text) in enumerate(self.steps, start=1):
            where = f"step {n}: {kind} {text}"
            getattr(self, "_" + _STEPS[kind])(text, where)
        assert not self.written, f"unexpected lines at the end: {self.written}"
        return self.items

    def _send(self, text: str, where: str) -> None:
        assert not self.written, f"{where}: the program wrote {self.written} unchecked"
        assert self.request is None, f"{where}: a request was never answered"
        items = self.adapter.receive_line(text + "\n")
        self.items.extend(items)
        self.events = [i for i in items if isinstance(i, Event)]
        requests = [i for i in items if isinstance(i, ActionRequest)]
        self.request = requests[0] if requests else None
        self.written.extend(self.adapter.lines_to_send())

    def _expect(self, text: str, where: str) -> None:
        assert self.written, f"{where}: the program wrote nothing"
        assert self.written.pop(0) == text, where

    def _legal(self, text: str, where: str) -> None:
        assert self.request is not None, f"{where}: no request"
        assert [str(a) for a in self.request.legal] == text.split(", "), where

    def _choose(self, text: str, where: str) -> None:
        assert self.request is not None, f"{where}: no request"
        self.written.append(self.adapter.send_action(Action.parse(text)))
        self.request = None

    def _event(self, text: str, where: str) -> None:
        want = event_from_json(json.loads(text))
        assert want in self.events, f"{where}: emitted {[e.to_json() for e in self.events]}"
        self.events = self.events[self.events.index(want) + 1 :]


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[p.stem for p in TRANSCRIPTS])
def test_transcript(path: Path) -> None:
    items = MockReferee(path).run()
    assert isinstance(items[0], SessionStart)
    assert isinstance(items[-1], SessionEnd)


def test_transcripts_exist() -> None:
    assert len(TRANSCRIPTS) >= 2


def _dealt() -> LineClientAdapter:
    adapter = LineClientAdapter()
    for line in (
        "/start MJ 1 alice",
        "/initGame east east 1 1 0",
        "/initCard 110 111 112 113 120 130 220 230 240 280 281 350 360 370 410 411 450",
    ):
        adapter.receive_line(line)
    return adapter


def test_misuse_raises_specific_errors() -> None:
    from protocol.line.adapter import LineActionError, LineStateError
    from protocol.line.codec import LineParseError

    adapter = LineClientAdapter()
    with pytest.raises(LineStateError, match="before /start"):
        adapter.receive_line("/initGame east east 1 1 0")
    adapter = _dealt()
    with pytest.raises(LineActionError, match="no /ask"):
        adapter.send_action(Action.parse("discard C"))
    (request,) = adapter.receive_line("/ask throw")
    assert (
        isinstance(request, ActionRequest) and request.drawn_tile == Action.parse("discard C").tile
    )
    assert request.default == Action.parse("discard C")  # R17: the tile just drawn
    with pytest.raises(LineStateError, match="before the previous /ask throw"):
        adapter.receive_line("/ask throw")
    with pytest.raises(LineActionError, match="not legal"):
        adapter.send_action(Action.parse("discard 9m"))
    with pytest.raises(LineParseError):
        adapter.receive_line("/throw 9 450")
    assert adapter.send_action(Action.parse("discard 1m")) == "/throw 110"


def test_an_exhaustive_draw_is_inferred_at_the_next_hand() -> None:
    adapter = _dealt()
    adapter.receive_line("/ask throw")
    adapter.send_action(Action.parse("discard C"))
    adapter.receive_line("/throw 1 450")
    items = adapter.receive_line("/initGame east east 2 2 0")
    assert [type(i).__name__ for i in items] == ["ExhaustiveDraw", "HandEnd", "HandStart"]
    assert items[1] == HandEnd(HandResult("exhaustive_draw"), (0, 0, 0, 0))  # R15: no payments


@pytest.mark.parametrize("bot_name", ["bots.greedy", "bots.defensive", "bots.random"])
@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[p.stem for p in TRANSCRIPTS])
def test_sample_bots_answer_every_ask_legally(path: Path, bot_name: str) -> None:
    """Our bots, fed only the referee's lines of each transcript (the public forms
    included), answer every ask with a well-formed line naming ids they hold."""
    bot = load_bot(bot_name).make(3)
    adapter = LineClientAdapter()
    asks = 0
    for kind, text in MockReferee(path).steps:
        if kind != "<":
            continue
        held = list(adapter.hand_ids)
        for item in adapter.receive_line(text):
            if not isinstance(item, ActionRequest):
                continue
            asks += 1
            assert adapter.view is not None
            decision = DecisionRequest(item.legal, time.monotonic() + 2.5, item.request_id)
            action = bot.choose(GameView(adapter.view), decision)
            assert action in item.legal, f"{bot_name} at {text!r}: {action}"
            reply = parse_program_line(adapter.send_action(action))
            ids = reply.tiles if hasattr(reply, "tiles") else getattr(reply, "tile", ())
            ids = ids if isinstance(ids, tuple) else (ids,)
            assert all(t in held for t in ids), f"{reply} names ids not held: {held}"
        for reply_line in adapter.lines_to_send():
            parse_program_line(reply_line)
    assert asks > 0
