"""Claims on a discard asked tier by tier, as the public tournament referee asks them.

The referee (:class:`~protocol.hand_state.HandState`) takes every claim seat's decision
and then resolves them by priority (R5: a win beats a pung or kong, which beats a chow;
of several winners the first from the discarder's next seat wins). The public referee
asks in tiers instead: the seats that may win, then kong and pung, then a chow only if
nobody took the tile, so an answered claim is always applied and a program may change
its hand the moment it answers (the public client does).

:class:`ClaimTiers` does that asking on top of the referee without changing it. Give it
the claim window (``HandState.pending()`` on a discard, in priority order) and the seats
to ask tier by tier; the others are asked all their options at once, as before. Ask the
seats :meth:`~ClaimTiers.asks` returns (each tiered seat is offered only the tier's
options plus pass), feed each answer to :meth:`~ClaimTiers.answer`, and once
:attr:`~ClaimTiers.done` apply :meth:`~ClaimTiers.decisions` (one full decision per
claim seat) to the referee in that order. A tiered seat that passed every tier it was
asked, or was never asked because a higher tier took the tile, passes; so the referee's
events are exactly those of asking every seat at once with the same answers.

>>> from protocol.actions import PASS, PUNG, WIN, Action
>>> chow = Action.chow(1, 2)
>>> tiers = ClaimTiers({1: (chow, PASS), 2: (WIN, PUNG, PASS)}, tiered={1, 2})
>>> def shown(asks): return {s: " / ".join(map(str, a)) for s, a in asks.items()}
>>> shown(tiers.asks())  # the win tier first; seat 1 (a chow only) waits
{2: 'win / pass'}
>>> tiers.answer(2, PASS); shown(tiers.asks())
{2: 'pung / pass'}
>>> tiers.answer(2, PUNG); tiers.done, tiers.taker, str(tiers.decisions()[1])
(True, 2, 'pass')
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from protocol.actions import PASS, Action, ActionKind

__all__ = ["CHOW_TIER", "TAKE_TIER", "TIERS", "WIN_TIER", "ClaimTiers", "tier_of"]

WIN_TIER, TAKE_TIER, CHOW_TIER = 0, 1, 2
TIERS = (WIN_TIER, TAKE_TIER, CHOW_TIER)
"""The tiers in the order they are asked (R5 priority)."""

_TIER_OF_KIND = {
    ActionKind.WIN: WIN_TIER,
    ActionKind.KONG: TAKE_TIER,
    ActionKind.PUNG: TAKE_TIER,
    ActionKind.CHOW: CHOW_TIER,
}


def tier_of(action: Action) -> int | None:
    """The tier of a claim (``None`` for a pass).

    >>> from protocol.actions import KONG, PASS
    >>> tier_of(KONG), tier_of(PASS)
    (1, None)
    """
    return _TIER_OF_KIND.get(action.kind)


class ClaimTiers:
    """The asking of one claim window (see the module docstring).

    ``claims``: each claim seat's legal actions, in priority order (from the
    discarder's next seat). ``tiered``: the seats asked one tier at a time; the others
    are asked everything at once (their answer counts at every tier)."""

    def __init__(self, claims: Mapping[int, tuple[Action, ...]], tiered: Collection[int]) -> None:
        self.claims = dict(claims)
        self.tiered = frozenset(s for s in self.claims if s in tiered)
        self.tier = WIN_TIER
        self.taker: int | None = None
        """The seat whose claim takes the tile (``None``: nobody; known once done)."""
        self.settled = False
        """Whether the outcome is known (``done`` also waits for every seat asked)."""
        self._full: dict[int, Action] = {}
        """The answers of the seats asked everything at once."""
        self._claimed: dict[int, Action] = {}
        """The claim each tiered seat answered (a pass is not kept)."""
        self._tier_answers: dict[int, set[int]] = {s: set() for s in self.tiered}
        """The tiers each tiered seat has answered."""
        self._asked: set[tuple[int, int]] = set()
        """(seat, tier) asks sent; tier -1 for the seats asked everything at once."""
        self._waiting: set[int] = set()
        self._advance()

    # -- the caller's side --

    def asks(self) -> dict[int, tuple[Action, ...]]:
        """The seats to ask now, each with the options it is offered (always with pass);
        every ask is returned once."""
        out: dict[int, tuple[Action, ...]] = {}
        for seat, legal in self.claims.items():
            if seat not in self.tiered:
                if (seat, -1) not in self._asked:
                    out[seat] = legal
                    self._asked.add((seat, -1))
                continue
            if self.settled or (seat, self.tier) in self._asked:
                continue
            offered = tuple(a for a in legal if tier_of(a) == self.tier)
            if offered:
                out[seat] = (*offered, PASS)
                self._asked.add((seat, self.tier))
        self._waiting.update(out)
        return out

    def answer(self, seat: int, action: Action) -> None:
        """``seat`` answered its outstanding ask with ``action`` (one of the options it
        was offered; a default counts as an answer)."""
        if seat not in self._waiting:
            raise ValueError(f"seat {seat} has no claim ask outstanding")
        self._waiting.discard(seat)
        if seat not in self.tiered:
            self._full[seat] = action
        else:
            self._tier_answers[seat].add(self.tier)
            if action is not PASS:
                self._claimed[seat] = action
        self._advance()

    @property
    def done(self) -> bool:
        """Whether the outcome is known and every seat asked has answered."""
        return self.settled and not self._waiting and len(self._full) == self._untiered

    def decisions(self) -> dict[int, Action]:
        """One decision per claim seat, in priority order, to apply to the referee."""
        if not self.done:
            raise ValueError("the claims are not settled yet")
        full, claimed = self._full, self._claimed
        return {s: full[s] if s in full else claimed.get(s, PASS) for s in self.claims}

    def overridden(self) -> dict[int, int]:
        """The seats whose answered claim lost, each with the seat that took the tile
        (any claim answered settles its tier, so someone did)."""
        taker = self.taker
        if taker is None:
            return {}
        return {s: taker for s, a in self.decisions().items() if a is not PASS and s != taker}

    # -- internals --

    @property
    def _untiered(self) -> int:
        return len(self.claims) - len(self.tiered)

    def _answer_at(self, seat: int, tier: int) -> Action | bool | None:
        """``seat``'s answer as it bears on ``tier``: its claim at that tier, ``None``
        for no claim there, ``False`` if not known yet."""
        if seat in self.tiered:
            if tier not in self._tier_answers[seat]:
                return False
            claimed = self._claimed.get(seat)
            return claimed if claimed is not None and tier_of(claimed) == tier else None
        full = self._full.get(seat)
        if full is None:
            return False
        return full if tier_of(full) == tier else None

    def _advance(self) -> None:
        """Move through the tiers while each is decided: a claim at the tier settles the
        outcome (the first from the discarder's next seat); no claim moves on."""
        while not self.settled:
            tier = self.tier
            contenders = [s for s, legal in self.claims.items() if _offers(legal, tier)]
            answers = [self._answer_at(s, tier) for s in contenders]
            if any(a is False for a in answers):
                return
            takers = [s for s, a in zip(contenders, answers, strict=True) if a]
            if takers:
                self.taker, self.settled = takers[0], True
            elif tier == CHOW_TIER:
                self.settled = True
            else:
                self.tier += 1


def _offers(legal: tuple[Action, ...], tier: int) -> bool:
    return any(tier_of(a) == tier for a in legal)
