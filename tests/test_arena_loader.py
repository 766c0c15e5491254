"""Loading bots from specs (the documented convention) and seeding them per match."""

from __future__ import annotations

import pickle
import random
import sys
import textwrap
from pathlib import Path

import pytest

from bots.random import RandomBot
from sdk.arena.loader import BotLoadError, load_bot


def _module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, body: str) -> str:
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(body))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    return name


def test_module_attribute_bot_and_explicit_class() -> None:
    by_module, by_class = load_bot("bots.random"), load_bot("bots.random:RandomBot")
    assert by_module.target() is by_class.target() is RandomBot
    assert (by_module.label, by_class.label) == ("random", "random")


def test_the_single_subclass_defined_in_a_module(tmp_path, monkeypatch) -> None:
    name = _module(
        tmp_path,
        monkeypatch,
        "one_bot_mod",
        """
        from sdk.bot import Bot
        from bots.random import RandomBot  # imported: does not count

        class Mine(Bot):
            def choose(self, view, request):
                return request.legal_actions[0]
        """,
    )
    assert load_bot(name).label == "Mine"


def test_two_candidates_are_an_error_naming_them(tmp_path, monkeypatch) -> None:
    name = _module(
        tmp_path,
        monkeypatch,
        "two_bots_mod",
        """
        from sdk.bot import Bot

        class A(Bot):
            pass

        class B(Bot):
            pass
        """,
    )
    with pytest.raises(BotLoadError, match=r"two_bots_mod:A, two_bots_mod:B"):
        load_bot(name)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_such_module_abc", "is not a house bot \\(defensive, expect, greedy"),
        ("bots.random:Nope", "has no bot class or factory named 'Nope'"),
        ("fractions:Fraction", "is not a sdk.bot.Bot"),
    ],
)
def test_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(BotLoadError, match=message):
        load_bot(spec)


def test_seed_parameter_rng_attribute_and_classes() -> None:
    import arena_bots  # the tests folder is on sys.path under pytest

    seeded = load_bot("arena_bots:SeededRandom").make(42)
    assert isinstance(seeded, arena_bots.SeededRandom) and seeded.seed == 42
    by_attr = load_bot(arena_bots.RngAttribute).make(42)
    assert by_attr.rng.random() == random.Random(42).random()
    assert load_bot(arena_bots.FirstLegal).make(42).name == "first"


def test_factories_pickle_without_their_import_cache() -> None:
    factory = load_bot("bots.random")
    clone = pickle.loads(pickle.dumps(factory))
    assert clone.source == "bots.random" and clone._target is None
    assert clone.target() is RandomBot and clone.label == "random"
