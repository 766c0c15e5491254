"""The common command line: local matches, a server match, and the exit codes."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from loopback import LoopbackServer
from websockets.asyncio.server import ServerConnection, serve

from bots.random import RandomBot
from sdk.bot import Bot
from sdk.cli import EXIT_FAILED, EXIT_OK, EXIT_PROTOCOL, EXIT_USAGE, BotOptions, main, run


def test_local_prints_the_standings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(RandomBot, ["--local", "--hands", "2", "--seed", "3"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "2 hands, seed 3" in out and "random (you)" in out and "rank" in out


def test_local_json_with_named_opponents(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--hands", "1", "--opponents", "random,bots.random,bots.random:RandomBot", "--json"]
    assert main(RandomBot, argv) == EXIT_OK
    result = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in result["players"]] == ["random"] * 4
    assert len(result["hands"]) == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["--opponents", "random,random"],
        ["--opponents", "no_such_module_xyz.bot"],
        ["--tcp", "localhost"],
        ["--url", "ws://x", "--line"],
        ["--safety-margin", "5"],
        ["--hands", "1", "--log-file", "/proc/no-such-dir/bot.log"],  # refused before playing
    ],
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(RandomBot, argv) == EXIT_USAGE
    assert "error" in capsys.readouterr().err


@pytest.mark.parametrize("mode", [["--line"], ["--tcp", "127.0.0.1:9"], ["--url", "ws://x/v1/ws"]])
def test_save_log_is_for_local_matches_only(
    mode: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # a remote match's record is kept by its server or referee: refused before connecting,
    # rather than ignored after a whole match
    record = tmp_path / "game.jsonl"
    assert main(RandomBot, [*mode, "--save-log", str(record)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "--save-log works with --local only" in err and "Traceback" not in err
    assert not record.exists()


def test_run_exits_with_the_code() -> None:
    with pytest.raises(SystemExit) as info:
        run(RandomBot, ["--hands", "1", "--json"])
    assert info.value.code == EXIT_OK


async def test_url_plays_a_match_on_a_server(capsys: pytest.CaptureFixture[str]) -> None:
    async with LoopbackServer(seed=1, hands=1, remote=(0,)) as server:
        game = asyncio.create_task(server.play())
        argv = ["--url", server.url, "--token", server.tokens[0], "--strict", "--json"]
        code = await asyncio.to_thread(main, RandomBot, argv)
        await asyncio.wait_for(game, 10)
    assert code == EXIT_OK
    result = json.loads(capsys.readouterr().out)
    assert result["completed"] and result["seat"] == 0 and result["timing"]["decisions"] > 0


async def test_a_refused_token_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    async with LoopbackServer(seed=1, hands=1, remote=(0,)) as server:
        argv = ["--url", server.url, "--token", "wrong", "--reconnect-attempts", "1"]
        assert await asyncio.to_thread(main, RandomBot, argv) == EXIT_FAILED
    assert "error:" in capsys.readouterr().err


async def test_a_server_of_another_protocol_version_exits_3(
    capsys: pytest.CaptureFixture[str],
) -> None:
    async def welcome_v2(ws: ServerConnection) -> None:
        await ws.recv()
        await ws.send(
            '{"type": "welcome", "seq": 0, "protocol_version": 2, "seat": 0, '
            '"match_id": "m", "table_id": "t"}'
        )
        await ws.wait_closed()

    async with serve(welcome_v2, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        argv = ["--url", f"ws://127.0.0.1:{port}/v1/ws", "--token", "t"]
        assert await asyncio.to_thread(main, RandomBot, argv) == EXIT_PROTOCOL
    assert "protocol error" in capsys.readouterr().err


def test_an_in_process_run_leaves_the_root_logger_as_it_was(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # main() runs in-process too (tests, wrappers): a handler left on the root logger
    # would write to this test's stderr after it is closed, a traceback per record.
    root = logging.getLogger()
    before = (root.handlers[:], root.level)
    assert main(RandomBot, ["--local", "--hands", "1", "--log-level", "DEBUG"]) == EXIT_OK
    assert (root.handlers, root.level) == before


def _add_depth(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--depth", type=int, default=2)


def _make_depth(args: argparse.Namespace) -> Callable[..., Bot]:
    if args.depth < 1:
        raise ValueError(f"--depth must be at least 1, not {args.depth}")
    made.append(args.depth)
    return RandomBot


made: list[int] = []


def test_a_bot_with_options_of_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    options = BotOptions(_add_depth, _make_depth)
    assert main(RandomBot, ["--hands", "1", "--depth", "5", "--json"], options=options) == EXIT_OK
    assert made[-1] == 5 and json.loads(capsys.readouterr().out)["players"]
    assert main(RandomBot, ["--depth", "0"], options=options) == EXIT_USAGE
    assert "error: --depth must be at least 1, not 0" in capsys.readouterr().err
    assert main(RandomBot, ["--help"], options=options) == EXIT_OK
    assert "--depth DEPTH" in capsys.readouterr().out
