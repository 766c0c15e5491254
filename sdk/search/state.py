"""A referee state from a sampled world, and cheap forks of it.

:func:`state_from_world` builds a :class:`~protocol.hand_state.HandState` that continues
the hand from the exact point of the view: the same turn and phase, the pending claims
of every seat that has one (collected again, R5), the seat's passed-win / passed-pung /
kong flags (R9), the first go-round (R10), the wall count and the kong replacements
already taken from the back (R8). From there the referee plays on by its own rules, so a
simulation cannot break one.

:func:`fork` copies a state in a few microseconds (the wall tuple and the immutable
melds are shared) so a search can try several actions from one world.

:func:`true_world` is the other way round, for tests and benchmarks that hold the real
referee state (a bot never does): the world behind a seat's view as it really is.

>>> import random
>>> from protocol.hand_state import HandState
>>> from sdk.search.world import sample_world
>>> real = HandState.new(seed=5, dealer=0)
>>> view = real.view(0)
>>> sim = state_from_world(view, sample_world(view, random.Random(2)))
>>> dict(sim.pending()) == dict(real.pending()), sim.public.wall_left == real.public.wall_left
(True, True)
>>> other = fork(sim)
>>> _ = other.apply(0, other.legal_actions(0)[-1])
>>> sim.public.wall_left - other.public.wall_left  # the fork moved on, the original did not
1
"""

from __future__ import annotations

from protocol.hand_state import HandState, Scorer
from protocol.melds import MeldKind
from protocol.rules import claim_window, turn_actions
from protocol.scoring import score_win
from protocol.tiles import KIND_COUNT, TILE_COUNT
from protocol.view import CLAIMS, KONG_REPLACEMENT, OwnState, PublicState, SeatView
from protocol.wall import Wall
from sdk.search.world import InconsistentViewError, World
from sdk.view import GameView

__all__ = ["fork", "state_from_world", "true_world"]

_KONG_KINDS = (MeldKind.EXPOSED_KONG, MeldKind.ADDED_KONG)
_OTHERS = tuple(((s + 1) % 4, (s + 2) % 4, (s + 3) % 4) for s in range(4))


def state_from_world(
    view: SeatView | GameView, world: World, scorer: Scorer = score_win
) -> HandState:
    """The referee's state of the hand if ``world`` were the truth behind ``view``.

    Its ``events`` list starts empty (the past is summarised by the state). In the
    claim window, every seat with a claim in this world is asked again; if nobody has
    one, the next seat has already drawn, as the referee would have done.
    """
    sv = view.seat_view if isinstance(view, GameView) else view
    if world.seat != sv.seat:
        raise InconsistentViewError(f"the world was sampled for seat {world.seat}, not {sv.seat}")
    pub = sv.public.copy()
    hand = HandState.__new__(HandState)
    hand.scorer = scorer
    hand.public = pub
    hand.events = []
    hand.owns = [_own_from_world(s, world) for s in range(4)]
    hand.owns[sv.seat] = sv.own.copy()
    hand.wall = _wall(pub, world.wall)
    hand._claims, hand._decisions, hand._pending = {}, {}, {}
    phase, turn = pub.phase, pub.turn
    if phase == CLAIMS:
        owns = hand.owns
        claims = claim_window(pub, [owns[s] for s in _OTHERS[turn]])
        if claims:
            hand._claims, hand._pending = claims, dict(claims)
        else:
            hand._no_claim(turn)
    elif phase == KONG_REPLACEMENT:
        hand._replace(turn)
    else:
        hand._pending = {turn: turn_actions(hand.owns[turn], pub)}
    return hand


def _own_from_world(seat: int, world: World) -> OwnState:
    own = OwnState(seat, list(world.counts[seat]), list(world.kongs[seat]), world.drawn[seat])
    return own


def _wall(pub: PublicState, live: tuple[int, ...]) -> Wall:
    """A 136-tile wall whose untaken middle is ``live``: the tiles already taken (all the
    others, in kind order) fill the front and, one per kong replacement drawn, the back."""
    kongs = sum(pub.concealed_kongs) + sum(
        1 for melds in pub.melds for m in melds if m.kind in _KONG_KINDS
    )
    replaced = kongs - (pub.phase == KONG_REPLACEMENT)
    if len(live) != pub.wall_left:
        raise InconsistentViewError(
            f"the world's wall has {len(live)} tiles, the view {pub.wall_left}"
        )
    taken = [4] * KIND_COUNT
    for t in live:
        taken[t] -= 1
    out = [k for k in range(KIND_COUNT) for _ in range(taken[k])]
    front = TILE_COUNT - pub.wall_left - replaced
    if front < 0:
        raise InconsistentViewError(f"{replaced} kong replacements cannot fit the wall")
    wall = Wall.__new__(Wall)
    wall.tiles = (*out[:front], *live, *out[front:])
    wall.front, wall.back = front, front + len(live)
    return wall


def fork(hand: HandState) -> HandState:
    """An independent copy of ``hand`` to play on (events so far shared by value)."""
    new = HandState.__new__(HandState)
    wall, old_wall = Wall.__new__(Wall), hand.wall
    wall.tiles, wall.front, wall.back = old_wall.tiles, old_wall.front, old_wall.back
    new.wall = wall
    new.scorer = hand.scorer
    new.public = hand.public.copy()
    new.owns = [o.copy() for o in hand.owns]
    new.events = hand.events.copy()
    new._pending = hand._pending.copy()
    new._claims = hand._claims.copy()
    new._decisions = hand._decisions.copy()
    return new


def true_world(hand: HandState, seat: int) -> World:
    """The real hidden state behind ``seat``'s view of ``hand``, as a world (for tests
    and benchmarks: a cheat no bot has). ``state_from_world(hand.view(seat),
    true_world(hand, seat))`` plays on exactly like ``hand``, but for the other seats'
    private R9 flags, which a world leaves clear."""
    wall, turn = hand.wall, hand.public.turn
    return World(
        seat,
        tuple(tuple(o.counts) for o in hand.owns),
        tuple(tuple(o.concealed_kongs) for o in hand.owns),
        tuple(o.drawn if s in (seat, turn) else None for s, o in enumerate(hand.owns)),
        tuple(wall.tiles[wall.front : wall.back]),
    )
