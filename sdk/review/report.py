"""A review as text (``rich``) or as one self-contained HTML page (no scripts, no
network).

Both show every decision in one table, then the costliest ones explained: the table as
the seat saw it (its hand, every seat's melds, river and concealed count, the wall), the
candidates with the reference's values, the outcome, and where to open it: the command
``python -m sdk.replay RECORD --hand H --step S`` in the terminal, a link into the
viewer at ``#hand=H&step=S`` in the page (:mod:`sdk.replay.numbering`).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from protocol.tiles import Tile
from sdk.replay.numbering import hand_number, viewer_anchor
from sdk.review.board import Board
from sdk.review.candidates import cell, columns, label
from sdk.review.reviewer import DecisionReview, Review, unseen_text

__all__ = ["decision_detail", "print_review", "review_html"]


def _tiles(tiles: Sequence[Tile]) -> str:
    return " ".join(map(str, tiles)) or "-"


def _summary(review: Review) -> str:
    n, bot, ref = review.agreement()
    seat = review.record.header.seats[review.seat]
    values = (
        f"values by {review.reference}'s explain"
        if review.explained
        else f"{review.reference} gives no values: candidates by shanten and improving tiles"
    )
    return (
        f"seat {review.seat} ({seat.name}), {n} decisions: {review.bot} would have answered the "
        f"same {bot} times, {review.reference} {ref} times; {values}"
    )


def _played(d: DecisionReview) -> str:
    outcome = d.decision.outcome.value
    return f"{d.decision.applied}" + ("" if outcome == "ok" else f" ({outcome})")


def _lost(d: DecisionReview) -> str:
    return "" if d.value_cost is None else f"{d.value_cost:.0f}"


def _row(d: DecisionReview) -> list[str]:
    return [
        d.where,
        _played(d),
        "" if d.decision.ms is None else f"{d.decision.ms:.1f}",
        str(d.bot_answer) + ("" if d.bot_agrees else " ≠"),
        str(d.reference_answer) + ("" if d.reference_agrees else " ≠"),
        f"{d.shanten_before} → {d.shanten_after}",
        f"{_tiles(d.waits_before)} → {_tiles(d.waits_after)}",
        str(sum(d.unseen)),
        _lost(d),
        d.note,
    ]


_COLUMNS = (
    "where", "played", "ms", "bot", "reference", "shanten", "waits", "unseen",
    "value lost", "note",
)  # fmt: skip


def _board_rows(board: Board) -> list[list[str]]:
    """One row a seat: seat and wind, score, hand (own) or count, melds, river."""
    rows = []
    for s in board.seats:
        who = f"{s.seat} {s.wind}" + (" (dealer)" if s.seat == board.dealer else "")
        if s.seat == board.seat:
            hand = _tiles(board.hand) + (f" + {board.drawn}" if board.drawn is not None else "")
        else:
            hand = f"{s.concealed} concealed"
        melds = "  ".join(f"{kind} {_tiles(tiles)}" for kind, tiles in s.melds)
        melds += "  concealed kong ■■■■" * s.hidden_kongs
        river = " ".join(
            f"{t}*" if i in s.claimed else str(t) for i, t in enumerate(s.river)
        )  # fmt: skip
        rows.append([who, str(s.score), hand, melds.strip() or "-", river or "-"])
    return rows


_BOARD_COLUMNS = ("seat", "score", "hand", "melds", "river (* claimed)")


def _board_title(board: Board) -> str:
    claim = f" · claim on {board.last_discard}" if board.last_discard is not None else ""
    return f"seen by seat {board.seat} · round {board.round_wind} · wall {board.wall}{claim}"


def _candidate_rows(d: DecisionReview) -> tuple[list[str], list[list[str]]]:
    keys = columns(d.candidates)
    head = ["action", *map(label, keys), ""]
    rows = []
    for action, values in d.candidates:
        marks = []
        if action is d.decision.applied:
            marks.append("played")
        if action is d.bot_answer:
            marks.append("bot")
        if action is d.reference_answer:
            marks.append("reference")
        cells = [cell(k, values[k]) if k in values else "" for k in keys]
        rows.append([str(action), *cells, ", ".join(marks)])
    return head, rows


def _outcome(d: DecisionReview) -> str:
    parts = [f"played {_played(d)}"]
    if d.value_cost is not None:
        parts.append(f"{d.value_cost:.0f} expected points below the reference's best")
    elif d.explained:
        parts.append("not among the reference's valued candidates")
    elif d.shape_loss[0]:
        parts.append(f"leaves shanten {d.shape_loss[0]} more than the best candidate")
    elif d.shape_loss[1]:
        parts.append(f"{d.shape_loss[1]} improving tiles fewer than the best candidate")
    if d.note:
        parts.append(d.note)
    return "; ".join(parts)


def decision_detail(d: DecisionReview, source: str | None = None) -> Group:
    """One decision explained, for the terminal: where, outcome, board, candidates and
    the command that opens it in the replay."""
    parts: list[object] = [Text(f"{d.where}: {_outcome(d)}", style="bold")]
    if d.board is not None:
        board = Table(*_BOARD_COLUMNS, title=_board_title(d.board), title_justify="left")
        for row in _board_rows(d.board):
            board.add_row(*row)
        parts.append(board)
    if d.candidates:
        head, rows = _candidate_rows(d)
        table = Table(*head, title="candidates, best first", title_justify="left")
        for row in rows:
            table.add_row(*row)
        parts.append(table)
    if source is not None:
        hand, step = hand_number(d.hand), d.hand_step
        parts.append(Text(f"open: python -m sdk.replay {source} --hand {hand} --step {step}"))
    return Group(*parts)  # type: ignore[arg-type]


def print_review(
    review: Review,
    console: Console,
    *,
    unseen: bool = False,
    source: str | None = None,
    every: bool = False,
) -> None:
    """Every decision in a table, then the costliest ones explained (``every``: every
    decision explained). ``source`` is the record as given on the command line, for the
    replay commands."""
    console.print(_summary(review), markup=False)
    table = Table(*_COLUMNS, title=f"bot = {review.bot}, reference = {review.reference}")
    for d in review.decisions:
        table.add_row(*_row(d))
        if unseen:
            table.add_row("", f"unseen: {unseen_text(d.unseen)}", *[""] * 8)
    console.print(table)
    worst = review.costliest()
    if worst:
        console.print("decisions that cost the most:")
        for d in worst:
            console.print(f"  {_cost_text(d)}{d.where}: {d.note or _outcome(d)}", markup=False)
    else:
        console.print(
            "no decision of this seat lost value or shape, dealt in, let a win go by or fell back"
        )
    for d in review.decisions if every else worst:
        console.print()
        console.print(decision_detail(d, source))


def _cost_text(d: DecisionReview) -> str:
    if d.value_cost:
        return f"{d.value_cost:>6.0f} exp. pts "
    return "" if d.cost is None else f"{d.cost:>6} paid "


# --- HTML --------------------------------------------------------------------------------

_CSS = (
    "body{font-family:sans-serif;margin:1em;max-width:80em}table{border-collapse:collapse;"
    "margin:.3em 0}td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px;text-align:left}"
    "tr.cost{background:#fdd}tr.differs{background:#ffd}tr.played td{font-weight:bold}"
    "section{border-top:1px solid #999;margin-top:1em}caption{text-align:left;color:#555}"
    "a{color:#06c}"
)


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], caption: str = "") -> str:
    esc = html.escape
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    th = "".join(f"<th>{esc(c)}</th>" for c in head)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table>{cap}<tr>{th}</tr>{body}</table>"


def _section(d: DecisionReview, viewer: str | None) -> str:
    esc = html.escape
    link = ""
    if viewer is not None:
        href = esc(viewer + viewer_anchor(d.hand, d.hand_step), quote=True)
        link = f' · <a href="{href}">open in the viewer</a>'
    parts = [
        f'<section id="{_anchor(d)}"><h3>{esc(d.where)}{link}</h3>',
        f"<p>{esc(_outcome(d))}; {esc(review_answers(d))}</p>",
    ]
    if d.board is not None:
        parts.append(_table(_BOARD_COLUMNS, _board_rows(d.board), _board_title(d.board)))
    if d.candidates:
        head, rows = _candidate_rows(d)
        parts.append(_table(head, rows, "candidates, best first"))
    parts.append("</section>")
    return "".join(parts)


def review_answers(d: DecisionReview) -> str:
    """What the reviewed bot and the reference would have answered."""
    return f"the bot: {d.bot_answer}, the reference: {d.reference_answer}"


def _anchor(d: DecisionReview) -> str:
    return f"h{d.hand + 1}s{d.hand_step}"


def review_html(review: Review, viewer: str | None = None) -> str:
    """The review as one HTML page (inline CSS only: it works offline). ``viewer`` is
    the address of the record's viewer page; each decision then links into it at its
    step (``#hand=H&step=S``)."""
    esc = html.escape
    head = "".join(f"<th>{esc(c)}</th>" for c in _COLUMNS)
    rows = []
    for d in review.decisions:
        cells = [f'<a href="#{_anchor(d)}">{esc(d.where)}</a>'] + [esc(c) for c in _row(d)[1:]]
        costly = (d.value_cost or 0) > 0 or d.cost
        cls = ' class="cost"' if costly else (' class="differs"' if not d.bot_agrees else "")
        title = esc(f"unseen: {unseen_text(d.unseen)}")
        rows.append(
            f'<tr{cls} title="{title}">' + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"
        )
    worst = "".join(
        f'<li><a href="#{_anchor(d)}">{esc(d.where)}</a>: {esc(_outcome(d))}</li>'
        for d in review.costliest()
    )
    sections = "".join(_section(d, viewer) for d in review.decisions)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>Review of seat {review.seat}</title><style>{_CSS}</style></head><body>"
        f"<h1>Review of seat {review.seat}</h1><p>{esc(_summary(review))}</p>"
        f"<h2>Decisions that cost the most</h2><ul>{worst or '<li>none</li>'}</ul>"
        f"<h2>Every decision</h2><table><tr>{head}</tr>{''.join(rows)}</table>"
        f"<h2>Each decision explained</h2>{sections}"
        "</body></html>\n"
    )
