"""What the terminal replay shows, as plain text lines and ``rich`` renderables.

Everything here reads a :class:`~sdk.records.Record` and the views rebuilt from it
(:func:`sdk.records.views_at`); nothing is recomputed outside the rules model. With a
``seat`` the table is that seat's view: other seats' concealed tiles are only counted,
and only that seat's decisions are shown (another seat's legal actions would reveal its
hand).

>>> from protocol.events import Discard, Draw
>>> from protocol.tiles import Tile
>>> names = ("a", "b", "c", "d")
>>> describe(Draw(1, False, Tile.M5), names), describe(Draw(1, True), names)
('b (seat 1) draws 5m', 'b (seat 1) draws a replacement tile')
>>> describe(Discard(2, Tile.E), names)
'c (seat 2) discards E'
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import IO, Any

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from protocol.actions import Action, ActionKind
from protocol.events import (
    AddedKong,
    Chow,
    ConcealedKong,
    Deal,
    Declined,
    Discard,
    Draw,
    Event,
    ExposedKong,
    HandEnd,
    HandStart,
    MatchEnd,
    Pung,
    Win,
)
from protocol.tiles import Tile
from protocol.view import SeatView
from protocol.wall import RESERVED
from sdk.records import Decision, HandRecord, Record, views_at
from sdk.replay.numbering import hand_label, in_hand, steps_in_hand

__all__ = [
    "console_for",
    "decision_lines",
    "describe",
    "river_claims",
    "table_at",
    "tile_text",
    "win_table",
]

_SUIT_STYLE = {"m": "red", "p": "blue", "s": "green"}
_WIND_NAMES = "ESWN"


UNWRAPPED = 10_000
"""The width written when the output is not a terminal and no ``--width`` is given:
full lines (a file or a pipe gets every column, not 80)."""


class _PipeConsole(Console):
    """A console whose reader may go away (``... --print | head``): that ends the
    command like :func:`protocol.cli.run_command` does, quietly (rich exits 1)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError


def console_for(width: int | None, file: IO[str] | None = None) -> Console:
    """The console of the terminal tools: ``width`` columns if given, else the
    terminal's, else (a file, a pipe) lines as long as they need."""
    out = sys.stdout if file is None else file
    if width is None and not out.isatty():
        width = UNWRAPPED
    return _PipeConsole(file=file, width=width, highlight=False)


def tile_text(tile: int, chinese: bool = False) -> Text:
    """One tile, coloured by suit (honours bold), in notation or in Chinese."""
    t = Tile(tile)
    label = t.chinese if chinese else str(t)
    return Text(label, style=_SUIT_STYLE.get(t.suit or "", "bold"))


def tiles_text(tiles: Sequence[int], chinese: bool = False, marked: Sequence[bool] = ()) -> Text:
    """Tiles separated by spaces; ``marked`` ones (claimed discards) struck through."""
    out = Text()
    for i, tile in enumerate(tiles):
        if i:
            out.append(" ")
        piece = tile_text(tile, chinese)
        if i < len(marked) and marked[i]:
            piece.stylize("strike dim")
            piece.append("*", style="dim")
        out.append_text(piece)
    return out


def _who(seat: int, names: Sequence[str]) -> str:
    return f"{names[seat]} (seat {seat})"


def describe(event: Event, names: Sequence[str]) -> str:
    """One event as a sentence (hidden tiles are simply not mentioned)."""
    cls = type(event)
    if cls is HandStart:
        e: Any = event
        return (
            f"{hand_label(e.hand)}: dealer {_who(e.dealer, names)}, round wind {Tile(e.round_wind)}"
        )
    seat = event.seat
    who = _who(seat, names) if seat is not None else ""
    e = event
    if cls is Deal:
        shown = f": {' '.join(map(str, e.tiles))}" if e.tiles is not None else ""
        return f"{who} is dealt {e.count} tiles{shown}"
    if cls is Draw:
        if e.tile is None:
            return f"{who} draws {'a replacement tile' if e.replacement else 'a tile'}"
        return f"{who} draws {e.tile}" + (" (replacement)" if e.replacement else "")
    if cls is Discard:
        return f"{who} discards {e.tile}"
    if cls is Chow:
        return f"{who} chows {e.tile} from seat {e.from_seat} with {e.tiles[0]} {e.tiles[1]}"
    if cls is Pung:
        return f"{who} pungs {e.tile} from seat {e.from_seat}"
    if cls is ExposedKong:
        return f"{who} kongs {e.tile} from seat {e.from_seat}"
    if cls is AddedKong:
        return f"{who} adds {e.tile} to a pung (added kong)"
    if cls is ConcealedKong:
        return f"{who} declares a concealed kong" + (f" of {e.tile}" if e.tile is not None else "")
    if cls is Declined:
        chances = " and ".join(k for k, on in (("win", e.win), ("pung", e.pung)) if on)
        return f"{who} lets a {chances} on {e.tile} go by"
    if cls is Win:
        how = "by self-draw" if e.from_seat is None else f"on the discard of seat {e.from_seat}"
        return f"{who} wins on {e.tile} {how}: {' '.join(map(str, e.hand))}"
    if cls is HandEnd:
        return f"hand over ({e.result.outcome}); scores {' '.join(map(str, e.scores))}"
    if cls is MatchEnd:
        return f"match over; final scores {' '.join(map(str, e.scores))}"
    if event.type == "exhaustive_draw":
        return "the wall is exhausted: the hand is drawn"
    return "four identical winds in the first go-round: the hand is drawn"


def _options(legal: Sequence[Action]) -> str:
    """The legal actions, discards grouped: ``discard 1m 4p E | pung | pass``."""
    discards = [str(a.tile) for a in legal if a.kind is ActionKind.DISCARD]
    others = [str(a) for a in legal if a.kind is not ActionKind.DISCARD]
    parts = ([f"discard {' '.join(discards)}"] if discards else []) + others
    return " | ".join(parts)


def decision_lines(decision: Decision, names: Sequence[str]) -> list[str]:
    """A decision: who chose what among which options, how fast, and any fallback."""
    d = decision
    if d.ms is not None:
        took = f"{d.ms:.1f} ms"
    else:  # an answer without its time (a transcript written by hand)
        took = "no answer" if d.answer is None else "time not recorded"
    answer = "nothing usable" if d.answer is None else str(d.answer)
    head = f"{_who(d.seat, names)} chose {answer} ({took}, {d.outcome.value})"
    if d.fallback:
        head += f"; fallback applied: {d.applied}"
    lines = [head, f"    options: {_options(d.legal)}"]
    if d.reason:
        lines.append(f"    reason: {d.reason}")
    return lines


def river_claims(record: Record, step: int) -> list[list[bool]]:
    """For each seat's river at ``step``, which discards were claimed by another seat."""
    start = next((i for i in range(step - 1, -1, -1) if type(record.events[i]) is HandStart), 0)
    marks: list[list[bool]] = [[], [], [], []]
    for event in record.events[start:step]:
        if type(event) is Discard:
            marks[event.seat].append(False)
        elif type(event) in (Chow, Pung, ExposedKong) or (
            type(event) is Win and event.from_seat is not None  # type: ignore[attr-defined]
        ):
            source = event.from_seat  # type: ignore[attr-defined]
            if marks[source]:
                marks[source][-1] = True
    return marks


def table_at(record: Record, step: int, *, seat: int | None = None, chinese: bool = False) -> Table:
    """The table after ``step`` events: every seat's hand (or, with ``seat``, that seat's
    view), melds, river with claimed tiles marked, score; wall count in the title."""
    views = views_at(record, step)
    view = views[0 if seat is None else seat]
    public = view.public
    names = [s.name for s in record.header.seats]
    hand, within = in_hand(record, step)
    last = steps_in_hand(record, hand) - 1 if record.events else 0
    title = (
        f"{hand_label(hand)} · step {within}/{last} · round {Tile(public.round_wind)}"
        f" · wall {public.wall_left} ({max(0, public.wall_left - RESERVED)} to draw)"
    )
    if seat is not None:
        title += f" · seen by seat {seat}"
    table = Table(title=title, show_lines=True, expand=False)
    for column in ("seat", "score", "hand", "melds", "river"):
        table.add_column(column, overflow="fold")
    claims = river_claims(record, step)
    for s in range(4):
        table.add_row(
            _seat_cell(s, names, public.dealer, public.turn == s),
            str(public.scores[s]),
            _hand_cell(views[s] if seat in (None, s) else None, public.concealed[s], chinese),
            _melds_cell(
                views[s] if seat in (None, s) else view, s, public.concealed_kongs[s], chinese
            ),
            tiles_text(public.rivers[s], chinese, claims[s]),
        )
    return table


def _seat_cell(s: int, names: Sequence[str], dealer: int, turn: bool) -> Text:
    wind = _WIND_NAMES[(s - dealer) % 4]
    out = Text(f"{s} {wind} {names[s]}", style="bold" if turn else "")
    if s == dealer:
        out.append(" (dealer)", style="dim")
    return out


def _hand_cell(view: SeatView | None, count: int, chinese: bool) -> Text:
    if view is None:
        return Text(f"{count} concealed", style="dim")
    hand = view.hand
    drawn = view.own.drawn
    if drawn is not None and drawn in hand:  # show the tile just drawn apart
        hand.remove(Tile(drawn))
        out = tiles_text(hand, chinese)
        out.append("  + ")
        out.append_text(tile_text(drawn, chinese))
        return out
    return tiles_text(hand, chinese)


def _melds_cell(view: SeatView, s: int, hidden_kongs: int, chinese: bool) -> Text:
    out = Text()
    for meld in view.melds(s):
        if out:
            out.append("  ")
        out.append(f"{meld.kind.value} ")
        out.append_text(tiles_text(meld.tiles, chinese))
    shown = sum(1 for m in view.melds(s) if m.kind.value == "concealed_kong")
    for _ in range(hidden_kongs - shown):
        out.append("  concealed kong ■■■■", style="dim")
    return out


def win_table(hand: HandRecord, names: Sequence[str]) -> Group:
    """A hand's result: the winner, every tai item with its count, total and payments."""
    r = hand.result
    lines: list[Any] = []
    if r.winner is None:
        lines.append(Text(f"{hand_label(hand.hand)}: {r.outcome.replace('_', ' ')}, no payments"))
        return Group(*lines)
    how = "self-draw" if r.discarder is None else f"from {_who(r.discarder, names)}"
    lines.append(
        Text(f"{hand_label(hand.hand)}: {_who(r.winner, names)} wins on {r.win_tile} ({how})")
    )
    score = dict(r.score or {})
    items = Table("tai item", "", "tai", "count", title=f"{score.get('total_tai', 0)} tai")
    for item in score.get("items", []):
        items.add_row(str(item["id"]), str(item["name"]), str(item["tai"]), str(item["count"]))
    lines.append(items)
    pays = "  ".join(f"seat {s} {p:+d}" for s, p in enumerate(r.payments))
    lines.append(Text(f"payments: {pays}; scores after: {' '.join(map(str, hand.scores))}"))
    return Group(*lines)
