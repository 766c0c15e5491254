"""Features a small network cannot easily learn, computed from the observation itself.

A network on the raw observation must rediscover shanten arithmetic from tile counts,
which a small one does badly (a clone of ``bots.defensive`` on the observation alone
agreed with it on 62.7% of decisions). These features give it what ``bots.greedy``
computes: for each kind the seat could discard, the shanten it would leave and the
unseen tiles that would then improve the hand (:func:`protocol.analysis.efficiency_counts`).
They are computed from the observation vector, not the view, so the same function
serves datasets made from records, environments and a bot at a table.

On a discard that others may claim, the same question for each claim: the shanten and
acceptance the seat would have after the chow or pung and its best discard, against
passing (a claim that does not bring the hand closer is seldom worth its cost).

Since version 3 they also give, per discard, the estimates ``bots.defensive`` prices
discards with (:mod:`sdk.estimates`): greedy's choice with its tie-breaks, what the wait
left is worth, the chance the hand still wins, the deal-in risk against the opponents'
chances of waiting, and the price defensive puts on the discard from those two. A network cloned from defensive without them agreed with
it on 87% of decisions and lost to greedy; what it must learn is then how to weigh
them, which reinforcement learning can improve on.

Version :data:`FEATURES_VERSION`, :data:`N_FEATURES` numbers appended to the observation:

=================  ====  ===============================================================
``can_discard``    34    1 for each kind held, on an own turn (3n+2 concealed tiles)
``shanten_gap``    34    shanten after discarding the kind, minus the best discard's
``acceptance``     34    unseen improving tiles after discarding the kind, / 20
``best``           34    1 for the discard :func:`~protocol.analysis.efficiency_counts` ranks first
``shanten``        1     shanten of the concealed tiles now, / 8
``claim_gain``     46    per claim (the 45 chows of ``CHOW_PAIRS``, then pung): shanten now
                         minus shanten after it and its best discard (-1..1); 0 if not possible
``claim_accept``   46    per claim: unseen improving tiles after it and its best discard, / 20
``pass_accept``    1     on a claim decision: unseen improving tiles if the seat passes, / 20
``greedy``         34    1 for the discard ``bots.greedy`` makes (then tile class, then kind)
``defensive``      34    1 for the first of defensive's offence order (a wait valued by what
                         it is worth, :func:`~sdk.estimates.wait_value`, ``next_wait``)
``win_chance``     34    :func:`~sdk.estimates.win_chance` of the hand left by the discard
``risk``           34    sum over opponents at least :data:`~sdk.estimates.THREAT_FLOOR`
                         likely waiting of that chance x :func:`~sdk.estimates.tile_danger`, x 10
``value``          34    :func:`~sdk.estimates.discard_value` of the two above less the best
                         discard's, in hundreds of points (0 for the best, -10 at least)
``priced``         34    1 for the discard of highest value (defensive's order breaking ties)
``threat``         3     each opponent's :func:`~sdk.estimates.waiting_chance` (next seat first)
=================  ====  ===============================================================

The opponents' "passed" kinds (discarded since their last discard, so not their waits)
are read from the rivers' lengths and the dealer: exact unless a claim skipped turns.

>>> from sdk.learn.game import LearningGame
>>> from sdk.learn.encoding import encode
>>> game = LearningGame(seed=3)
>>> seat = game.next_seat()
>>> f = discard_features(encode(game.views[seat]))
>>> f.shape, int(f[:34].sum()) > 0, int(f[102:136].sum()), int(f[230:264].sum())
((437,), True, 1, 1)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from protocol.analysis import (
    DiscardOption,
    efficiency_counts,
    improvements_counts,
    shanten_counts,
)
from protocol.tiles import Tile
from sdk.estimates import (
    THREAT_FLOOR,
    discard_value,
    next_wait,
    tile_classes,
    tile_danger,
    wait_value,
    waiting_chance,
    win_chance,
)
from sdk.learn.action_space import CHOW_PAIRS
from sdk.learn.encoding import section

__all__ = ["FEATURES_VERSION", "N_FEATURES", "discard_features", "with_features"]

FEATURES_VERSION = 3
N_FEATURES = 34 * 4 + 1 + 46 * 2 + 1 + 34 * 6 + 3
_CLAIMS = 34 * 4 + 1
_GREEDY = _CLAIMS + 46 * 2 + 1
_DEFENSIVE, _WIN, _RISK, _VALUE = _GREEDY + 34, _GREEDY + 68, _GREEDY + 102, _GREEDY + 136
_PRICED, _THREAT = _GREEDY + 170, _GREEDY + 204
_VALUE_FLOOR = 10.0

_HAND = section("hand")
_KONGS = section("own_concealed_kongs")
_MELDS = [section(f"meld_counts_{r}") for r in range(4)]
_RIVERS = [section(f"river_counts_{r}") for r in range(4)]
_RIVER_IDS = [section(f"river_{r}") for r in range(4)]
_CLAIMED = [section(f"river_claimed_{r}") for r in range(4)]
_CLAIM_TILE = section("claim_tile")
_BANNED = section("banned")
_MELD_SLOTS = [section(f"melds_{r}") for r in range(4)]
_SEATS = [section(f"seat_{r}") for r in range(4)]
_SEAT_WIND = section("seat_wind")
_ROUND_WIND = section("round_wind")
_DRAWABLE = section("table").start
_PAIRS = (*CHOW_PAIRS, None)  # None: the pung
_Row = tuple[int, int, int, int]  # shanten, -acceptance, tile class, kind: greedy's order


def visible_outside(obs: np.ndarray) -> list[int]:
    """Tiles of each kind the seat sees outside its concealed hand: every shown meld,
    every river (a claimed discard once, in its meld), its own concealed kongs."""
    seen = obs[_KONGS] * 4
    for r in range(4):
        seen = seen + obs[_MELDS[r]] + obs[_RIVERS[r]]
        ids = obs[_RIVER_IDS[r]][obs[_CLAIMED[r]] > 0].astype(np.int64) - 1
        if len(ids):
            seen = seen - np.bincount(ids, minlength=34)
    return [int(v) for v in seen]


def discard_features(obs: np.ndarray) -> np.ndarray:
    """The :data:`N_FEATURES` features of one observation (zeros but ``shanten`` when
    the seat is not about to discard)."""
    out = np.zeros(N_FEATURES, np.float32)
    counts = [int(c) for c in obs[_HAND]]
    held = sum(counts)
    if held:
        out[136] = shanten_counts(counts) / 8
    if held % 3 == 1 and obs[_CLAIM_TILE].any():
        _claim_features(obs, counts, out)
    if held % 3 != 2:
        return out
    outside = visible_outside(obs)
    options = efficiency_counts(counts, outside)
    best = options[0].shanten
    for i, option in enumerate(options):
        k = int(option.discard)
        out[k] = 1.0
        out[34 + k] = option.shanten - best
        out[68 + k] = option.total_unseen / 20
        out[102 + k] = i == 0
    seen = [o + c for o, c in zip(outside, counts, strict=True)]
    _estimates(obs, counts, seen, options, out)
    return out


def _estimates(
    obs: np.ndarray,
    counts: list[int],
    seen: list[int],
    options: list[DiscardOption],
    out: np.ndarray,
) -> None:
    """The ``greedy`` to ``threat`` sections: defensive's numbers for each discard."""
    banned = obs[_BANNED]
    allowed = [o for o in options if not banned[int(o.discard)]] or options
    me = int(obs[_SEAT_WIND].argmax())
    classes = tile_classes(Tile.E + me, Tile.E + int(obs[_ROUND_WIND].argmax()))
    rows: list[_Row] = sorted(
        (o.shanten, -o.total_unseen, classes[o.discard], int(o.discard)) for o in allowed
    )
    out[_GREEDY + rows[0][3]] = 1.0
    worth = _offence(counts, seen, rows, classes)
    most: dict[int, int] = {}
    for shanten, accept, _, _ in worth:
        most[shanten] = max(most.get(shanten, 0), -accept)
    out[_DEFENSIVE + worth[0][3]] = 1.0
    drawable = int(obs[_DRAWABLE])
    for shanten, accept, _, k in worth:
        out[_WIN + k] = win_chance(shanten, -accept, drawable, most[shanten])
    for r, (threat, passed, river, melds) in enumerate(_opponents(obs), start=1):
        out[_THREAT + r - 1] = threat
        if threat < THREAT_FLOOR:
            continue
        for *_, k in rows:
            danger = tile_danger(
                k, seen, own_discard=river[k] > 0, in_melds=melds[k] > 0, passed=k in passed
            )
            out[_RISK + k] += 10 * threat * danger
    value = {k: discard_value(out[_WIN + k], out[_RISK + k] / 10) for *_, k in rows}
    top = max(value.values())
    for k, v in value.items():
        out[_VALUE + k] = max((v - top) / 100, -_VALUE_FLOOR)
    out[_PRICED + next(k for *_, k in worth if value[k] == top)] = 1.0


def _offence(
    counts: list[int], seen: list[int], rows: list[_Row], classes: Sequence[int]
) -> list[_Row]:
    """Greedy's ``rows`` with the waits of the best shanten valued as defensive values
    them (one tile away: the wait each draw leads to; waiting: the wait's worth)."""
    best = rows[0][0]
    if best > 1:
        return rows
    valued = []
    for shanten, accept, value, k in rows:
        if shanten == best and accept:
            counts[k] -= 1
            worth = wait_value(counts, seen, classes) if best == 0 else next_wait(counts, seen)
            counts[k] += 1
            accept = -worth
        valued.append((shanten, accept, value, k))
    valued.sort()
    return valued


def _opponents(obs: np.ndarray) -> list[tuple[float, set[int], np.ndarray, np.ndarray]]:
    """For the next seat, the one opposite and the one before: its chance of waiting,
    the kinds it let go since its last discard, its river and shown meld counts."""
    rivers = [obs[_RIVER_IDS[r]] for r in range(4)]
    lengths = [int(np.count_nonzero(river)) for river in rivers]
    dealer = next((r for r in range(4) if obs[_SEATS[r]][3]), 0)
    order = [(r - dealer) % 4 for r in range(4)]
    out = []
    for r in (1, 2, 3):
        melds = int(np.count_nonzero(obs[_MELD_SLOTS[r]][::4])) + int(obs[_SEATS[r]][1])
        threat = waiting_chance(melds, lengths[r])
        last = (lengths[r] - 1) * 4 + order[r]
        passed = {
            int(rivers[j][i]) - 1
            for j in range(4)
            if j != r
            for i in range(lengths[j])
            if i * 4 + order[j] > last
        }
        out.append((threat, passed, obs[_RIVERS[r]], obs[_MELDS[r]]))
    return out


def _claim_features(obs: np.ndarray, counts: list[int], out: np.ndarray) -> None:
    """What each possible chow or pung of the open discard leaves, against passing."""
    tile = int(obs[_CLAIM_TILE].argmax())
    outside = visible_outside(obs)
    now = shanten_counts(counts)
    out[-1] = sum(n for _, n in improvements_counts(counts, outside)) / 20
    for i, pair in enumerate(_PAIRS):
        own = (tile, tile) if pair is None else pair
        if pair is not None and tile not in _chow_third(pair):
            continue
        rest = list(counts)
        for k in own:
            rest[k] -= 1
        if min(rest) < 0:
            continue
        seen = list(outside)
        for k in (tile, *own):
            seen[k] += 1
        best = efficiency_counts(rest, seen)[0]
        out[_CLAIMS + i] = now - best.shanten
        out[_CLAIMS + 46 + i] = best.total_unseen / 20


def _chow_third(pair: tuple[int, int]) -> tuple[int, ...]:
    """The kinds that complete a chow with the own tiles ``pair``."""
    a, b = pair
    if b - a == 2:
        return (a + 1,)
    return tuple(k for k in (a - 1, b + 1) if k // 9 == a // 9 and 0 <= k < 27)


def with_features(obs: np.ndarray) -> np.ndarray:
    """Observation rows (the first :data:`~sdk.learn.encoding.OBS_SIZE` columns are
    read) with their features appended: the input of a network trained with them."""
    from sdk.learn.encoding import OBS_SIZE

    rows = np.atleast_2d(obs)[:, :OBS_SIZE]
    feats = np.stack([discard_features(row) for row in rows])
    out = np.concatenate([rows, feats], axis=1)
    return out if obs.ndim == 2 else out[0]
