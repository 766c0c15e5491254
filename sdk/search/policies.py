"""Ready-made rollout policies (see :data:`~sdk.search.playout.Policy`).

* :func:`random_policy`: uniform over the legal actions, but always takes a win (the
  random sample bot's rule), the cheapest policy there is.
* :func:`lite_policy`: tile efficiency without the tables, for fast rollouts: take every
  win, kong, pung and chow offered, and discard the tile that fits the hand least (an
  isolated honor first, then isolated terminals, then tiles with fewer neighbours and
  copies). A few microseconds per decision. Claiming everything matters: in lite
  self-play from the deal, 94% of hands end in a win (greedy self-play: about 96%),
  against 15% when it never claims (measured on 300 seeded hands while writing it).
* :func:`efficiency_policy`: like lite, but discards by the real shanten of
  :func:`protocol.analysis.shanten_counts` (lowest first, lite's order breaking ties);
  slower, closer to the greedy bot, and faster whenever the analysis gets faster.
  It claims like lite.
* :func:`guard_policy`: lite that folds. When another seat shows three sets (or two
  with fewer than 24 tiles left to draw), it throws the tile least likely to pay that
  seat: a kind in every such seat's river first (a player seldom waits on what it threw
  away), an honor with three copies in sight (it can only wait on it alone), then the
  least fitting tile. Rollouts with it deal in less than with lite, closer to the
  defensive field a search bot meets (the search bot's default).
* :func:`bot_policy`: any :class:`~sdk.bot.Bot` (the sample bots) as a policy; it gets
  the seat's own :class:`~sdk.view.GameView` of the simulated hand and, if it listens,
  the events of the hand as its seat sees them. Bots are far slower than the policies
  above (a view copy per decision).

>>> import random
>>> from protocol.hand_state import HandState
>>> hand = HandState.new(seed=2, dealer=0)
>>> legal = hand.legal_actions(0)
>>> lite_policy(hand, 0, legal, random.Random(0)) in legal
True
"""

from __future__ import annotations

import inspect
import math
import random
from typing import Any

from protocol.actions import KONG, PASS, PUNG, WIN, Action, ActionKind
from protocol.analysis import shanten_counts
from protocol.events import project
from protocol.hand_state import HandState
from protocol.wall import RESERVED
from sdk.bot import Bot, DecisionRequest
from sdk.search.playout import Policy, random_policy
from sdk.view import GameView

__all__ = [
    "bot_policy",
    "efficiency_policy",
    "fit",
    "guard_policy",
    "lite_policy",
    "random_policy",
]

_DISCARD = ActionKind.DISCARD
_CHOW = ActionKind.CHOW
_NEAR: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple(
        (k + d, 2 if abs(d) == 1 else 1) for d in (-2, -1, 1, 2) if k < 27 and 0 <= k % 9 + d <= 8
    )
    for k in range(34)
)
"""For each kind, its suit neighbours within two ranks and what each is worth."""
_PLACE = tuple((-1 if k >= 27 else 0 if k % 9 in (0, 8) else 1 if k % 9 in (1, 7) else 2)
               for k in range(34))  # fmt: skip
"""How easily a kind joins a set on its own: honors least, middle ranks most."""


def fit(counts: list[int], kind: int) -> int:
    """How well a held ``kind`` fits the hand ``counts`` (higher = keep): copies held
    and suit neighbours within two ranks count most, then the kind's rank.

    >>> hand = [0] * 34
    >>> hand[0] = hand[1] = hand[27] = 1  # 1m 2m E
    >>> fit(hand, 27) < fit(hand, 0) < fit(hand, 1)
    True
    """
    value = 6 * (counts[kind] - 1)
    for n, worth in _NEAR[kind]:
        if counts[n]:
            value += worth
    return 4 * value + _PLACE[kind]


def lite_policy(
    state: HandState, seat: int, legal: tuple[Action, ...], rng: random.Random
) -> Action:
    """Win if possible; claim every discard offered; else discard the least fitting
    tile."""
    first = legal[0]
    if first is WIN:
        return WIN
    if legal[-1] is PASS:
        return _claim(legal)
    counts = state.owns[seat].counts
    best, worst = first, 1 << 30
    for action in legal:
        if action.kind is _DISCARD:
            value = fit(counts, action.tile)  # type: ignore[arg-type]
            if value < worst:
                best, worst = action, value
    return best


def efficiency_policy(
    state: HandState, seat: int, legal: tuple[Action, ...], rng: random.Random
) -> Action:
    """Win if possible; claim like :func:`lite_policy`; else the discard of lowest
    shanten, the least fitting tile among those."""
    first = legal[0]
    if first is WIN:
        return WIN
    if legal[-1] is PASS:
        return _claim(legal)
    counts = state.owns[seat].counts
    best, key = first, (1 << 30, 0)
    for action in legal:
        if action.kind is _DISCARD:
            tile = action.tile
            counts[tile] -= 1  # type: ignore[index]
            here = (shanten_counts(counts), fit(counts, tile))  # type: ignore[arg-type]
            counts[tile] += 1  # type: ignore[index]
            if here < key:
                best, key = action, here
    return best


GUARD_DRAWABLE = 24
"""Below this many drawable tiles, two shown sets make a seat a threat to guard against."""


def guard_policy(
    state: HandState, seat: int, legal: tuple[Action, ...], rng: random.Random
) -> Action:
    """Like :func:`lite_policy`, but against a seat that shows three sets (two late in
    the hand) it throws the least dangerous tile, the least fitting among those.

    >>> import random
    >>> from protocol.hand_state import HandState
    >>> hand = HandState.new(seed=2, dealer=0)
    >>> legal = hand.legal_actions(0)
    >>> guard_policy(hand, 0, legal, random.Random(0)) == lite_policy(hand, 0, legal, None)
    True
    """
    first = legal[0]
    if first is WIN:
        return WIN
    if legal[-1] is PASS:
        return _claim(legal)
    pub = state.public
    melds, kongs = pub.melds, pub.concealed_kongs
    need = 2 if pub.wall_left - RESERVED < GUARD_DRAWABLE else 3
    rivers = [set(pub.rivers[s]) for s in _OTHER_SEATS[seat] if len(melds[s]) + kongs[s] >= need]
    counts = state.owns[seat].counts
    best, worst = first, 1 << 30
    if not rivers:
        for action in legal:
            if action.kind is _DISCARD:
                value = fit(counts, action.tile)  # type: ignore[arg-type]
                if value < worst:
                    best, worst = action, value
        return best
    visible = pub.visible
    for action in legal:
        if action.kind is _DISCARD:
            tile: int = action.tile  # type: ignore[assignment]
            if tile >= 27 and visible[tile] + counts[tile] >= 3:
                risk = 0
            else:
                risk = sum(tile not in river for river in rivers)
            value = (risk << 10) + fit(counts, tile)
            if value < worst:
                best, worst = action, value
    return best


_OTHER_SEATS = tuple(tuple(s for s in range(4) if s != me) for me in range(4))


def _claim(legal: tuple[Action, ...]) -> Action:
    """Kong, else pung, else the first chow, else pass (claims are listed in that
    order, :attr:`protocol.actions.Action.sort_key`)."""
    first = legal[0]
    if first is KONG or first is PUNG or first.kind is _CHOW:
        return first
    return PASS


def bot_policy(bot: Bot, *, listen: bool | None = None) -> Policy:
    """``bot`` as a policy: its ``choose`` on the seat's view of the simulated hand. An
    answer that is not legal raises :class:`ValueError` (a bug in the bot).

    A bot with event handlers (``listen``, by default whether it has an ``on_event``)
    hears, before each of its decisions, every event of the hand it has not heard yet,
    as its seat sees it (:func:`protocol.events.project`), so a bot that tracks events
    (defensive's passed kinds) plays as it would in a real game. When the policy is
    called on another state than last time it starts over from that state's first
    event: on a :func:`~sdk.search.state.fork` of a real hand that replays the hand so
    far (its ``hand_start`` included, where such bots reset); a state from
    :func:`~sdk.search.state.state_from_world` has no past events, so the bot keeps
    what it knew. Handlers get the view at the decision, not at each event.
    """
    if inspect.iscoroutinefunction(bot.choose):
        raise TypeError(f"{bot.name} is an async bot; a policy must answer synchronously")
    if listen is None:
        listen = bot.wants("on_event")
    heard: list[Any] = [None, 0]  # the state last seen, and how many of its events heard

    def policy(
        state: HandState, seat: int, legal: tuple[Action, ...], rng: random.Random
    ) -> Action:
        view = GameView(state.view(seat))
        if listen:
            _catch_up(bot, view, state, seat, heard)
        request = DecisionRequest(legal, math.inf, drawn_tile=state.drawn_tile(seat))
        action = bot.choose(view, request)
        if action not in legal:
            raise ValueError(f"{bot.name} answered {action}, not one of its legal actions")
        return action  # type: ignore[return-value]

    policy.__name__ = f"bot_policy({bot.name})"
    return policy


def _catch_up(bot: Bot, view: GameView, state: HandState, seat: int, heard: list[Any]) -> None:
    """Tell ``bot`` the events of ``state`` it has not heard (``heard``: the state it
    heard last and how many of its events)."""
    if heard[0] is not state:
        heard[0], heard[1] = state, 0
    events = state.events
    for event in events[heard[1] :]:
        seen = project(event, seat)
        if seen is not None:
            bot.on_event(view, seen)
    heard[1] = len(events)
