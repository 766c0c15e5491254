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
=================  ====  ===============================================================

>>> from sdk.learn.game import LearningGame
>>> from sdk.learn.encoding import encode
>>> game = LearningGame(seed=3)
>>> seat = game.next_seat()
>>> f = discard_features(encode(game.views[seat]))
>>> f.shape, int(f[:34].sum()) > 0, int(f[102:136].sum())
((230,), True, 1)
"""

from __future__ import annotations

import numpy as np

from protocol.analysis import efficiency_counts, improvements_counts, shanten_counts
from sdk.learn.action_space import CHOW_PAIRS
from sdk.learn.encoding import section

__all__ = ["FEATURES_VERSION", "N_FEATURES", "discard_features", "with_features"]

FEATURES_VERSION = 2
N_FEATURES = 34 * 4 + 1 + 46 * 2 + 1
_CLAIMS = 34 * 4 + 1

_HAND = section("hand")
_KONGS = section("own_concealed_kongs")
_MELDS = [section(f"meld_counts_{r}") for r in range(4)]
_RIVERS = [section(f"river_counts_{r}") for r in range(4)]
_RIVER_IDS = [section(f"river_{r}") for r in range(4)]
_CLAIMED = [section(f"river_claimed_{r}") for r in range(4)]
_CLAIM_TILE = section("claim_tile")
_PAIRS = (*CHOW_PAIRS, None)  # None: the pung


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
    options = efficiency_counts(counts, visible_outside(obs))
    best = options[0].shanten
    for i, option in enumerate(options):
        k = int(option.discard)
        out[k] = 1.0
        out[34 + k] = option.shanten - best
        out[68 + k] = option.total_unseen / 20
        out[102 + k] = i == 0
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
