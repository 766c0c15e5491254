"""Finding a bot from the command line, and making a fresh, seeded one for every match.

The bot-loading convention (what ``python -m sdk.arena BOT ...`` accepts):

* ``pkg.mod:Name`` — the attribute ``Name`` of module ``pkg.mod``: a :class:`~sdk.bot.Bot`
  subclass, or any callable returning a :class:`~sdk.bot.Bot` (a factory).
* ``pkg.mod`` — the module's attribute ``BOT`` if it has one (a class or a factory, as
  above); otherwise the single :class:`~sdk.bot.Bot` subclass *defined* in that module
  (imported ones do not count). Two or more candidates is an error naming them.

Sample bots follow it: ``bots/random.py`` defines one ``Bot`` subclass (or sets ``BOT``),
so ``python -m sdk.arena bots.random bots.random bots.greedy bots.greedy`` works.

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
>>> load_bot("no_such_module_xyz")
Traceback (most recent call last):
...
sdk.arena.loader.BotLoadError: cannot import module 'no_such_module_xyz' for bot 'no_such_module_xyz'
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from protocol.errors import MahjongError
from sdk.bot import Bot

__all__ = ["BotFactory", "BotLoadError", "load_bot"]

BotSource = str | type[Bot] | Callable[..., Bot]
"""What the API accepts for a bot: a spec string, a Bot subclass or a factory."""


class BotLoadError(MahjongError):
    """A bot spec could not be turned into a bot."""


@dataclass(frozen=True)
class BotFactory:
    """A picklable recipe for fresh bots: a spec string (imported again in each worker)
    or a class or factory object (pickled by reference, so it must be importable)."""

    source: str | Callable[..., Bot]
    label: str
    _target: Callable[..., Bot] | None = field(default=None, compare=False, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        target = None if isinstance(self.source, str) else self.source
        return {"source": self.source, "label": self.label, "_target": target}

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
            object.__setattr__(self, "_target", _resolve(self.source))
        assert self._target is not None
        return self._target

    def make(self, seed: int) -> Bot:
        """A new bot seeded with ``seed`` (see the module doc for the convention)."""
        target = self.target()
        bot = target(seed=seed) if _accepts_seed(target) else target()
        if not isinstance(bot, Bot):
            raise BotLoadError(f"{self.spec} made {bot!r}, which is not a sdk.bot.Bot")
        rng = getattr(bot, "rng", None)
        if callable(getattr(rng, "seed", None)):
            rng.seed(seed)  # type: ignore[union-attr]
        return bot


def load_bot(source: BotSource) -> BotFactory:
    """A :class:`BotFactory` for a spec string, a Bot subclass or a factory. The spec is
    imported and one bot made now (its ``name`` is the label), so a typo or a broken
    constructor fails before any match is played."""
    if isinstance(source, BotFactory):
        return source
    if isinstance(source, str):
        target = _resolve(source)
    elif callable(source):
        target = source
    else:
        raise BotLoadError(f"not a bot: {source!r} (give 'pkg.mod', 'pkg.mod:Name' or a class)")
    sample = BotFactory(source, "", target).make(0)
    return BotFactory(source, sample.name or type(sample).__name__, target)


def _resolve(spec: str) -> Callable[..., Bot]:
    module_name, _, attr = spec.partition(":")
    module = _import(module_name, spec)
    if attr:
        target = getattr(module, attr, None)
        if target is None or not callable(target):
            raise BotLoadError(f"module {module_name!r} has no bot class or factory {attr!r}")
        return target  # type: ignore[no-any-return]
    return _module_bot(module, spec)


def _import(module_name: str, spec: str) -> ModuleType:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            raise BotLoadError(f"cannot import module {module_name!r} for bot {spec!r}") from None
        raise


def _module_bot(module: ModuleType, spec: str) -> Callable[..., Bot]:
    declared = getattr(module, "BOT", None)
    if declared is not None:
        if not callable(declared):
            raise BotLoadError(f"{spec}.BOT must be a Bot subclass or a factory")
        return declared  # type: ignore[no-any-return]
    found = [
        obj
        for obj in vars(module).values()
        if inspect.isclass(obj)
        and issubclass(obj, Bot)
        and obj.__module__ == module.__name__
        and not inspect.isabstract(obj)
    ]
    if len(found) != 1:
        names = ", ".join(f"{spec}:{c.__name__}" for c in found) or "none"
        raise BotLoadError(
            f"module {spec!r} must define exactly one Bot subclass or set BOT; found {names}"
        )
    return found[0]


def _accepts_seed(target: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(target).parameters
    except (TypeError, ValueError):
        return False
    return "seed" in params
