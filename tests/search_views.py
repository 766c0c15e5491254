"""Decision points from seeded games, for the search tests (importable from tests/).

:func:`decision_points` plays seeded hands with mixed fast policies (random and lite, so
that claims, kongs, passed wins and all phases occur) and yields the real referee state
at every decision, with the seat that decides. Several seats decide at once in the claim
window: each is yielded. :func:`~sdk.search.state.true_world` is re-exported for them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from protocol.hand_state import HandState
from sdk.search.policies import lite_policy, random_policy
from sdk.search.state import true_world

__all__ = ["decision_points", "true_world"]


def decision_points(hands: int, first_seed: int = 0) -> Iterator[tuple[HandState, int]]:
    """Every (state, deciding seat) of ``hands`` seeded hands, in order of play."""
    for seed in range(first_seed, first_seed + hands):
        rng = random.Random(seed)
        policies = [random_policy if (seed + s) % 3 == 0 else lite_policy for s in range(4)]
        hand = HandState.new(seed=seed, dealer=seed % 4)
        while not hand.is_over:
            for seat, legal in list(hand.pending().items()):
                yield hand, seat
                hand.apply(seat, policies[seat](hand, seat, legal, rng))


def own_turns(n: int, first_seed: int = 800) -> list[tuple[HandState, int]]:
    """``n`` own-turn decision points with several discards, late enough for threats,
    each a fork of its hand (the bot tests' positions)."""
    from protocol.actions import WIN
    from sdk.search import fork

    out = []
    for hand, seat in decision_points(4, first_seed=first_seed):
        legal = hand.legal_actions(seat)
        if len(legal) > 5 and WIN not in legal and hand.public.wall_left < 60:
            out.append((fork(hand), seat))
            if len(out) == n:
                break
    return out


def request_for(hand: HandState, seat: int, seconds: float = 60.0):  # type: ignore[no-untyped-def]
    """The decision request of ``seat`` at ``hand``, due in ``seconds``."""
    import time

    from sdk.bot import DecisionRequest

    return DecisionRequest(
        hand.legal_actions(seat), time.monotonic() + seconds, drawn_tile=hand.drawn_tile(seat)
    )
