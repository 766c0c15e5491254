"""One rule for naming a bot, shared by every command that takes one.

``--opponents`` (:mod:`sdk.cli`), the arena's ``BOT`` arguments (:mod:`sdk.arena`), the
server's ``--house`` and the reviewer all read a bot *spec* the same way:

============================  ==============================================================
``greedy``                    a house bot: a module of the ``bots`` package
                              (:func:`house_names` lists them)
``mybot``, ``bots.greedy``    an importable module: its ``BOT`` attribute, or the one
                              :class:`~sdk.bot.Bot` subclass it defines
``pkg.mod:MyBot``             the attribute ``MyBot`` of that module: a Bot subclass or any
                              callable returning a Bot (a factory)
``./mybot.py``                a Python file, read as a module (so a bot needs no package)
``./mybot.py:MyBot``          the attribute ``MyBot`` of that file
``SPEC?key=value,...``        any of the above, made with those keyword arguments
                              (``bots.neural?weights=run/policy.npz``; quote it in a shell)
============================  ==============================================================

A spec is a file when it ends in ``.py`` or contains a path separator; a bare name is a
house bot when the ``bots`` package has that module, otherwise a module. A spec that
names nothing raises :class:`BotLoadError`, whose one-line message lists the house names.
Option values are read as Python literals where they are one (``samples=64`` is an int,
``fast=True`` a bool) and as text otherwise (a path).

>>> resolve_bot("random").__name__, resolve_bot("bots.greedy:GreedyBot").__name__
('RandomBot', 'GreedyBot')
>>> "greedy" in house_names()
True
>>> try:
...     resolve_bot("gredy")
... except BotLoadError as exc:
...     print(exc)  # doctest: +ELLIPSIS
no bot 'gredy': it is not a house bot (defensive, expect, greedy, ...), a module on the path, or a file
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib
import importlib.util
import inspect
import pkgutil
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from protocol.errors import MahjongError
from sdk.bot import Bot

__all__ = ["HOUSE_PACKAGE", "BotLoadError", "canonical_spec", "house_names", "resolve_bot"]

HOUSE_PACKAGE = "bots"
"""The package whose modules are the house bots (``greedy`` means ``bots.greedy``)."""

SPEC_FORMS = "a house bot, a module (mybot, pkg.mod), module:Class, or a file (./mybot.py[:Class])"
"""The accepted forms, for help texts."""


PROGRAM_PREFIXES = ("cmd:", "tcp:")
"""Specs that name a line-protocol program (:mod:`sdk.programs`), not a Python bot."""


class BotLoadError(MahjongError):
    """A bot spec could not be turned into a bot; the message says why in one line."""


def house_names() -> list[str]:
    """The house bots' names, sorted: the public modules of the ``bots`` package."""
    found = importlib.util.find_spec(HOUSE_PACKAGE)
    if found is None or not found.submodule_search_locations:
        return []
    return sorted(
        m.name
        for m in pkgutil.iter_modules(found.submodule_search_locations)
        if not m.name.startswith("_")
    )


def canonical_spec(spec: str) -> str:
    """The spec in a form that names the same bot from any process and directory: a
    house name becomes its module, a file path becomes absolute.

    >>> canonical_spec("greedy"), canonical_spec("pkg.mod:Bot")
    ('bots.greedy', 'pkg.mod:Bot')
    """
    spec = spec.strip()
    if spec.startswith(PROGRAM_PREFIXES):  # a line-protocol program: sdk.programs
        return spec
    spec, sep, options = spec.partition("?")
    path, attr = _split(spec)
    tail = (f":{attr}" if attr else "") + sep + options
    if _is_file(path):
        return str(Path(path).expanduser().resolve()) + tail
    if "." not in path and path in house_names():
        return f"{HOUSE_PACKAGE}.{path}" + tail
    return spec + sep + options


def resolve_bot(spec: str) -> Callable[..., Bot]:
    """The Bot subclass or factory that ``spec`` names; raises :class:`BotLoadError`."""
    if not isinstance(spec, str) or not spec.strip():
        raise BotLoadError(f"no bot named {spec!r}: give {SPEC_FORMS}")
    spec = spec.strip()
    if spec.startswith(PROGRAM_PREFIXES):
        raise BotLoadError(
            f"{spec!r} is a program: it is run per match (sdk.programs), not imported"
        )
    named, _, options = canonical_spec(spec).partition("?")
    path, attr = _split(named)
    module = _load_file(path, spec) if _is_file(path) else _import(path, spec)
    if attr:
        target = getattr(module, attr, None)
        if target is None or not callable(target):
            raise BotLoadError(f"{spec!r}: {path} has no bot class or factory named {attr!r}")
    else:
        target = _module_bot(module, spec)
    return functools.partial(target, **_options(options, spec)) if options else target


def _options(text: str, spec: str) -> dict[str, object]:
    """``key=value,key=value`` as keyword arguments, values read as literals if they are.

    >>> _options("weights=run/a.npz,samples=64", "x")
    {'weights': 'run/a.npz', 'samples': 64}
    """
    options: dict[str, object] = {}
    for item in text.split(","):
        key, sep, value = item.partition("=")
        if not sep or not key.strip().isidentifier():
            raise BotLoadError(f"{spec!r}: options are key=value[,key=value...], not {item!r}")
        try:
            options[key.strip()] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            options[key.strip()] = value
    return options


def _split(spec: str) -> tuple[str, str]:
    """``path[:attr]``; the colon of a Windows drive (``C:\\bots\\x.py``) is not one."""
    head, sep, attr = spec.rpartition(":")
    if sep and head and attr.isidentifier():
        return head, attr
    return spec, ""


def _is_file(path: str) -> bool:
    return path.endswith(".py") or "/" in path or "\\" in path


def _unknown(spec: str) -> BotLoadError:
    houses = ", ".join(house_names()) or "none installed"
    return BotLoadError(
        f"no bot {spec!r}: it is not a house bot ({houses}), a module on the path, or a file"
    )


def _import(module_name: str, spec: str) -> ModuleType:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and (module_name == exc.name or module_name.startswith(exc.name + ".")):
            raise _unknown(spec) from None
        raise BotLoadError(f"bot {spec!r} failed to import: {_describe(exc)}") from None
    except Exception as exc:
        raise BotLoadError(f"bot {spec!r} failed to import: {_describe(exc)}") from None


def _load_file(path: str, spec: str) -> ModuleType:
    file = Path(path)
    if not file.is_file():
        raise BotLoadError(f"bot {spec!r}: no such file {path}")
    digest = hashlib.sha1(str(file).encode()).hexdigest()[:10]
    name = f"_botfile_{file.stem}_{digest}"
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    module_spec = importlib.util.spec_from_file_location(name, file)
    if module_spec is None or module_spec.loader is None:
        raise BotLoadError(f"bot {spec!r}: {path} is not a Python file")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise BotLoadError(f"bot {spec!r} failed to import: {_describe(exc)}") from None
    return module


def _describe(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        return f"SyntaxError: {exc.msg} ({Path(exc.filename or '?').name}, line {exc.lineno})"
    return f"{type(exc).__name__}: {exc}"


def _module_bot(module: ModuleType, spec: str) -> Callable[..., Bot]:
    declared = getattr(module, "BOT", None)
    if declared is not None:
        if not callable(declared):
            raise BotLoadError(f"{spec}: BOT must be a Bot subclass or a factory")
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
            f"{spec!r} must define exactly one Bot subclass or set BOT; found {names}"
        )
    return found[0]
