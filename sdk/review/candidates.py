"""The candidates of a decision with their values, for the review.

Two sources:

* a reference bot with an ``explain(view, request)`` method (the contract): it returns
  ``(Action, Mapping[str, float])`` pairs, best first, e.g. ``{"value": 812.0, "win":
  0.31, "points": 2600.0, "deal_in": 0.04}``. ``"value"`` is the action's expected points;
  the decision's cost is ``value(best) - value(chosen)``. Every key is shown as a column:
  the known keys under the labels of :data:`LABELS`, any other under its own name.
* otherwise, measured here for every legal action: the shanten after it and the unseen
  tiles that would improve the hand then (``"shanten"``, ``"accept"``), best first; no
  cost in points.

>>> from protocol.actions import Action
>>> rows = [(Action.parse("discard 1m"), {"value": 800.0, "win": 0.3}),
...         (Action.parse("discard E"), {"value": 650.0, "win": 0.25, "edge": 2.0})]
>>> columns(rows)
['value', 'win', 'edge']
>>> value_cost(rows, Action.parse("discard E")), value_cost(rows, Action.parse("discard 1m"))
(150.0, 0.0)
>>> label("win"), label("edge"), cell("win", 0.3125), cell("value", 812.4)
('P(win)', 'edge', '31.2%', '812')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from protocol.actions import WIN, Action, ActionKind
from protocol.analysis import efficiency_counts, improvements_counts, shanten_counts
from sdk.bot import DecisionRequest
from sdk.view import GameView

__all__ = [
    "LABELS",
    "Candidate",
    "after_counts",
    "cell",
    "columns",
    "explain",
    "label",
    "measure",
    "value_cost",
]

Candidate = tuple[Action, dict[str, float]]
"""One candidate action and its values by key."""

LABELS = {
    "value": "value (exp. points)",
    "win": "P(win)",
    "points": "points if won",
    "deal_in": "P(deal in)",
    "shanten": "shanten after",
    "accept": "tiles that improve",
}
"""Column labels of the known keys (docs/RECORDS.md, "Reviewing a seat's decisions");
any other key is its own label."""

_PERCENT = frozenset({"win", "deal_in"})
_ORDER = tuple(LABELS)


def label(key: str) -> str:
    """The column label of ``key``."""
    return LABELS.get(key, key)


def cell(key: str, value: float) -> str:
    """A value as shown: probabilities in percent, points whole, others to 3 digits."""
    if key in _PERCENT:
        return f"{100 * value:.1f}%"
    if key in ("value", "points", "shanten", "accept"):
        return f"{value:.0f}"
    return f"{value:.3g}"


def columns(rows: Sequence[Candidate]) -> list[str]:
    """Every key of ``rows``: the known ones in :data:`LABELS` order, then the others
    in the order they first appear."""
    seen: list[str] = []
    for _, values in rows:
        seen += [k for k in values if k not in seen]
    known = [k for k in _ORDER if k in seen]
    return known + [k for k in seen if k not in LABELS]


def value_cost(rows: Sequence[Candidate], chosen: Action) -> float | None:
    """``value(best) - value(chosen)``, or ``None`` when the rows have no value for
    the chosen action."""
    values = {a: v["value"] for a, v in rows if "value" in v}
    if chosen not in values:
        return None
    return max(values.values()) - values[chosen]


def explain(bot: Any, view: GameView, request: DecisionRequest) -> list[Candidate] | None:
    """The bot's candidates by its ``explain`` method, or ``None`` without one.
    Answers out of contract (not pairs, not numbers, an action not legal) raise
    :class:`ValueError` naming what is wrong; the bot's own errors propagate."""
    method = getattr(bot, "explain", None)
    if not callable(method):
        return None
    legal = set(request.legal_actions)
    rows: list[Candidate] = []
    for pair in method(view, request):
        action, values = pair
        if action not in legal:
            raise ValueError(f"explain gave {action}, not a legal action")
        if not isinstance(values, Mapping):
            raise ValueError(f"explain gave {type(values).__name__} values for {action}")
        rows.append((action, {str(k): float(v) for k, v in values.items()}))
    return rows


def measure(
    counts: Sequence[int], legal: Sequence[Action], claimed: int | None, visible: Sequence[int]
) -> list[Candidate]:
    """Every legal action with the shanten it leaves and the unseen improving tiles then
    (for a hand of 3n+2 after it, those of its best discard), best first."""
    rows: list[Candidate] = []
    for action in legal:
        if action is WIN:
            rows.append((action, {"shanten": -1.0, "accept": 0.0}))
            continue
        rest = after_counts(counts, action, claimed)
        rows.append(
            (action, {"shanten": float(shanten_counts(rest)), "accept": _accept(rest, visible)})
        )
    rows.sort(key=lambda r: (r[1]["shanten"], -r[1]["accept"], r[0].kind is ActionKind.PASS))
    return rows


def _taken(action: Action) -> list[int]:
    """The own concealed tiles an action takes out of the hand."""
    kind, tile = action.kind, action.tile
    if kind is ActionKind.DISCARD or kind is ActionKind.ADDED_KONG:
        return [tile]  # type: ignore[list-item]
    if kind is ActionKind.CONCEALED_KONG:
        return [tile] * 4  # type: ignore[list-item]
    if kind is ActionKind.CHOW:
        return list(action.tiles)  # type: ignore[arg-type]
    return []


def after_counts(counts: Sequence[int], action: Action, claimed: int | None) -> list[int]:
    """The concealed counts after ``action`` (a pung or kong on ``claimed`` takes two or
    three copies of it).

    >>> after_counts([2] + [0] * 33, Action.parse("discard 1m"), None)[0]
    1
    """
    out = list(counts)
    taken = _taken(action)
    if action.kind is ActionKind.PUNG and claimed is not None:
        taken = [claimed, claimed]
    elif action.kind is ActionKind.KONG and claimed is not None:
        taken = [claimed] * 3
    for t in taken:
        out[t] -= 1
    return out


def _accept(counts: Sequence[int], visible: Sequence[int]) -> float:
    if sum(counts) % 3 == 2:
        best = efficiency_counts(counts, visible)
        return float(sum(best[0].unseen)) if best else 0.0
    return float(sum(n for _, n in improvements_counts(counts, visible)))
