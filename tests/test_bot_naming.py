"""One rule for naming a bot (sdk.botspec), the same in --opponents, the arena and the
server's --house: house name, module, module:Class, file, file:Class."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from bots.greedy import GreedyBot
from sdk.arena.loader import BotLoadError, load_bot
from sdk.botspec import canonical_spec, house_names, resolve_bot

BOT_FILE = """
from sdk.bot import Bot

class MyBot(Bot):
    name = "mine"

    def choose(self, view, request):
        return request.default()

class Other(Bot):
    name = "other"

    def choose(self, view, request):
        return request.legal_actions[-1]

BOT = MyBot
"""


@pytest.fixture
def bot_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "mybot.py"
    path.write_text(textwrap.dedent(BOT_FILE))
    monkeypatch.chdir(tmp_path)
    return path


def test_house_names_are_the_modules_of_bots() -> None:
    names = house_names()
    assert {"random", "greedy", "defensive"} <= set(names) and names == sorted(names)


@pytest.mark.parametrize(
    "spec", ["greedy", "bots.greedy", "bots.greedy:GreedyBot", "greedy:GreedyBot"]
)
def test_house_name_module_and_class_name_the_same_bot(spec: str) -> None:
    assert resolve_bot(spec) is GreedyBot


def test_a_plain_module_on_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "plainbot.py").write_text(textwrap.dedent(BOT_FILE))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "plainbot", raising=False)
    assert load_bot("plainbot").label == "mine"
    assert load_bot("plainbot:Other").label == "other"


@pytest.mark.parametrize(
    ("spec", "label"),
    [("./mybot.py", "mine"), ("mybot.py:Other", "other"), ("./mybot.py:MyBot", "mine")],
)
def test_a_file_path_with_or_without_a_class(bot_file: Path, spec: str, label: str) -> None:
    factory = load_bot(spec)
    assert factory.label == label
    assert factory.spec.startswith(str(bot_file))  # absolute: workers resolve it anywhere


def test_canonical_specs() -> None:
    assert canonical_spec("defensive") == "bots.defensive"
    assert canonical_spec("defensive:DefensiveBot") == "bots.defensive:DefensiveBot"
    assert canonical_spec("mypkg.bot") == "mypkg.bot"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("gredy", "no bot 'gredy': it is not a house bot (defensive, expect, greedy, "),
        ("./missing.py", "bot './missing.py': no such file "),
        ("./mybot.py:Nope", "has no bot class or factory named 'Nope'"),
        ("", "no bot named '': give a house bot"),
    ],
)
def test_errors_say_what_is_wrong_and_list_house_names(
    bot_file: Path, spec: str, message: str
) -> None:
    with pytest.raises(BotLoadError) as info:
        load_bot(spec)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_file_that_fails_to_import_is_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def choose(:\n")
    with pytest.raises(BotLoadError, match=r"failed to import: SyntaxError: .*broken.py, line 1"):
        load_bot(str(broken))
    raising = tmp_path / "raising.py"
    raising.write_text("import no_such_dep_xyz\n")
    with pytest.raises(
        BotLoadError, match="failed to import: ModuleNotFoundError: No module named 'no_such_dep"
    ):
        load_bot(str(raising))


def test_opponents_take_every_form(bot_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from bots.random import RandomBot
    from sdk.cli import main

    argv = ["--hands", "1", "--opponents", "greedy,./mybot.py,mybot.py:Other", "--json"]
    assert main(RandomBot, argv) == 0
    names = [p["name"] for p in json.loads(capsys.readouterr().out)["players"]]
    assert names == ["random", "greedy", "mine", "other"]


def test_the_arena_takes_a_file(bot_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sdk.arena.cli import main

    argv = ["./mybot.py", "greedy", "random", "mybot.py:Other", "--hands", "4"]
    assert main([*argv, "--match-hands", "1", "--workers", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "mine" in out and "other" in out


def test_the_server_house_option_reads_the_same_rule(bot_file: Path) -> None:
    from sdk.server.__main__ import build_config, parser

    config = build_config(parser().parse_args(["--house", "me=./mybot.py:Other"]))
    assert config.house_bots["me"] == f"{bot_file}:Other"
    assert load_bot(config.house_bots["me"]).label == "other"
