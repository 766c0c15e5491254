"""A house bot that claims everything it may (win, then kong, pung, chow) and otherwise
takes the first legal action: it makes claim windows crowded, for the claim-tier tests."""

from __future__ import annotations

from protocol.actions import Action
from sdk.bot import Bot, DecisionRequest
from sdk.view import GameView


class Claimer(Bot):
    """The first legal action: the referee lists win, kongs, pung, chows first."""

    name = "claimer"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        return request.legal_actions[0]
