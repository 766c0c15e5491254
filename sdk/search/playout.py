"""Playing a simulated hand to its end: :func:`playout`.

A *policy* picks one action for one seat: ``policy(state, seat, legal, rng) -> Action``,
where ``legal`` is the seat's legal actions now (never empty). A fair policy reads only
what the seat may know: ``state.owns[seat]`` and ``state.public``. :func:`playout` asks
the seats the referee lists as pending, applies their answers with
:meth:`~protocol.hand_state.HandState.apply` (so every rule holds, and an illegal answer
raises :class:`~protocol.hand_state.IllegalActionError`) and returns how the hand ended.

>>> import random
>>> from protocol.hand_state import HandState
>>> out = playout(HandState.new(seed=4, dealer=0), [random_policy] * 4, random.Random(0))
>>> out.result.outcome in ("win", "exhaustive_draw", "four_winds"), sum(out.points)
(True, 0)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from protocol.actions import WIN, Action
from protocol.events import HandResult
from protocol.hand_state import HandState

__all__ = ["Playout", "Policy", "playout", "random_policy"]

Policy = Callable[[HandState, int, tuple[Action, ...], random.Random], Action]
"""``policy(state, seat, legal, rng)``: one of ``legal`` for ``seat``."""


@dataclass(frozen=True, slots=True)
class Playout:
    """How a simulated hand ended: the referee's result and the points per seat."""

    result: HandResult
    steps: int
    """Decisions taken during the playout."""

    @property
    def points(self) -> tuple[int, int, int, int]:
        """Score change of each seat this hand (sum 0; all 0 on a draw, R15)."""
        return self.result.payments


def random_policy(
    state: HandState, seat: int, legal: tuple[Action, ...], rng: random.Random
) -> Action:
    """Uniform over ``legal``, but always a win when there is one (the random sample
    bot's rule); :func:`playout` runs it inline when every seat plays it."""
    first = legal[0]
    if first is WIN:
        return WIN
    return legal[int(rng.random() * len(legal))]


def playout(state: HandState, policies: Sequence[Policy], rng: random.Random) -> Playout:
    """Play ``state`` to the end of the hand with ``policies[seat]`` for each seat and
    return the result. Changes ``state``: play on a :func:`~sdk.search.state.fork`."""
    if all(p is random_policy for p in policies):
        steps = _random_playout(state, rng)
    else:
        steps = _playout(state, policies, rng)
    result = state.public.result
    assert result is not None, "a hand with nobody to decide is over"
    return Playout(result, steps)


def _playout(state: HandState, policies: Sequence[Policy], rng: random.Random) -> int:
    steps = 0
    pending = state._pending  # the referee's own dict: read, never changed here
    apply = state.apply
    while pending:
        if len(pending) == 1:  # the usual case: one seat to act
            [(seat, legal)] = pending.items()
            apply(seat, policies[seat](state, seat, legal, rng))
            steps += 1
        else:
            for seat, legal in list(pending.items()):
                apply(seat, policies[seat](state, seat, legal, rng))
                steps += 1
        pending = state._pending
    return steps


def _random_playout(state: HandState, rng: random.Random) -> int:
    """:func:`_playout` with :func:`random_policy` for every seat, inlined (the same
    choices from the same ``rng``, without a call per decision). Each choice is taken
    from the seat's pending tuple itself, so it is applied with
    :meth:`~protocol.hand_state.HandState.apply_legal`, which does not check it again."""
    steps = 0
    pending = state._pending
    apply, uniform = state.apply_legal, rng.random
    while pending:
        if len(pending) == 1:
            [(seat, legal)] = pending.items()
            first = legal[0]
            apply(seat, first if first is WIN else legal[int(uniform() * len(legal))], legal)
            steps += 1
        else:
            for seat, legal in list(pending.items()):
                first = legal[0]
                apply(seat, first if first is WIN else legal[int(uniform() * len(legal))], legal)
                steps += 1
        pending = state._pending
    return steps
