"""A review as text (``rich``) or as one self-contained HTML page (no scripts, no
network)."""

from __future__ import annotations

import html
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from protocol.tiles import Tile
from sdk.review.reviewer import DecisionReview, Review, unseen_text

__all__ = ["print_review", "review_html"]


def _tiles(tiles: Sequence[Tile]) -> str:
    return " ".join(map(str, tiles)) or "-"


def _summary(review: Review) -> str:
    n, bot, ref = review.agreement()
    seat = review.record.header.seats[review.seat]
    return (
        f"seat {review.seat} ({seat.name}), {n} decisions: {review.bot} would have answered the "
        f"same {bot} times, {review.reference} {ref} times"
    )


def _row(d: DecisionReview) -> list[str]:
    return [
        str(d.hand),
        str(d.step),
        f"{d.decision.applied}"
        + ("" if d.decision.outcome == "ok" else f" ({d.decision.outcome})"),
        "" if d.decision.ms is None else f"{d.decision.ms:.1f}",
        str(d.bot_answer) + ("" if d.bot_agrees else " ≠"),
        str(d.reference_answer) + ("" if d.reference_agrees else " ≠"),
        f"{d.shanten_before} → {d.shanten_after}",
        f"{_tiles(d.waits_before)} → {_tiles(d.waits_after)}",
        str(sum(d.unseen)),
        d.note,
    ]


_COLUMNS = (
    "hand", "step", "played", "ms", "bot", "reference", "shanten", "waits", "unseen", "note",
)  # fmt: skip


def print_review(review: Review, console: Console, *, unseen: bool = False) -> None:
    """Every decision in a table, then the costliest ones."""
    console.print(_summary(review))
    table = Table(*_COLUMNS, title=f"bot = {review.bot}, reference = {review.reference}")
    for d in review.decisions:
        table.add_row(*_row(d))
        if unseen:
            table.add_row("", "", f"unseen: {unseen_text(d.unseen)}", *[""] * 7)
    console.print(table)
    worst = review.costliest()
    if worst:
        console.print("decisions that cost the most:")
        for d in worst:
            cost = "" if d.cost is None else f"{d.cost:>6} "
            console.print(f"  {cost}hand {d.hand} step {d.step}: {d.note}", markup=False)
    else:
        console.print("no decision of this seat dealt in, let a win go by or fell back")


def review_html(review: Review) -> str:
    """The review as one HTML page (inline CSS only: it works offline)."""
    esc = html.escape
    head = "".join(f"<th>{esc(c)}</th>" for c in _COLUMNS)
    rows = []
    for d in review.decisions:
        cells = _row(d)
        cls = ' class="cost"' if d.cost else (' class="differs"' if not d.bot_agrees else "")
        tds = "".join(f"<td>{esc(c)}</td>" for c in cells)
        title = esc(f"unseen: {unseen_text(d.unseen)}")
        rows.append(f'<tr{cls} title="{title}">{tds}</tr>')
    worst = "".join(
        f"<li>{'' if d.cost is None else esc(str(d.cost)) + ' points: '}hand {d.hand} step "
        f"{d.step}: {esc(d.note)}</li>"
        for d in review.costliest()
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>Review of seat {review.seat}</title><style>"
        "body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}"
        "tr.cost{background:#fdd}tr.differs{background:#ffd}</style></head><body>"
        f"<h1>Review of seat {review.seat}</h1><p>{esc(_summary(review))}</p>"
        f"<h2>Decisions that cost the most</h2><ul>{worst or '<li>none</li>'}</ul>"
        f"<h2>Every decision</h2><table><tr>{head}</tr>{''.join(rows)}</table>"
        "</body></html>\n"
    )
