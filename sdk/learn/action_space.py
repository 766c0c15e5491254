"""One fixed discrete action space for every answer a seat can give, and its mask.

Every :class:`~protocol.actions.Action` has one index in ``range(N_ACTIONS)`` and every
index one action, whatever the situation, so a policy network has a single output head
and :func:`action_of` / :func:`index_of` are exact inverses (no context needed: a chow
names the two own tiles it uses, as :meth:`Action.chow` does). The layout, version
:data:`ACTION_SPACE_VERSION`:

======================  =========  ============================================
indices                 count      actions
======================  =========  ============================================
``0 .. 33``             34         discard of kind ``k`` (1m..9m 1p..9p 1s..9s E S W N C F P)
``34 .. 67``            34         concealed kong of kind ``k``
``68 .. 101``           34         added kong of kind ``k``
``102 .. 146``          45         chow with own tiles ``(a, b)``, in :data:`CHOW_PAIRS` order
``147``                 1          exposed kong on the discard (``kong``)
``148``                 1          pung
``149``                 1          win (self-draw or on the discard)
``150``                 1          pass
======================  =========  ============================================

>>> from protocol.tiles import Tile
>>> N_ACTIONS, index_of(Action.discard(Tile.M5)), str(action_of(148))
(151, 4, 'pung')
>>> all(index_of(action_of(i)) == i for i in range(N_ACTIONS))
True
>>> str(action_of(index_of(Action.chow(Tile.P4, Tile.P6))))
'chow 4p 6p'
>>> legal = (Action.parse("win"), Action.parse("pung"), Action.parse("pass"))
>>> [int(i) for i in legal_mask(legal).nonzero()[0]]
[148, 149, 150]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

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
)
from protocol.errors import MahjongError
from protocol.tiles import KIND_COUNT

__all__ = [
    "ACTIONS",
    "ACTION_SPACE_VERSION",
    "CHOW_PAIRS",
    "N_ACTIONS",
    "MaskedActionError",
    "action_of",
    "check_index",
    "describe_index",
    "index_of",
    "indices_of",
    "legal_mask",
]

ACTION_SPACE_VERSION = 1
"""Bumped whenever an index changes meaning."""

CHOW_PAIRS: tuple[tuple[int, int], ...] = tuple(sorted(CHOW))
"""The 45 pairs of own tiles a chow can use (``a < b``, one suit, ``b - a`` 1 or 2)."""

ACTIONS: tuple[Action, ...] = (
    tuple(DISCARD)
    + tuple(CONCEALED_KONG)
    + tuple(ADDED_KONG)
    + tuple(CHOW[pair] for pair in CHOW_PAIRS)
    + (KONG, PUNG, WIN, PASS)
)
"""``ACTIONS[i]`` is the action of index ``i``."""

N_ACTIONS = len(ACTIONS)

_INDEX: dict[Action, int] = {a: i for i, a in enumerate(ACTIONS)}
"""Actions are interned (one object each) and hash by identity: a perfect, cheap key."""
_INDEX_OF = _INDEX.__getitem__

assert N_ACTIONS == 3 * KIND_COUNT + 45 + 4 and len(_INDEX) == N_ACTIONS


class MaskedActionError(MahjongError, ValueError):
    """An index outside the action mask (or outside the space). The environment is
    unchanged; ``legal`` holds the legal indices and the message names their actions."""

    def __init__(self, who: str, index: object, legal: Sequence[int]) -> None:
        self.index = index
        self.legal = tuple(legal)
        shown = ", ".join(f"{i} ({ACTIONS[i]})" for i in legal) or "none"
        super().__init__(f"{who} may not take action {describe_index(index)}: legal are {shown}")


def index_of(action: Action) -> int:
    """The index of ``action``."""
    return _INDEX[action]


def indices_of(legal: Iterable[Action]) -> list[int]:
    """The indices of ``legal``, in the same order."""
    index = _INDEX
    return [index[a] for a in legal]


def action_of(index: int) -> Action:
    """The action of ``index`` (``0 <= index < N_ACTIONS``)."""
    return ACTIONS[index]


def legal_mask(legal: Iterable[Action], out: np.ndarray | None = None) -> np.ndarray:
    """A 0/1 ``int8`` vector of length :data:`N_ACTIONS`: 1 where the action is legal."""
    data = bytearray(N_ACTIONS)
    for i in map(_INDEX_OF, legal):
        data[i] = 1
    mask = np.frombuffer(data, np.int8)
    if out is None:
        return mask
    out[:] = mask
    return out


_INDEX_TYPES = (int, np.integer)


def describe_index(index: object) -> str:
    """``"37 (concealed kong 4m)"``-style text for messages; tolerant of bad input.

    >>> describe_index(0), describe_index(999)
    ('0 (discard 1m)', '999 (outside 0..150)')
    """
    if isinstance(index, int | np.integer) and 0 <= int(index) < N_ACTIONS:
        return f"{int(index)} ({ACTIONS[int(index)]})"
    return f"{index!r} (outside 0..{N_ACTIONS - 1})"


def check_index(who: str, index: object, legal: Sequence[Action]) -> Action:
    """The action of ``index`` if it is one of ``legal``; otherwise raise
    :class:`MaskedActionError` naming the legal set (nothing else is touched)."""
    if isinstance(index, _INDEX_TYPES) and 0 <= index < N_ACTIONS:
        action = ACTIONS[index]
        if action in legal:
            return action
    raise MaskedActionError(who, index, indices_of(legal))
