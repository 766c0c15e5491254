"""Scoring a win the way the tournament judge does: split, tai items, payments.

:func:`score_win` takes a :class:`WinSituation` (everything the judge needs) and returns
a :class:`ScoreResult`: the canonical split (R11, see :mod:`protocol.split`), the items
of the tai table that hold (R13, stacked per R14), the total tai and each seat's net
score change (R15). Ruling ids refer to ``docs/RULES.md``.

Per-set items (三元牌, 暗槓, 明槓、加槓) appear **once**, carrying the summed tai, with
``count`` saying how many sets they counted. Every other item has ``count == 1``.

>>> from protocol.tiles import parse_tiles
>>> hand = tuple(parse_tiles("123m 456m 789m 234p 567s 99s"))
>>> result = score_win(WinSituation(hand, (), Tile.S9, winner=1, discarder=None,
...                                 dealer=0, round_wind=Tile.E))
>>> [(i.name, i.tai) for i in result.items], result.total_tai
([('門清自摸', 3), ('獨聽', 1), ('一條龍', 2)], 6)
>>> result.payments
(-4500, 12500, -4000, -4000)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from protocol.analysis import waits_counts
from protocol.errors import MahjongError, MeldError, TileCountError
from protocol.melds import Meld, MeldKind
from protocol.split import Split, SplitSet, canonical_split
from protocol.tiles import KIND_COUNT, Tile, format_tiles

__all__ = [
    "BASE_POINTS",
    "POINTS_PER_TAI",
    "TAI_TABLE",
    "FifthTileError",
    "HandSizeError",
    "InvalidHandError",
    "InvalidMeldError",
    "InvalidSituationError",
    "ItemSpec",
    "NotWinningError",
    "ScoreItem",
    "ScoreResult",
    "ScoringError",
    "Split",
    "SplitSet",
    "WinSituation",
    "compute_payments",
    "score_win",
]

BASE_POINTS = 1000
"""底: what every payer pays before tai (R15)."""
POINTS_PER_TAI = 500
"""Points per tai (R15)."""

_WINDS = (Tile.E, Tile.S, Tile.W, Tile.N)
# Enum member look-ups cost ~100 ns each in Python 3.11; the hot path uses these.
_CHOW = MeldKind.CHOW
_PUNG = MeldKind.PUNG
_CONCEALED_KONG = MeldKind.CONCEALED_KONG
_ADDED_KONG = MeldKind.ADDED_KONG
_EXPOSED_KONG = MeldKind.EXPOSED_KONG


# --------------------------------------------------------------------------- errors


class ScoringError(MahjongError):
    """Base class of every error :func:`score_win` raises for bad input."""


class InvalidHandError(ScoringError):
    """The tiles cannot be a player's hand (for example the winning tile is missing)."""


class HandSizeError(InvalidHandError, TileCountError):
    """Wrong number of tiles for the declared melds (17 tiles in five sets and a pair)."""


class FifthTileError(InvalidHandError, TileCountError):
    """More than four copies of a kind between the concealed tiles and the melds."""


class InvalidMeldError(InvalidHandError, MeldError):
    """A declared meld that cannot exist (not a Meld, claimed from an impossible seat…)."""


class NotWinningError(ScoringError):
    """A well-formed hand that is not five sets and a pair."""


class InvalidSituationError(ScoringError):
    """Seats, winds or situation flags that contradict each other or the rules."""


# ------------------------------------------------------------------------ the table


@dataclass(frozen=True, slots=True)
class ItemSpec:
    """One row of the tai table: ``tai`` is per set for per-set items, and
    ``concealed_tai`` the doubled value with the 門清 item (三色同順, 一條龍)."""

    id: str
    name: str
    tai: int
    per_set: bool = False
    concealed_tai: int | None = None


TAI_TABLE: tuple[ItemSpec, ...] = (
    ItemSpec("dealer", "莊家", 1),
    ItemSpec("concealed_hand", "門清", 1),
    ItemSpec("self_draw", "自摸", 1),
    ItemSpec("concealed_self_draw", "門清自摸", 3),
    ItemSpec("last_tile_draw", "海底撈月", 1),
    ItemSpec("last_discard_win", "河底撈魚", 1),
    ItemSpec("kong_replacement_win", "槓上開花", 1),
    ItemSpec("dragon_pung", "三元牌", 1, per_set=True),
    ItemSpec("seat_wind_pung", "門風刻", 1),
    ItemSpec("round_wind_pung", "圈風刻", 1),
    ItemSpec("all_simples", "斷么九", 1),
    ItemSpec("pure_double_chow", "一盃口", 1),
    ItemSpec("twice_pure_double_chow", "二盃口", 2),
    ItemSpec("three_concealed_pungs", "三暗刻", 2),
    ItemSpec("all_claimed", "全求", 4),
    ItemSpec("all_chows", "平胡", 2),
    ItemSpec("single_wait", "獨聽", 1),
    ItemSpec("mixed_outside_hand", "混帶么", 2),
    ItemSpec("mixed_triple_chow", "三色同順", 2, concealed_tai=4),
    ItemSpec("pure_straight", "一條龍", 2, concealed_tai=4),
    ItemSpec("triple_pung", "三色同刻", 2),
    ItemSpec("concealed_kong", "暗槓", 2, per_set=True),
    ItemSpec("exposed_kong", "明槓、加槓", 1, per_set=True),
    ItemSpec("little_three_dragons", "小三元", 4),
    ItemSpec("half_flush", "混一色", 4),
    ItemSpec("all_pungs", "碰碰胡", 4),
    ItemSpec("pure_outside_hand", "純帶么", 4),
    ItemSpec("all_terminals_and_honors", "混老頭", 4),
    ItemSpec("all_terminals", "清老頭", 4),
    ItemSpec("four_kongs", "四槓子", 6),
    ItemSpec("four_concealed_pungs", "四暗刻", 6),
    ItemSpec("big_three_dragons", "大三元", 8),
    ItemSpec("little_four_winds", "小四喜", 8),
    ItemSpec("full_flush", "清一色", 8),
    ItemSpec("all_honors", "字一色", 8),
    ItemSpec("five_concealed_pungs", "五暗刻", 8),
    ItemSpec("big_four_winds", "大四喜", 16),
    ItemSpec("heavenly_win", "天胡", 16),
    ItemSpec("earthly_win", "地胡", 16),
    ItemSpec("human_win", "人胡", 16),
)
"""The tai table of the rules (台數表) in its reading order; results list items in it."""

_SPEC = {spec.id: spec for spec in TAI_TABLE}
_ORDER = {spec.id: i for i, spec in enumerate(TAI_TABLE)}


# ------------------------------------------------------------------- input / output


@dataclass(frozen=True, slots=True)
class WinSituation:
    """Everything the judge needs to score one win.

    ``concealed`` includes the winning tile (3n+2 tiles); ``melds`` are the declared
    melds including concealed kongs. ``discarder`` is the seat that dealt in, ``None``
    for a self-draw. The flags: ``last_tile`` self-draw on the last tile (R2),
    ``last_discard`` win on the last discard (R2), ``kong_replacement`` self-draw on a
    kong replacement tile, ``first_go_round`` R10 holds for the winner at the win.
    """

    concealed: tuple[Tile, ...]
    melds: tuple[Meld, ...]
    win_tile: Tile
    winner: int
    discarder: int | None
    dealer: int
    round_wind: Tile
    last_tile: bool = False
    last_discard: bool = False
    kong_replacement: bool = False
    first_go_round: bool = False

    @property
    def seat_wind(self) -> Tile:
        """The winner's seat wind: E for the dealer, then S, W, N in seat order.

        >>> WinSituation((), (), Tile.E, winner=3, discarder=None, dealer=0,
        ...              round_wind=Tile.E).seat_wind
        <Tile.N: 30>
        """
        return _WINDS[(self.winner - self.dealer) % 4]

    @property
    def is_self_draw(self) -> bool:
        """Whether the winning tile was drawn by the winner (no discarder)."""
        return self.discarder is None


@dataclass(frozen=True, slots=True)
class ScoreItem:
    """One item of the tai table that holds; ``count`` is the number of sets a per-set
    item counted (1 for the other items), ``tai`` the item's total."""

    id: str
    name: str
    tai: int
    count: int = 1

    def to_json(self) -> dict[str, Any]:
        """``{"id": ..., "name": ..., "tai": ..., "count": ...}``."""
        return {"id": self.id, "name": self.name, "tai": self.tai, "count": self.count}


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """The judge's verdict on a win: split, items, total tai, payments per seat."""

    split: Split
    items: tuple[ScoreItem, ...]
    total_tai: int
    payments: tuple[int, int, int, int]

    def item_ids(self) -> frozenset[str]:
        """The ids of the items that hold, for membership tests."""
        return frozenset(i.id for i in self.items)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict with the split, items, total tai and payments."""
        return {
            "split": self.split.to_json(),
            "items": [i.to_json() for i in self.items],
            "total_tai": self.total_tai,
            "payments": list(self.payments),
        }


_ITEM_CACHE: dict[tuple[str, int, int], ScoreItem] = {}


def _item(item_id: str, count: int = 1, tai: int | None = None) -> ScoreItem:
    """The (shared, immutable) ScoreItem for an id, a set count and an explicit tai."""
    key = (item_id, count, -1 if tai is None else tai)
    item = _ITEM_CACHE.get(key)
    if item is None:
        spec = _SPEC[item_id]
        value = spec.tai * count if tai is None else tai
        item = _ITEM_CACHE[key] = ScoreItem(item_id, spec.name, value, count)
    return item


# ----------------------------------------------------------------------- validation


def _tile_text(value: object) -> str:
    """``value`` for an error message: a tile kind in notation (``5m``, not the enum's
    repr ``<Tile.M5: 4>``), anything else as its repr.

    >>> _tile_text(Tile.M5), _tile_text(4), _tile_text(34), _tile_text("x")
    ('5m', '5m', '34', "'x'")
    """
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < KIND_COUNT:
        return str(Tile(value))
    return repr(value)


def _tiles_text(values: object) -> str:
    """A sequence of tile kinds for an error message, each as :func:`_tile_text` says."""
    if isinstance(values, (list, tuple)):
        return "[" + ", ".join(_tile_text(v) for v in values) + "]"
    return repr(values)


def _check_seat(name: str, seat: object) -> None:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 3:
        raise InvalidSituationError(f"{name} must be a seat 0..3, got {seat!r}")


def _check_situation(s: WinSituation) -> None:
    """Seats, winds and flags (R2, R9, R10)."""
    _check_seat("winner", s.winner)
    _check_seat("dealer", s.dealer)
    self_draw = s.discarder is None
    if not self_draw:
        _check_seat("discarder", s.discarder)
        if s.discarder == s.winner:
            raise InvalidSituationError(f"seat {s.winner} cannot win on its own discard")
    if s.round_wind not in _WINDS:
        raise InvalidSituationError(
            f"round wind must be E, S, W or N, got {_tile_text(s.round_wind)}"
        )
    if s.last_tile and not self_draw:
        raise InvalidSituationError("last_tile (海底撈月) needs a self-draw win (R2)")
    if s.last_discard and self_draw:
        raise InvalidSituationError("last_discard (河底撈魚) needs a win on a discard (R2)")
    if s.kong_replacement:
        if not self_draw:
            raise InvalidSituationError("kong_replacement (槓上開花) needs a self-draw win")
        if not any(m.kind in _REPLACEMENT_KONGS for m in s.melds):
            raise InvalidSituationError(
                "kong_replacement needs a concealed or added kong: no self-draw on the"
                " replacement of an exposed kong (R9)"
            )
    if s.first_go_round:
        if any(m.kind is not _CONCEALED_KONG for m in s.melds):
            raise InvalidSituationError(
                "first_go_round with a chow, pung or exposed/added kong is impossible (R10)"
            )
        if not self_draw and s.winner == s.dealer:
            raise InvalidSituationError(
                "the dealer cannot win on a discard in the first go-round: the dealer"
                " discards first (R10)"
            )


_REPLACEMENT_KONGS = (_CONCEALED_KONG, _ADDED_KONG)


def _check_meld(meld: object, winner: int) -> None:
    """A declared meld must be a Meld claimed from a seat that may give it (R8)."""
    if not isinstance(meld, Meld):
        raise InvalidMeldError(f"{meld!r} is not a Meld")
    source = meld.source
    if meld.kind is _CONCEALED_KONG:
        if source is not None or meld.called is not None:
            raise InvalidMeldError(f"{meld} is concealed: it has no claimed tile or source")
        return
    if source is None:
        return
    if source == winner or not (isinstance(source, int) and 0 <= source <= 3):
        raise InvalidMeldError(f"{meld} cannot be claimed from seat {source!r}")
    previous = (winner + 3) % 4
    if meld.kind is _CHOW and source != previous:
        raise InvalidMeldError(f"{meld}: a chow is only claimed from the previous seat")
    if meld.kind is _EXPOSED_KONG and source == previous:
        raise InvalidMeldError(f"{meld}: the discarder's next seat may not kong it (R8)")


_MELD_TILES: dict[tuple[MeldKind, int], tuple[int, ...]] = {}


def _meld_tiles(meld: Meld) -> tuple[int, ...]:
    """The tile kinds of a meld as plain ints (cached: Meld.tiles builds Tile values)."""
    key = (meld.kind, meld.tile)
    tiles = _MELD_TILES.get(key)
    if tiles is None:
        tiles = _MELD_TILES[key] = tuple(int(t) for t in meld.tiles)
    return tiles


def _check_tiles(s: WinSituation) -> tuple[list[int], list[int], list[int]]:
    """Sizes and copies; returns the concealed counts, the counts of everything held
    (concealed plus melds) and the meld tiles."""
    if not isinstance(s.melds, (tuple, list)) or len(s.melds) > 5:
        raise InvalidHandError("at most five declared melds")
    for meld in s.melds:
        _check_meld(meld, s.winner)
    expected = 17 - 3 * len(s.melds)
    if len(s.concealed) != expected:
        raise HandSizeError(
            f"{len(s.melds)} declared meld(s) need {expected} concealed tiles including"
            f" the winning tile, got {len(s.concealed)}"
        )
    counts = [0] * KIND_COUNT
    try:
        for t in s.concealed:
            counts[t] += 1
    except (TypeError, IndexError):
        raise InvalidHandError(f"not tile kinds 0..33: {_tiles_text(s.concealed)}") from None
    if min(s.concealed) < 0:
        raise InvalidHandError(f"not tile kinds 0..33: {_tiles_text(s.concealed)}")
    win = s.win_tile
    if not isinstance(win, int) or not 0 <= win < KIND_COUNT or not counts[win]:
        raise InvalidHandError(
            f"the winning tile {_tile_text(win)} is not among the concealed tiles"
        )
    held = counts.copy()
    meld_tiles = [t for meld in s.melds for t in _meld_tiles(meld)]
    for t in meld_tiles:
        held[t] += 1
    if max(held) > 4:
        k = next(k for k in range(KIND_COUNT) if held[k] > 4)
        raise FifthTileError(
            f"{held[k]} copies of {Tile(k)} ({counts[k]} concealed,"
            f" {held[k] - counts[k]} in melds): there are only four"
        )
    return counts, held, meld_tiles


# -------------------------------------------------------------------------- scoring


def score_win(situation: WinSituation) -> ScoreResult:
    """Score one win: the canonical split, the items, the total and the payments.

    Raises a :class:`ScoringError` subclass naming the problem for input that is not a
    legal win: :class:`HandSizeError`, :class:`FifthTileError`,
    :class:`InvalidMeldError`, :class:`InvalidHandError`, :class:`NotWinningError`,
    :class:`InvalidSituationError`.

    >>> from protocol.tiles import parse_tiles
    >>> score_win(WinSituation(tuple(parse_tiles("123m 456p 789s 111s 2346s E")), (),
    ...           Tile.S6, winner=0, discarder=1, dealer=0, round_wind=Tile.E))
    Traceback (most recent call last):
      ...
    protocol.scoring.NotWinningError: 123m456p1112346789s E is not five sets and a pair
    """
    s = situation
    _check_situation(s)
    counts, held, meld_tiles = _check_tiles(s)
    self_draw = s.discarder is None
    split = canonical_split(counts, s.melds, s.win_tile, not self_draw)
    if split is None:
        raise NotWinningError(f"{_describe(s)} is not five sets and a pair")
    items = _judge(s, split, counts, held, meld_tiles)
    total = 0
    for item in items:
        total += item.tai
    payments = compute_payments(total, s.winner, s.discarder, s.dealer)
    return ScoreResult(split, items, total, payments)


def _describe(s: WinSituation) -> str:
    text = format_tiles(s.concealed)
    if s.melds:
        text += " + " + " ".join(str(m) for m in s.melds)
    return text


def compute_payments(
    total_tai: int, winner: int, discarder: int | None, dealer: int
) -> tuple[int, int, int, int]:
    """Net score change of each seat for a win worth ``total_tai`` (R15).

    Each payer pays 1000 + 500 × total; a self-draw is paid by the three others, a
    discard win by the discarder alone. On a non-dealer's self-draw the dealer pays one
    extra tai. (The rules add it only when 莊家 is not among the items; 莊家 holds
    exactly when the dealer wins or deals in, so on a non-dealer's self-draw it never
    does.) The worked example of the rules' 計分 section:

    >>> compute_payments(3, winner=1, discarder=None, dealer=0)
    (-3000, 8000, -2500, -2500)
    >>> compute_payments(2, winner=0, discarder=3, dealer=0)
    (2000, 0, 0, -2000)
    """
    if discarder == winner or total_tai < 0:
        raise InvalidSituationError(
            f"no payment for winner {winner}, discarder {discarder}, {total_tai} tai"
        )
    each = BASE_POINTS + POINTS_PER_TAI * total_tai
    pay = [0, 0, 0, 0]
    if discarder is None:
        for seat in range(4):
            if seat != winner:
                pay[seat] = -each
        if winner != dealer:
            pay[dealer] -= POINTS_PER_TAI
    else:
        pay[discarder] = -each
    pay[winner] = -sum(pay)
    return pay[0], pay[1], pay[2], pay[3]


def _judge(
    s: WinSituation, split: Split, counts: list[int], held: list[int], meld_tiles: list[int]
) -> tuple[ScoreItem, ...]:
    """All items that hold for a split win, stacked per R14, in table order."""
    self_draw = s.discarder is None
    ids: list[str] = []
    extra: list[ScoreItem] = []
    if s.winner == s.dealer or s.discarder == s.dealer:
        ids.append("dealer")
    # 門清 (R13): no claimed melds and no honor pung (R11.2); concealed kongs allowed.
    concealed_hand = all(m.kind is _CONCEALED_KONG for m in s.melds) and (3 not in counts[27:])
    menqing_item = concealed_hand and not self_draw
    if concealed_hand:
        ids.append("concealed_self_draw" if self_draw else "concealed_hand")
    elif self_draw:
        ids.append("self_draw")
    if self_draw:
        if s.last_tile:
            ids.append("last_tile_draw")
        if s.kong_replacement:
            ids.append("kong_replacement_win")
    elif s.last_discard:
        ids.append("last_discard_win")
    if s.first_go_round:  # R10
        if not self_draw:
            ids.append("human_win")
        else:
            ids.append("heavenly_win" if s.winner == s.dealer else "earthly_win")
    _judge_sets(s, split, menqing_item, ids, extra)
    _judge_tiles(held, ids)
    if not self_draw and len(s.melds) == 5 and not any(m.is_concealed for m in s.melds):
        ids.append("all_claimed")  # 全求 (R13)
    single = _is_single_wait(counts, s.win_tile, meld_tiles)
    if single:
        ids.append("single_wait")
    if not self_draw and not single and _all_chows_no_honor(split, held):
        ids.append("all_chows")  # 平胡 (R13)
    items = [_item(i) for i in ids]
    items.extend(extra)
    items.sort(key=lambda item: _ORDER[item.id])
    return tuple(items)


def _is_single_wait(counts: list[int], win_tile: int, meld_tiles: list[int]) -> bool:
    """獨聽: the 16-tile hand before the winning tile has exactly one winning kind,
    leaving out kinds already held four times counting own melds (R12)."""
    before = counts.copy()
    before[win_tile] -= 1
    return len(waits_counts(before, meld_tiles)) == 1


def _all_chows_no_honor(split: Split, held: list[int]) -> bool:
    return all(st.kind is _CHOW for st in split.sets) and not any(held[27:])


def _judge_sets(
    s: WinSituation, split: Split, menqing_item: bool, ids: list[str], extra: list[ScoreItem]
) -> None:
    """Items judged on the five sets: honors, pungs, chows, kongs."""
    sets = split.sets
    pair = split.pair
    chows: list[int] = []
    pungs: list[int] = []  # pungs and kongs
    dragons = winds = concealed_pungs = concealed_kongs = other_kongs = 0
    seat_wind, round_wind = s.seat_wind, s.round_wind
    seat_pung = round_pung = False
    for st in sets:
        t = st.tile
        kind = st.kind
        if kind is _CHOW:
            chows.append(t)
            continue
        pungs.append(t)
        if st.concealed:
            concealed_pungs += 1  # suited pungs not completed by the discard, 暗槓 (R13)
        if kind is _CONCEALED_KONG:
            concealed_kongs += 1
        elif kind is not _PUNG:
            other_kongs += 1
        if t >= 31:
            dragons += 1
        elif t >= 27:
            winds += 1
            seat_pung = seat_pung or t == seat_wind
            round_pung = round_pung or t == round_wind
    if dragons:
        extra.append(_item("dragon_pung", dragons))
    if seat_pung:
        ids.append("seat_wind_pung")
    if round_pung:
        ids.append("round_wind_pung")
    if dragons == 3:
        ids.append("big_three_dragons")
    elif dragons == 2 and pair >= 31:
        ids.append("little_three_dragons")
    if winds == 4:
        ids.append("big_four_winds")
    elif winds == 3 and 27 <= pair <= 30:
        ids.append("little_four_winds")
    if concealed_pungs >= 3:
        ids.append(_CONCEALED_PUNG_IDS[min(concealed_pungs, 5)])  # highest only (R14)
    if concealed_kongs:
        extra.append(_item("concealed_kong", concealed_kongs))
    if other_kongs:
        extra.append(_item("exposed_kong", other_kongs))
    if concealed_kongs + other_kongs >= 4:
        ids.append("four_kongs")
    if not chows:
        ids.append("all_pungs")
    else:
        _judge_chows(chows, menqing_item, ids, extra)
    if len(pungs) >= 3 and _same_rank_in_three_suits(pungs):
        ids.append("triple_pung")
    _judge_outside(sets, pair, ids)


_CONCEALED_PUNG_IDS = {
    3: "three_concealed_pungs",
    4: "four_concealed_pungs",
    5: "five_concealed_pungs",
}


def _same_rank_in_three_suits(starts: list[int]) -> bool:
    """Some rank occurs in all three suits among suited set start tiles."""
    present = set(starts)
    return any(r in present and r + 9 in present and r + 18 in present for r in range(9))


def _judge_chows(
    chows: list[int], menqing_item: bool, ids: list[str], extra: list[ScoreItem]
) -> None:
    """一盃口/二盃口 (only with the 門清 item), 三色同順 and 一條龍 (4 with 門清)."""
    if menqing_item and len(chows) >= 2:
        # The canonical split never has three identical chows (three copies of the
        # lowest tile make a pung), so a chow repeats at most twice.
        doubled = len(chows) - len(set(chows))
        if doubled >= 2:
            ids.append("twice_pure_double_chow")
        elif doubled == 1:
            ids.append("pure_double_chow")
    if len(chows) >= 3:
        if _same_rank_in_three_suits(chows):
            extra.append(_item("mixed_triple_chow", tai=4 if menqing_item else 2))
        present = set(chows)
        if any(b in present and b + 3 in present and b + 6 in present for b in (0, 9, 18)):
            extra.append(_item("pure_straight", tai=4 if menqing_item else 2))


def _has_terminal(st: SplitSet) -> bool:
    t = st.tile
    if st.kind is _CHOW:
        return t % 9 in (0, 6)
    return t < 27 and t % 9 in (0, 8)


def _judge_outside(sets: tuple[SplitSet, ...], pair: int, ids: list[str]) -> None:
    """混帶么 / 純帶么: every set and the pair hold a terminal (or an honor)."""
    pair_honor = pair >= 27
    if not pair_honor and pair % 9 not in (0, 8):
        return
    honors = pair_honor
    suited = not pair_honor
    for st in sets:
        if st.tile >= 27:
            honors = True
        elif _has_terminal(st):
            suited = True
        else:
            return
    if honors and suited:
        ids.append("mixed_outside_hand")
    elif not honors:
        ids.append("pure_outside_hand")


def _judge_tiles(held: list[int], ids: list[str]) -> None:
    """Items judged on the tiles alone: 斷么九, the flushes, 混老頭 and 清老頭."""
    honors = any(held[27:])
    suits = sum(1 for base in (0, 9, 18) if any(held[base : base + 9]))
    terminals = sum(held[b] + held[b + 8] for b in (0, 9, 18))
    middles = sum(held) - terminals - sum(held[27:])
    if not honors and not terminals:
        ids.append("all_simples")
    if suits == 1:
        ids.append("half_flush" if honors else "full_flush")
    elif suits == 0:
        ids.append("all_honors")
    if not middles:
        ids.append("all_terminals_and_honors")  # also with 清老頭 and 字一色 (R14)
        if not honors:
            ids.append("all_terminals")
