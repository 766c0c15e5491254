"""Finding a bot from the command line, and making a fresh, seeded one for every match.

A bot is named by a *spec* read by the one rule of :mod:`sdk.botspec` (a house name such
as ``greedy``, a module, ``module:Class``, or a file ``./mybot.py[:Class]``), so
``python -m sdk.arena greedy greedy ./mybot.py bots.random`` works.

Seeding, so that a run is reproducible whatever the backend and the number of workers:
every match makes a new bot object per player (``on_match_start`` runs each match), and

1. if the class or factory accepts a ``seed`` parameter, it is called as ``factory(seed=s)``;
   otherwise as ``factory()``;
2. then, if the bot has an ``rng`` attribute with a ``seed`` method (a ``random.Random``),
   ``bot.rng.seed(s)`` is called;
3. the global :mod:`random` module is seeded per match too (and restored afterwards), so
   a bot that calls ``random.choice`` is reproducible as well.

``s`` is derived from the arena seed, the deal and the player, never from the seat, so a
bot draws the same random numbers in every seating of a deal.

>>> factory = load_bot("sdk.bot:Bot")
>>> factory.label
'Bot'
>>> load_bot("greedy").spec, load_bot("greedy").label
('bots.greedy', 'greedy')
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sdk.bot import Bot
from sdk.botspec import SPEC_FORMS, BotLoadError, canonical_spec, resolve_bot
from sdk.programs import ProgramSpec, is_program, parse_program

__all__ = ["BotFactory", "BotLoadError", "load_bot"]

BotSource = str | type[Bot] | Callable[..., Bot]
"""What the API accepts for a bot: a spec string, a Bot subclass or a factory."""


@dataclass(frozen=True)
class BotFactory:
    """A picklable recipe for fresh bots: a spec string (imported again in each worker)
    or a class or factory object (pickled by reference, so it must be importable)."""

    source: str | Callable[..., Bot]
    label: str
    _target: Callable[..., Bot] | None = field(default=None, compare=False, repr=False)
    program: ProgramSpec | None = None
    """A line-protocol program (``cmd:`` / ``tcp:``): run per match, never made here."""

    def __getstate__(self) -> dict[str, Any]:
        target = None if isinstance(self.source, str) else self.source
        return {
            "source": self.source,
            "label": self.label,
            "_target": target,
            "program": self.program,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        for key, value in state.items():
            object.__setattr__(self, key, value)

    @property
    def spec(self) -> str:
        """The spec string, or ``module:qualname`` of a class or factory object."""
        if isinstance(self.source, str):
            return self.source
        return f"{self.source.__module__}:{getattr(self.source, '__qualname__', self.label)}"

    def target(self) -> Callable[..., Bot]:
        """The class or factory (imported on first use in this process)."""
        if self._target is None:
            assert isinstance(self.source, str)
            object.__setattr__(self, "_target", resolve_bot(self.source))
        assert self._target is not None
        return self._target

    def make(self, seed: int) -> Bot:
        """A new bot seeded with ``seed`` (see the module doc for the convention)."""
        if self.program is not None:
            raise BotLoadError(f"{self.spec} is a program: it is started per match, not made")
        target = self.target()
        bot = target(seed=seed) if _accepts_seed(target) else target()
        if not isinstance(bot, Bot):
            raise BotLoadError(f"{self.spec} made {bot!r}, which is not a sdk.bot.Bot")
        rng = getattr(bot, "rng", None)
        if callable(getattr(rng, "seed", None)):
            rng.seed(seed)  # type: ignore[union-attr]
        return bot


def load_bot(source: BotSource, program_cwd: str | None = None) -> BotFactory:
    """A :class:`BotFactory` for a spec string, a Bot subclass or a factory. The spec is
    imported and one bot made now (its ``name`` is the label), so a typo or a broken
    constructor fails before any match is played. A program spec (``cmd:`` / ``tcp:``,
    :mod:`sdk.programs`) is checked now and run per match (in ``program_cwd``, if given).

    >>> load_bot("cmd:sh -c 'exit 0'").label
    'sh'
    """
    if isinstance(source, BotFactory):
        return source
    if is_program(source):
        program = parse_program(source, program_cwd)  # type: ignore[arg-type]
        return BotFactory(program.spec, program.name, program=program)
    if isinstance(source, str):
        target = resolve_bot(source)
        source = canonical_spec(source)
    elif callable(source):
        target = source
    else:
        raise BotLoadError(f"not a bot: {source!r} (give {SPEC_FORMS}, or a class)")
    try:
        sample = BotFactory(source, "", target).make(0)
    except BotLoadError:
        raise
    except Exception as exc:
        what = source if isinstance(source, str) else repr(source)
        raise BotLoadError(f"bot {what}: making one failed: {type(exc).__name__}: {exc}") from None
    return BotFactory(source, sample.name or type(sample).__name__, target)


def _accepts_seed(target: Callable[..., Any]) -> bool:
    """Whether ``target`` takes a ``seed`` parameter (read once per target: reading a
    signature costs more than making a small bot, and a bot is made every match)."""
    try:
        seeded = _SEEDED.get(target)
    except TypeError:  # an unhashable factory: not kept
        return _reads_seed(target)
    if seeded is None:
        seeded = _SEEDED[target] = _reads_seed(target)
    return seeded


def _reads_seed(target: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(target).parameters
    except (TypeError, ValueError):
        return False
    return "seed" in params


_SEEDED: dict[Callable[..., Any], bool] = {}
