"""What a hand is worth: own draws enumerated, opponents as hazards.

:class:`Evaluator` values a concealed hand (3n+1 tiles, just after a discard) by dynamic
programming over the seat's own future draws. Per go-round, in order:

1. another seat wins first (not on our discard) with the fitted chance ``H`` (by wall
   and visible threat), costing us ``other_loss`` on average;
2. waiting, an opponent throws one of our winning kinds with the fitted rate per unseen
   copy (ron, paid by the discarder);
3. we draw: each *useful* kind (one that lowers shanten) with its hypergeometric chance
   ``u / (N - j)`` (``u`` its unseen copies left, ``N`` the unseen tiles, ``j`` the draws
   made), then the best discard among those keeping the new shanten (or the drawn tile
   back); every other kind is one "no change" branch. A winning draw pays the scorer's
   tai (:func:`protocol.scoring.score_win`) as a self-draw: 3 x (1000 + 500 x tai), +500
   from the dealer when we are not the dealer (R15).

So the value of a hand is a vector over ``k``, the own draws left, of three numbers:
``value`` (expected net points), ``win`` (chance of winning) and ``points`` (expected
points from winning, ``win`` x mean win). Hands are memoised by their counts; the
recursion stops at a win, so its depth is the shanten. Hands further than ``exact``
from waiting take the fitted leaf values of :class:`~sdk.expect.model.Model` instead.

>>> from protocol.tiles import Tile, parse_counts
>>> hand = parse_counts("123m 456m 789m 234p 567s 9s")
>>> unseen = [4] * 34
>>> for t, n in enumerate(hand):
...     unseen[t] -= n
>>> ev = Evaluator(Situation(seat=0, dealer=0, round_wind=Tile.E, melds=(),
...                          unseen=tuple(unseen), draws=4, drawable=16),
...                hazards=False, swaps=-1)
>>> v = ev.hand(hand)
>>> from math import comb  # one wait (9s, 3 copies) in four draws from 120 unseen tiles
>>> round(v.win, 6) == round(1 - comb(117, 4) / comb(120, 4), 6)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from time import perf_counter
from typing import NamedTuple

from protocol.errors import MahjongError
from protocol.melds import Meld
from protocol.necessary import discard_accepts, necessary
from protocol.scoring import BASE_POINTS, POINTS_PER_TAI, ScoringError, WinSituation, score_win
from protocol.shapes import encode
from protocol.tiles import KIND_COUNT, TILES, Tile, counts_to_tiles
from sdk.estimates import tile_classes
from sdk.expect.model import Model, load_model

__all__ = [
    "Evaluator",
    "HandValue",
    "ImpossibleHandError",
    "OutOfTime",
    "Situation",
]


class ImpossibleHandError(MahjongError, ValueError):
    """The counts given cannot be a seat's hand (a fifth copy, a wrong size, more
    unseen tiles than exist): the evaluator refuses rather than guess."""


class OutOfTime(Exception):
    """The evaluator's ``deadline`` passed or it valued ``max_nodes`` hands: the caller
    keeps its cheaper answer."""


class HandValue(NamedTuple):
    """One hand's worth at a number of own draws left."""

    value: float
    """Expected net points (wins minus the opponents' wins' cost)."""
    win: float
    """Chance of winning the hand."""
    points: float
    """Expected points of a win, given one (0 when it cannot win)."""


@dataclass(frozen=True)
class Situation:
    """What the value of a hand depends on besides its tiles.

    ``unseen`` counts the copies of each kind the seat cannot see (wall and other
    hands), ``draws`` the own draws left, ``drawable`` the wall's drawable tiles now,
    ``threat`` the summed chance that an opponent is waiting (for the hazard), ``melds``
    the seat's declared melds (concealed kongs included) for the scorer.
    """

    seat: int
    dealer: int
    round_wind: Tile
    melds: tuple[Meld, ...]
    unseen: tuple[int, ...]
    draws: int
    drawable: int
    threat: float = 0.0
    classes: tuple[int, ...] = field(default=())

    def __post_init__(self) -> None:
        if len(self.unseen) != KIND_COUNT or any(not 0 <= u <= 4 for u in self.unseen):
            raise ImpossibleHandError(f"unseen counts must be 34 values 0..4: {self.unseen}")
        if self.draws < 0:
            raise ImpossibleHandError(f"own draws left must be >= 0, not {self.draws}")
        if not self.classes:
            wind = TILES[Tile.E + (self.seat - self.dealer) % 4]
            object.__setattr__(self, "classes", tile_classes(wind, self.round_wind))


_Vec = list[float]
_Node = tuple[_Vec, _Vec, _Vec]  # value, win, points by own draws left


class Evaluator:
    """The own-draw value of hands in one :class:`Situation` (memoised per instance).

    ``exact`` is the largest shanten valued exactly (deeper hands take the model's leaf
    values); ``hazards=False`` leaves the opponents out (offence only: no hazard, no
    ron), as in the brute-force tests and the ablation. With a ``deadline``
    (``time.perf_counter()`` seconds) a valuation past it raises :class:`OutOfTime`;
    ``flat_tai`` values every win at 0 tai (the ablation "without tai"). ``max_nodes``
    bounds the hands valued (a budget that, unlike time, is the same on every machine).
    ``swaps`` is the largest shanten at which draws that only widen the hand (same
    shanten, more acceptance) are followed; -1 for none. ``base`` is the hand the
    unseen counts were taken with (a 3n+2 hand before its discard, say): tiles a hand
    holds beyond it were drawn, so no longer unseen (default: the first hand valued).
    ``shared`` is a memo that evaluators of the same situation, base and settings but
    another ``exact`` may share: hands valued exactly are the same at any depth.
    """

    def __init__(
        self,
        situation: Situation,
        model: Model | None = None,
        *,
        exact: int = 1,
        hazards: bool = True,
        ron: bool | None = None,
        deadline: float | None = None,
        flat_tai: bool = False,
        max_nodes: int | None = None,
        swaps: int = 0,
        base: Sequence[int] | None = None,
        shared: dict | None = None,
    ) -> None:
        self.s = situation
        self.model = model or load_model()
        self.exact = exact
        self.hazards = hazards
        self.ron = hazards if ron is None else ron
        self.deadline = deadline
        self.flat_tai = flat_tai
        self.max_nodes = max_nodes
        self.swaps = swaps
        self._memo: dict[tuple[tuple[int, ...], bool], _Node] = {}
        self._shared: dict = {} if shared is None else shared
        self._scores: dict[tuple[tuple[int, ...], int, bool], int] = {}
        self._h0: tuple[int, ...] | None = None if base is None else tuple(base)
        self._sets = 0
        self.nodes = 0
        """Hands valued so far (the cost measure of the benchmark)."""
        k = situation.draws
        self._n0 = max(sum(situation.unseen), 1)
        m = self.model
        bucket = min(int(situation.threat * 2), len(m.hazard) - 1)
        self._hazard = [
            m.hazard_at(bucket, situation.drawable - 4 * (k - kk)) if hazards else 0.0
            for kk in range(k + 1)
        ]
        self._loss = m.other_loss if hazards else 0.0

    # --- public -------------------------------------------------------------------------

    def hand(self, counts: Sequence[int], draws: int | None = None) -> HandValue:
        """The worth of the 3n+1 concealed hand ``counts`` with ``draws`` own draws left
        (default: the situation's), the opponents' go-round coming first."""
        node = self._node(self._check(counts, 1))
        return self._at(node, draws)

    def draw_first(self, counts: Sequence[int], draws: int | None = None) -> HandValue:
        """As :meth:`hand`, but our draw comes first (passing on the left seat's discard)."""
        h = self._check(counts, 1)
        k = self.s.draws if draws is None else draws
        if k <= 0:
            return HandValue(0.0, 0.0, 0.0)
        v, p, w = self._draw(h, self._node(h), k)
        return HandValue(v, p, w / p if p > 0 else 0.0)

    def shanten(self, counts: Sequence[int]) -> int:
        """Shanten of a 3n+1 hand (0 waiting)."""
        return necessary(encode(counts), sum(counts) // 3)[0] - 1

    # --- checks -------------------------------------------------------------------------

    def _check(self, counts: Sequence[int], rest: int) -> tuple[int, ...]:
        h = tuple(counts)
        if len(h) != KIND_COUNT or any(not 0 <= c <= 4 for c in h):
            raise ImpossibleHandError(f"a hand is 34 counts 0..4: {h}")
        size, melded = sum(h), len(self.s.melds)
        if size % 3 != rest or size // 3 + melded > 5:
            raise ImpossibleHandError(
                f"{size} concealed tiles and {melded} melds are not a 3n+{rest} hand"
            )
        for t in range(KIND_COUNT):
            if h[t] + self.s.unseen[t] > 4:
                raise ImpossibleHandError(
                    f"{TILES[t]}: {h[t]} held and {self.s.unseen[t]} unseen make more than 4"
                )
        if self._h0 is None:
            self._h0 = h
            self._sets = size // 3
        return h

    def _at(self, node: _Node, draws: int | None) -> HandValue:
        k = self.s.draws if draws is None else min(draws, self.s.draws)
        v, p, w = node[0][k], node[1][k], node[2][k]
        return HandValue(v, p, w / p if p > 0 else 0.0)

    # --- the recursion --------------------------------------------------------------------

    def _unseen(self, h: tuple[int, ...], t: int) -> int:
        """Copies of ``t`` still to come: unseen at the start, less those the hand has
        gained since (drawn and kept)."""
        h0 = self._h0
        gained = h[t] - h0[t] if h0 is not None else 0
        u = self.s.unseen[t] - (gained if gained > 0 else 0)
        return u if u > 0 else 0

    def _node(self, h: tuple[int, ...], swap: bool = True) -> _Node:
        """The vectors of hand ``h``; ``swap``: whether it may still widen at its
        shanten (one widening per shanten on any path). Each hand counts once against
        ``max_nodes`` whether valued here or found in the ``shared`` memo."""
        key = (h, swap)
        node = self._memo.get(key)
        if node is None:
            self.nodes += 1
            if self.max_nodes is not None and self.nodes > self.max_nodes:
                raise OutOfTime
            if self.deadline is not None and perf_counter() > self.deadline:
                raise OutOfTime
            found = self._shared.get(key)
            if found is not None and found[0] <= self.exact:
                node = found[1]
            else:
                shanten, node = self._value(h, swap)
                if shanten <= self.exact:
                    self._shared[key] = (shanten, node)
            self._memo[key] = node
        return node

    def _value(self, h: tuple[int, ...], swap: bool) -> tuple[int, _Node]:
        counts = list(h)
        dist, kinds = necessary(encode(counts), sum(counts) // 3)
        shanten = dist - 1
        k_max = self.s.draws
        if shanten > self.exact:
            return shanten, self._leaf(shanten)
        useful = [(t, u) for t in kinds if (u := self._unseen(h, t))]
        branches = self._branches(h, counts, shanten, kinds, useful, swap)
        ron_p, ron_w = self._ron(h, useful) if shanten == 0 else (0.0, 0.0)
        V: _Vec = [0.0] * (k_max + 1)
        P: _Vec = [0.0] * (k_max + 1)
        W: _Vec = [0.0] * (k_max + 1)
        hazard, loss = self._hazard, self._loss
        n0 = self._n0
        for k in range(k_max + 1):
            if k:
                dv, dp, dw = self._step(
                    branches, V[k - 1], P[k - 1], W[k - 1], k - 1, n0 - (k_max - k)
                )
            else:
                dv = dp = dw = 0.0
            live = 1.0 - hazard[k]
            P[k] = live * (ron_p + (1.0 - ron_p) * dp)
            W[k] = live * (ron_w + (1.0 - ron_p) * dw)
            V[k] = live * (ron_w + (1.0 - ron_p) * dv) - hazard[k] * loss
        return shanten, (V, P, W)

    def _step(
        self, branches: list, v0: float, p0: float, w0: float, k: int, n: int
    ) -> tuple[float, float, float]:
        """One own draw with ``k`` draws left after it from ``n`` unseen tiles, the
        hand's own values (``v0``...) being the "no change" branch."""
        if n <= 0:
            return v0, p0, w0
        rest = 1.0
        dv = dp = dw = 0.0
        for _t, u, win, children in branches:
            q = u / n
            rest -= q
            if win is not None:
                dv += q * win
                dp += q
                dw += q * win
                continue
            bv, bp, bw = v0, p0, w0
            for child in children:
                cv = child[0][k]
                if cv > bv:
                    bv, bp, bw = cv, child[1][k], child[2][k]
            dv += q * bv
            dp += q * bp
            dw += q * bw
        if rest > 0:
            dv += rest * v0
            dp += rest * p0
            dw += rest * w0
        return dv, dp, dw

    def _draw(self, h: tuple[int, ...], node: _Node, k: int) -> tuple[float, float, float]:
        """Our draw first, ``k`` own draws left including it."""
        counts = list(h)
        dist, kinds = necessary(encode(counts), sum(counts) // 3)
        if dist - 1 > self.exact:
            return node[0][k], node[1][k], node[2][k]
        useful = [(t, u) for t in kinds if (u := self._unseen(h, t))]
        branches = self._branches(h, counts, dist - 1, kinds, useful, True)
        n = self._n0 - (self.s.draws - k)
        return self._step(branches, node[0][k - 1], node[1][k - 1], node[2][k - 1], k - 1, n)

    def _branches(
        self,
        h: tuple[int, ...],
        counts: list[int],
        shanten: int,
        kinds: Sequence[int],
        useful: list[tuple[int, int]],
        swap: bool,
    ) -> list:
        """The draws that change the hand: ``(kind, copies, win points or None,
        children)``. Useful kinds lower shanten; at shanten <= ``swaps``, other kinds
        whose draw allows a discard that keeps shanten with strictly more acceptance
        (a wider wait, a better shape) are branches too, once per shanten on a path
        (``swap``): following every chain of widenings costs a hundred times more."""
        if shanten == 0:
            out = [(t, u, self._tsumo(h, t), None) for t, u in useful]
        else:
            out = [(t, u, None, self._children(counts, t)) for t, u in useful]
        if shanten > self.swaps or not swap:
            return out
        unseen = self.s.unseen
        accept = sum(unseen[t] for t in kinds)
        for t in _near(h):
            if t in kinds:
                continue
            u = self._unseen(h, t)
            if not u:
                continue
            counts[t] += 1
            rows = discard_accepts(counts, encode(counts), unseen, best_only=True)
            better = []
            for d, dist, acc in rows:
                if d != t and dist == shanten + 1 and acc > accept:
                    counts[d] -= 1
                    better.append(self._node(tuple(counts), False))
                    counts[d] += 1
            counts[t] -= 1
            if better:
                out.append((t, u, None, better))
        return out

    def _children(self, counts: list[int], t: int) -> list[_Node]:
        """The hands after drawing ``t`` and discarding a tile that keeps the lower
        shanten (never ``t`` itself: that is the "no change" branch)."""
        counts[t] += 1
        rows = discard_accepts(counts, encode(counts), self.s.unseen, best_only=True)
        out = []
        for d, _dist, _acc in rows:
            if d == t:
                continue
            counts[d] -= 1
            out.append(self._node(tuple(counts)))
            counts[d] += 1
        counts[t] -= 1
        return out

    def _leaf(self, shanten: int) -> _Node:
        m = self.model
        V, P, W = [], [], []
        for k in range(self.s.draws + 1):
            p, w, v = m.leaf(shanten, k)
            if not self.hazards:
                v = w
            V.append(v)
            P.append(p)
            W.append(w)
        return V, P, W

    # --- points -------------------------------------------------------------------------

    def _ron(self, h: tuple[int, ...], useful: list[tuple[int, int]]) -> tuple[float, float]:
        """Chance per go-round that an opponent throws one of the waits, and the
        expected points of that win (chance x points)."""
        if not self.ron:
            return 0.0, 0.0
        rate, classes = self.model.ron_rate, self.s.classes
        p = w = 0.0
        for t, u in useful:
            q = rate[classes[t]] * u
            p += q
            w += q * self._points(h, t, False)
        if p > 0.95:
            w *= 0.95 / p
            p = 0.95
        return p, w

    def _tsumo(self, h: tuple[int, ...], t: int) -> float:
        return self._points(h, t, True)

    def _points(self, h: tuple[int, ...], t: int, self_draw: bool) -> float:
        """What winning on ``t`` pays us (R15), tai from the scorer."""
        key = (h, t, self_draw)
        tai = self._scores.get(key)
        if tai is None:
            tai = self._scores[key] = self._tai(h, t, self_draw)
        s = self.s
        each = BASE_POINTS + POINTS_PER_TAI * tai
        if self_draw:
            return 3 * each + (POINTS_PER_TAI if s.seat != s.dealer else 0)
        if s.seat != s.dealer:
            return each + POINTS_PER_TAI / 3  # a third of discarders are the dealer (莊家)
        return each

    def _tai(self, h: tuple[int, ...], t: int, self_draw: bool) -> int:
        if self.flat_tai:
            return 0
        counts = list(h)
        counts[t] += 1
        s = self.s
        discarder = None
        if not self_draw:
            discarder = next(x for x in range(4) if x not in (s.seat, s.dealer))
        try:
            result = score_win(
                WinSituation(
                    tuple(counts_to_tiles(counts)),
                    s.melds,
                    TILES[t],
                    winner=s.seat,
                    discarder=discarder,
                    dealer=s.dealer,
                    round_wind=s.round_wind,
                )
            )
        except ScoringError:
            return 0
        return result.total_tai


def _near(h: Sequence[int]) -> list[int]:
    """Kinds that can change the shape of hand ``h``: held honors and suited kinds
    within two ranks of a held one."""
    out = set()
    for t in range(KIND_COUNT):
        if h[t]:
            if t >= Tile.E:
                out.add(t)
                continue
            base, r = t - t % 9, t % 9
            for x in range(max(0, r - 2), min(8, r + 2) + 1):
                out.add(base + x)
    return sorted(out)
