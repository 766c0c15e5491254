"""A house bot that takes its time: it sleeps ``DELAY`` seconds per decision (like a
bot that searches), then plays the first legal action. The server must keep serving
everyone else meanwhile."""

from __future__ import annotations

import time

from protocol.actions import Action
from sdk.bot import Bot, DecisionRequest
from sdk.view import GameView

DELAY = 0.3


class SlowBot(Bot):
    """Sleeps, then answers the first legal action."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__("slow")

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        time.sleep(DELAY)
        return request.legal_actions[0]
