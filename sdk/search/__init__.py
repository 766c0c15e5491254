"""Simulation over the one rules model: sample the hidden tiles, play hands out.

The building blocks of a search bot (``bots/search.py`` is one; see
``docs/cookbook/search.md``):

* :func:`sample_world` (:mod:`sdk.search.world`): the hidden tiles, drawn uniformly
  among the deals consistent with a seat's view (or weighted by your function);
* :func:`state_from_world` and :func:`fork` (:mod:`sdk.search.state`): a referee
  :class:`~protocol.hand_state.HandState` that continues from the exact point of the
  view, and cheap copies of it (:func:`true_world`, the other way round: the real
  hidden state as a world, for tests and benchmarks that hold the referee's state);
* :func:`playout` (:mod:`sdk.search.playout`) with ready-made policies
  (:mod:`sdk.search.policies`): play to the end of the hand, get the points per seat;
* :func:`search` (:mod:`sdk.search.flat`): flat Monte Carlo over candidate actions.

Everything is pure Python on :mod:`protocol` (no I/O), deterministic given the ``rng``.

>>> import random
>>> from protocol.hand_state import HandState
>>> real = HandState.new(seed=1, dealer=0)          # stands for the game you are in
>>> view = real.view(0)                             # what seat 0 knows
>>> rng = random.Random(7)
>>> world = sample_world(view, rng)                 # one guess at the hidden tiles
>>> state = state_from_world(view, world)           # the referee, continuing from here
>>> action = state.legal_actions(0)[-1]
>>> _ = state.apply(0, action)
>>> out = playout(state, [lite_policy] * 4, rng)    # to the end of the hand
>>> len(out.points), sum(out.points)
(4, 0)
"""

from sdk.search.flat import CandidateStats, SearchStats, search
from sdk.search.playout import Playout, Policy, playout
from sdk.search.policies import (
    bot_policy,
    efficiency_policy,
    fit,
    guard_policy,
    lite_policy,
    random_policy,
)
from sdk.search.state import fork, state_from_world, true_world
from sdk.search.world import (
    InconsistentViewError,
    SamplingError,
    World,
    WorldSampler,
    WorldWeight,
    sample_world,
)

__all__ = [
    "CandidateStats",
    "InconsistentViewError",
    "Playout",
    "Policy",
    "SamplingError",
    "SearchStats",
    "World",
    "WorldSampler",
    "WorldWeight",
    "bot_policy",
    "efficiency_policy",
    "fit",
    "fork",
    "guard_policy",
    "lite_policy",
    "playout",
    "random_policy",
    "sample_world",
    "search",
    "state_from_world",
    "true_world",
]
