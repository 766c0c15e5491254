"""Sampling the hidden tiles: one complete deal consistent with what a seat has seen.

A seat sees its own tiles, every river and shown meld, how many concealed tiles and
concealed kongs each other seat holds, and how many tiles are left in the wall. What it
does not see is the *world*: the other seats' concealed tiles, the kinds of their
concealed kongs and the order of the wall. :func:`sample_world` draws one world among
all those consistent with the view, uniformly (every arrangement of the unseen physical
tiles equally likely) or weighted by a user function. It reads only the view, so its
output cannot depend on the true hidden tiles (``tests/test_search_world.py`` checks it).

The only constraints the rules put on hidden tiles are the counts: under these rules a
seat may pass any win or claim (R9), so no past decision rules a deal out. The R9 flags
of the other seats (passed win, passed pung) come from events the seat does not see
(``Declined`` is private); a world leaves them clear.

>>> import random
>>> from protocol.hand_state import HandState
>>> hand = HandState.new(seed=7, dealer=0)
>>> world = sample_world(hand.view(0), random.Random(1))
>>> [sum(world.counts[s]) for s in range(4)], len(world.wall)
([17, 16, 16, 16], 71)
>>> world.counts[0] == tuple(hand.owns[0].counts)  # the seat's own tiles are its own
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from protocol.errors import MahjongError
from protocol.tiles import KIND_COUNT, Tile
from protocol.view import DEALING, OVER, TURN_DRAWN, SeatView
from sdk.view import GameView

__all__ = ["InconsistentViewError", "SamplingError", "World", "WorldWeight", "sample_world"]

_KINDS = range(KIND_COUNT)


class SamplingError(MahjongError, ValueError):
    """No world could be sampled (see :class:`InconsistentViewError` for the usual case)."""


class InconsistentViewError(SamplingError):
    """The view cannot be completed into a deal: its counts contradict the 136 tiles
    (more than four of a kind seen, hidden tiles that do not add up to the unseen ones,
    concealed kongs without a kind left for them) or there is no hand in progress."""


@dataclass(frozen=True, slots=True)
class World:
    """One complete hidden state, as seen by ``seat``.

    ``counts[s]`` are seat ``s``'s concealed tiles (34 counts; the seat's own are its
    real ones), ``kongs[s]`` the kinds of its concealed kongs, ``drawn[s]`` the tile it
    holds as just drawn (the seat to act after a draw; ``None`` otherwise) and ``wall``
    the tiles left in the wall, front (next normal draw) first, back (next kong
    replacement, R8) last.
    """

    seat: int
    counts: tuple[tuple[int, ...], ...]
    kongs: tuple[tuple[int, ...], ...]
    drawn: tuple[int | None, ...]
    wall: tuple[int, ...]


WorldWeight = Callable[[World], float]
"""A user weight: the probability (0..1) of keeping a uniformly drawn world. The
sampler draws until one is kept, so worlds come out in proportion to their weight."""
WorldSampler = Callable[[SeatView, random.Random], World]
"""A whole sampler of your own in place of :func:`sample_world` (``search(...,
sampler=...)``): given the seat's view and the rng, a world consistent with the view."""


def sample_world(
    view: SeatView | GameView,
    rng: random.Random,
    weight: WorldWeight | None = None,
    *,
    max_tries: int = 1000,
    ready: Sequence[float] | None = None,
) -> World:
    """A world consistent with ``view``: uniform among consistent deals, or in
    proportion to ``weight(world)`` (a number in 0..1, by rejection: at most
    ``max_tries`` uniform draws, then :class:`SamplingError`).

    ``ready[s]`` is an opponent model: the chance that seat ``s`` (another seat, not
    the one that just drew) is waiting. With that chance its concealed tiles are built
    as a random waiting hand from the unseen tiles (random sets, a pair and a two-tile
    partial set; or sets and a single tile), the rest dealt uniformly. Uniform worlds
    almost never give a seat a waiting hand, however many sets it shows and however
    long it has been discarding; real opponents often are (``bots.defensive.threat``
    estimates how often).

    Raises :class:`InconsistentViewError` when the view cannot be completed.

    >>> import random
    >>> from protocol.hand_state import HandState
    >>> view = HandState.new(seed=3, dealer=1).view(2)
    >>> no_east = lambda w: 0.0 if any(w.counts[s][27] for s in (0, 1, 3)) else 1.0
    >>> world = sample_world(view, random.Random(0), no_east)
    >>> [world.counts[s][27] for s in (0, 1, 3)]  # every east the seat cannot see is in the wall
    [0, 0, 0]
    """
    sv = view.seat_view if isinstance(view, GameView) else view
    plan = _plan(sv)
    if weight is None:
        return _draw(sv, plan, rng, ready)
    for _ in range(max_tries):
        world = _draw(sv, plan, rng, ready)
        if rng.random() < weight(world):
            return world
    raise SamplingError(f"the weight function kept none of {max_tries} sampled worlds")


@dataclass(frozen=True, slots=True)
class _Plan:
    unseen: tuple[int, ...]
    others: tuple[int, ...]
    sizes: tuple[int, ...]
    """Concealed tiles of each of ``others``."""
    kong_counts: tuple[int, ...]
    wall_left: int
    drawer: int | None
    """Another seat that acts after a draw: one of its tiles is ``drawn``."""


def _plan(sv: SeatView) -> _Plan:
    """Check the view's counts and say what must be drawn."""
    pub, own, seat = sv.public, sv.own, sv.seat
    if pub.phase == DEALING:
        raise InconsistentViewError("the hand is still being dealt: nothing to sample yet")
    if pub.phase == OVER:
        raise InconsistentViewError("the hand is over: nothing is hidden any more")
    unseen = [4 - pub.visible[k] - own.counts[k] for k in _KINDS]
    for k in own.concealed_kongs:
        unseen[k] -= 4
    wrong = [f"{Tile(k)} x{4 - n}" for k, n in enumerate(unseen) if n < 0]
    if wrong:
        raise InconsistentViewError(f"more than four of a kind seen: {', '.join(wrong)}")
    if sum(own.counts) != pub.concealed[seat]:
        raise InconsistentViewError(
            f"seat {seat} holds {sum(own.counts)} concealed tiles but the table says"
            f" {pub.concealed[seat]}"
        )
    others = tuple(s for s in range(4) if s != seat)
    sizes = tuple(pub.concealed[s] for s in others)
    kongs = tuple(pub.concealed_kongs[s] for s in others)
    need = sum(sizes) + 4 * sum(kongs) + pub.wall_left
    if min(sizes) < 0 or pub.wall_left < 0 or need != sum(unseen):
        raise InconsistentViewError(
            f"{sum(unseen)} tiles are unseen but the other hands, their concealed kongs and"
            f" the wall hold {need}"
        )
    if sum(kongs) > sum(1 for n in unseen if n == 4):
        raise InconsistentViewError(
            f"{sum(kongs)} hidden concealed kongs but fewer kinds with four unseen copies"
        )
    drawer = pub.turn if pub.turn != seat and pub.phase == TURN_DRAWN else None
    return _Plan(tuple(unseen), others, sizes, kongs, pub.wall_left, drawer)


def _draw(
    sv: SeatView, plan: _Plan, rng: random.Random, ready: Sequence[float] | None = None
) -> World:
    """One world: kong kinds first (each kind with four unseen copies is equally likely,
    as every one leaves the same number of arrangements), then the waiting hands the
    ``ready`` model asks for, then one shuffle of the other unseen tiles dealt to the
    other hands and the wall (uniform when ``ready`` is None)."""
    unseen = list(plan.unseen)
    kongs: list[tuple[int, ...]] = [(), (), (), ()]
    if any(plan.kong_counts):
        free = [k for k in _KINDS if unseen[k] == 4]
        for s, n in zip(plan.others, plan.kong_counts, strict=True):
            if n:
                chosen = rng.sample(free, n)
                for k in chosen:
                    free.remove(k)
                    unseen[k] = 0
                kongs[s] = tuple(chosen)
    built: dict[int, list[int]] = {}
    if ready is not None:
        for s, size in zip(plan.others, plan.sizes, strict=True):
            if size % 3 == 1 and ready[s] > 0 and rng.random() < ready[s]:
                hand = _waiting_hand(unseen, size, rng)
                if hand is not None:
                    built[s] = hand
    pool = [k for k in _KINDS for _ in range(unseen[k])]
    rng.shuffle(pool)
    counts: list[tuple[int, ...]] = [(), (), (), ()]
    drawn: list[int | None] = [None, None, None, None]
    seat, own = sv.seat, sv.own
    counts[seat] = tuple(own.counts)
    kongs[seat] = tuple(own.concealed_kongs)
    drawn[seat] = own.drawn
    start = 0
    for s, size in zip(plan.others, plan.sizes, strict=True):
        c = [0] * KIND_COUNT
        tiles = built.get(s)
        if tiles is None:
            tiles = pool[start : start + size]
            start += size
        for k in tiles:
            c[k] += 1
        if s == plan.drawer and size:
            drawn[s] = tiles[0]
        counts[s] = tuple(c)
    return World(seat, tuple(counts), tuple(kongs), tuple(drawn), tuple(pool[start:]))


def _waiting_hand(unseen: list[int], size: int, rng: random.Random) -> list[int] | None:
    """A random waiting hand of ``size`` (3n+1) tiles taken out of ``unseen`` (which
    loses them), or None (``unseen`` untouched) if a few tries find none.

    >>> unseen = [4] * 34
    >>> hand = _waiting_hand(unseen, 7, random.Random(3))
    >>> from protocol.analysis import shanten_counts
    >>> shanten_counts([hand.count(k) for k in range(34)]), sum(unseen)
    (0, 129)
    """
    sets = size // 3
    for _ in range(8):
        c = unseen.copy()
        tiles: list[int] = []
        single = sets == 0 or rng.random() < 0.2
        ok = all(_take_set(c, tiles, rng) for _ in range(sets if single else sets - 1))
        if ok and single:
            ok = _take(c, tiles, [rng.choice([k for k in _KINDS if c[k]] or [0])])
        elif ok:
            ok = _take_pair(c, tiles, rng) and _take_partial(c, tiles, rng)
        if ok:
            unseen[:] = c
            return tiles
    return None


def _take(c: list[int], tiles: list[int], kinds: list[int]) -> bool:
    """Take ``kinds`` out of ``c`` into ``tiles`` if every one is there."""
    for k in kinds:
        c[k] -= 1
    if min(c[k] for k in kinds) < 0:
        for k in kinds:
            c[k] += 1
        return False
    tiles.extend(kinds)
    return True


def _take_set(c: list[int], tiles: list[int], rng: random.Random) -> bool:
    for _ in range(12):
        if rng.random() < 0.65:
            low = 9 * rng.randrange(3) + rng.randrange(7)
            kinds = [low, low + 1, low + 2]
        else:
            kinds = [rng.randrange(KIND_COUNT)] * 3
        if _take(c, tiles, kinds):
            return True
    return False


def _take_pair(c: list[int], tiles: list[int], rng: random.Random) -> bool:
    return any(_take(c, tiles, [rng.randrange(KIND_COUNT)] * 2) for _ in range(12))


def _take_partial(c: list[int], tiles: list[int], rng: random.Random) -> bool:
    """Two tiles one set short: a run with a gap or an open end, or a second pair."""
    for _ in range(12):
        if rng.random() < 0.2:
            kinds = [rng.randrange(KIND_COUNT)] * 2
        else:
            low = 9 * rng.randrange(3) + rng.randrange(8)
            gap = 1 if low % 9 == 7 else rng.choice((1, 1, 2))
            kinds = [low, low + gap]
        if _take(c, tiles, kinds):
            return True
    return False
