"""The one rules model for legality: a seat's legal actions from what that seat knows.

:func:`legal_actions` is a pure function of one seat's :class:`~protocol.view.OwnState`
and the :class:`~protocol.view.PublicState`; the referee and every client mirror call it
and so agree. :func:`why_illegal` explains, citing the rulings, why an action is not in
that list. The rules applied (see ``RULINGS.md``):

* own turn after a draw: self-draw win (not in the passed state nor after an exposed
  kong, R9), concealed kongs (not on the last tile, R2/R8), added kongs (R8), any discard;
* own turn after a chow or pung: discards only, not the banned kind (R6);
* another seat's discard: win (always, R3/R9); then, only if drawable >= 4 (R3, which
  also rules out the last discard): exposed kong (three in hand, not by the discarder's
  next seat, R8), pung (not a passed-pung kind, R9; a discard must remain, R6), chows by
  the next seat only (R5), each variant, not of one's own last discard's kind (R7), a
  discard must remain (R6); and pass.

>>> from protocol.view import SeatView
>>> v = SeatView(0)
>>> v.own.counts[Tile.M5] = 2; v.own.counts[Tile.P1] = 2; v.own.recount(); v.public.concealed[0] = 4
>>> v.public.phase, v.public.turn, v.public.pending_tile, v.public.wall_left = 3, 3, Tile.M5, 60
>>> [str(a) for a in legal_actions(v.own, v.public)]  # 5m completes 555m 11p
['win', 'pung', 'pass']
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress

from protocol.actions import (
    ADDED_KONG,
    CHOW,
    CONCEALED_KONG,
    DISCARD,
    KONG,
    PASS,
    PUNG,
    WIN,
    Action,
    ActionKind,
)
from protocol.analysis import is_winning_counts
from protocol.melds import MeldKind
from protocol.shapes import GROUP as _GROUP
from protocol.shapes import POWER as _POWER
from protocol.shapes import win_codes
from protocol.tiles import KIND_COUNT, Tile
from protocol.view import CLAIMS, OVER, TURN_CLAIMED, TURN_DRAWN, OwnState, PublicState
from protocol.wall import RESERVED

__all__ = [
    "CLAIM_MIN_DRAWABLE",
    "claim_actions",
    "claim_window",
    "completes",
    "legal_actions",
    "turn_actions",
    "why_illegal",
]

CLAIM_MIN_DRAWABLE = 4
"""Chow, pung and exposed kong need at least this many drawable tiles (R3)."""

_PUNG = MeldKind.PUNG
_CLAIM_WALL = RESERVED + CLAIM_MIN_DRAWABLE
"""Tiles that must be left in the wall for chow, pung and exposed kong (R3)."""
_SUIT_WIN, _HONOR_WIN = win_codes()
_NO_ACTIONS: tuple[Action, ...] = ()
_IS_FOUR = (4).__eq__
_WIN_OR_PASS: tuple[Action, ...] = (WIN, PASS)


_NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(n for n in range(k - 2, k + 3) if n != k and k < 27 and n // 9 == k // 9 and n >= 0)
    for k in range(KIND_COUNT)
)
"""Suited kinds that can share a chow with each kind (none for honors)."""


_OTHER_GROUPS: tuple[tuple[tuple[int, bytes], ...], ...] = tuple(
    tuple((h, _HONOR_WIN if h == 3 else _SUIT_WIN) for h in range(4) if h != g) for g in range(4)
)
"""For each group, the other three groups and their win-code tables."""


_CHOWS_OF: tuple[tuple[tuple[int, int, Action], ...], ...] = tuple(
    tuple(
        (a, b, CHOW[(a, b)])
        for a, b in ((k - 2, k - 1), (k - 1, k + 1), (k + 1, k + 2))
        if k < 27 and a >= 0 and b < 27 and a // 9 == b // 9 == k // 9
    )
    for k in range(KIND_COUNT)
)
"""For each kind, the chows that claim it: the two own tiles and the action, in
:attr:`Action.sort_key` order (none for honors)."""


def completes(counts: list[int], tile: int) -> bool:
    """Whether ``tile`` completes the 3n+1 hand ``counts`` into a winning hand.

    A quick neighbour test rules most tiles out before the full check."""
    held = counts[tile]
    if not held:
        for k in _NEIGHBOURS[tile]:
            if counts[k]:
                break
        else:
            return False
    counts[tile] = held + 1
    win = is_winning_counts(counts)
    counts[tile] = held
    return win


def legal_actions(own: OwnState, pub: PublicState) -> tuple[Action, ...]:
    """Every action ``own.seat`` may take now, in the stable order of
    :attr:`Action.sort_key`; empty when it has nothing to decide."""
    phase = pub.phase
    if phase == CLAIMS:
        return _NO_ACTIONS if own.seat == pub.turn else claim_actions(own, pub)
    if phase in (TURN_DRAWN, TURN_CLAIMED) and own.seat == pub.turn:
        return turn_actions(own, pub)
    return _NO_ACTIONS


def turn_actions(own: OwnState, pub: PublicState) -> tuple[Action, ...]:
    """The seat's options on its own turn (it holds 3n+2 tiles)."""
    counts = own.counts
    if pub.phase == TURN_CLAIMED:  # R6: discard at once, not the claimed kind
        banned = pub.banned
        if banned is None or not counts[banned]:
            return tuple(compress(DISCARD, counts))
        discards = list(compress(DISCARD, counts))
        discards.remove(DISCARD[banned])
        return tuple(discards)
    win = False
    if not own.passed_win and not own.kong_block:
        k0, k1, k2, k3 = own.keys
        m = _SUIT_WIN[k0]  # complete groups only (codes 0 or 1): usually the first is not
        win = m <= 1 and m + _SUIT_WIN[k1] + _SUIT_WIN[k2] + _HONOR_WIN[k3] == 1
    kongs = 4 in counts and pub.wall_left > RESERVED  # R2: none on the last tile
    melds = pub.melds[own.seat]
    if not (win or kongs or melds):  # the usual case: discards only
        return tuple(compress(DISCARD, counts))
    out: list[Action] = [WIN] if win else []
    if kongs:
        out.extend(compress(CONCEALED_KONG, map(_IS_FOUR, counts)))
    if melds:
        added = [m.tile for m in melds if m.kind is _PUNG and counts[m.tile]]
        if added:
            added.sort()
            out.extend([ADDED_KONG[k] for k in added])
    out.extend(compress(DISCARD, counts))
    return tuple(out)


def claim_actions(own: OwnState, pub: PublicState) -> tuple[Action, ...]:
    """The seat's options on another seat's discard ``pub.pending_tile``; empty if it
    may only pass."""
    return claim_window(pub, (own,)).get(own.seat, _NO_ACTIONS)


def claim_window(pub: PublicState, owns: Sequence[OwnState]) -> dict[int, tuple[Action, ...]]:
    """:func:`claim_actions` of each of ``owns`` (seats other than the discarder), by
    seat in the order given, leaving out the seats that may only pass. The referee asks
    this after every discard for the other three seats in claim-priority order, and
    usually nobody has a claim: one loop shares the work that depends only on the
    discard, and is also the one copy of the claim rules (see the module docstring)."""
    pending = pub.pending_tile
    assert pending is not None
    tile = int(pending)  # a plain int: cheaper as an index than the Tile enum
    next_seat = (pub.turn + 1) % 4
    suited = tile < 27
    late = pub.wall_left < _CLAIM_WALL  # R3: only a win near the end
    g, power = _GROUP[tile], _POWER[tile]
    codes = _HONOR_WIN if g == 3 else _SUIT_WIN
    (a, codes_a), (b, codes_b), (c, codes_c) = _OTHER_GROUPS[g]
    found: dict[int, tuple[Action, ...]] = {}
    for own in owns:
        # does the discard complete the hand? (table reads on the seat's group keys, see
        # protocol.shapes): the three other groups must be complete as they are, which the
        # first of them usually rules out at once.
        keys = own.keys
        win = False
        rest = codes_a[keys[a]]
        if rest <= 1:
            rest += codes_b[keys[b]] + codes_c[keys[c]]
            win = rest <= 1 and rest + codes[keys[g] + power] == 1
        held = own.counts[tile]
        seat = own.seat
        if late or (held < 2 and (seat != next_seat or not suited)):
            if win:
                found[seat] = _WIN_OR_PASS
            continue
        is_next = seat == next_seat
        out: list[Action] = [WIN] if win else []
        if held >= 3 and not is_next:  # R8: not by the discarder's next seat
            out.append(KONG)
        # R6: after a pung (chow) at least one tile not of the claimed kind must remain.
        others = pub.concealed[seat] - held
        if held >= 2 and tile not in own.passed_pung and others > 0:  # R9 passed pung
            out.append(PUNG)
        if is_next and suited and pub.last_discard[seat] != tile and others > 2:  # R5, R7
            counts = own.counts
            out.extend([chow for x, y, chow in _CHOWS_OF[tile] if counts[x] and counts[y]])
        if out:
            out.append(PASS)
            found[seat] = tuple(out)
    return found


def why_illegal(own: OwnState, pub: PublicState, action: Action) -> str:
    """A short reason, citing the ruling, why ``action`` is not legal for ``own.seat``
    now (``"legal"`` if it is). Slow path: used only to report refusals."""
    if action in legal_actions(own, pub):
        return "legal"
    seat, phase = own.seat, pub.phase
    if phase == OVER:
        return "the hand is over"
    if phase == CLAIMS:
        if seat == pub.turn:
            return "the others are deciding on your discard"
        return _why_not_claim(own, pub, action)
    if phase not in (TURN_DRAWN, TURN_CLAIMED):
        return "nothing to decide now"
    if seat != pub.turn:
        return f"it is seat {pub.turn}'s turn"
    return _why_not_turn(own, pub, action)


def _why_not_turn(own: OwnState, pub: PublicState, action: Action) -> str:
    kind, counts = action.kind, own.counts
    if kind in (ActionKind.PASS, ActionKind.PUNG, ActionKind.KONG, ActionKind.CHOW):
        return f"{kind.value} answers another seat's discard; on your turn you discard"
    if pub.phase == TURN_CLAIMED:
        if kind is ActionKind.DISCARD and action.tile == pub.banned:
            return f"R6: no discard of {Tile(pub.banned)} right after claiming it"  # type: ignore[arg-type]
        if kind is not ActionKind.DISCARD:
            return f"R6/R8: after a chow or pung you discard at once, no {kind.value}"
    if kind is ActionKind.DISCARD:
        return f"you hold no {action.tile}"
    if kind is ActionKind.WIN:
        if own.kong_block and is_winning_counts(counts):
            return "R9: no self-draw win after an exposed kong until your own discard"
        if own.passed_win and is_winning_counts(counts):
            return "R9: passed win: no self-draw win until your own discard or added kong"
        return "the hand is not five sets and a pair"
    tile = action.tile
    assert tile is not None
    if kind is ActionKind.CONCEALED_KONG:
        if counts[tile] == 4:
            return "R2: no concealed kong on the last tile"
        return f"R8: a concealed kong needs four {tile} in hand"
    has_pung = any(m.kind is MeldKind.PUNG and m.tile == tile for m in pub.melds[own.seat])
    if not has_pung:
        return f"R8: an added kong needs a pung of {tile}"
    return f"R8: an added kong needs a {tile} in hand"


def _why_not_claim(own: OwnState, pub: PublicState, action: Action) -> str:
    kind, tile, counts = action.kind, pub.pending_tile, own.counts
    assert tile is not None
    t = Tile(tile)
    is_next = own.seat == (pub.turn + 1) % 4
    if kind in (ActionKind.DISCARD, ActionKind.CONCEALED_KONG, ActionKind.ADDED_KONG):
        return f"{kind.value} is for your own turn; seat {pub.turn} just discarded {t}"
    if kind is ActionKind.PASS:
        return "nothing to pass: you have no claim on this discard"
    if kind is ActionKind.WIN:
        return f"{t} does not complete your hand"
    if pub.drawable <= 0:
        return "R2/R3: the last discard can only be won on"
    if pub.drawable < 4:
        return f"R3: no chow, pung or kong with {pub.drawable} drawable tiles (< 4)"
    held = counts[tile]
    if kind is ActionKind.KONG:
        if held < 3:
            return f"R8: an exposed kong needs three {t} in hand"
        return "R8: the discarder's next seat may not make an exposed kong"
    if kind is ActionKind.PUNG:
        if held < 2:
            return f"a pung needs two {t} in hand"
        if tile in own.passed_pung:
            return f"R9: passed pung: no pung of {t} until your next discard"
        return "R6: a pung must leave a tile you may discard"
    if not is_next:
        return f"R5: only seat {(pub.turn + 1) % 4}, next to the discarder, may chow"
    if tile >= 27:
        return "honors cannot be chowed"
    if pub.last_discard[own.seat] == tile:
        return f"R7: no chow of {t}, the kind of your own last discard"
    assert action.tiles is not None
    a, b = action.tiles
    if sorted((a, b, tile)) != list(range(min(a, b, tile), min(a, b, tile) + 3)):
        return f"{a} {b} and {t} are not a run"
    if not counts[a] or not counts[b]:
        return f"you do not hold {a} and {b}"
    return "R6: a chow must leave a tile you may discard"
