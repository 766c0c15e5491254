"""Errors a person can act on (issue 18): for each mistake seen in use, the exact one-line
message, no traceback, and the exit code the ``--help`` text documents (2 usage,
1 failure, 3 protocol)."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path

import httpx
import pytest

from bots.random import RandomBot
from protocol.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from sdk.server.config import ServerConfig
from sdk.server.runner import ServerHandle, running_server

ROOT = Path(__file__).resolve().parent.parent


def _bot(argv: Sequence[str]) -> int:
    from sdk.cli import main

    return main(RandomBot, list(argv))


def _arena(argv: Sequence[str]) -> int:
    from sdk.arena.cli import main

    return main(list(argv))


def _server(argv: Sequence[str]) -> int:
    from sdk.server.__main__ import main

    return main(list(argv))


def _run(
    command: Callable[[Sequence[str]], int], argv: Sequence[str], capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    code = command(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("\n") == 1, f"not one line: {err!r}"
    return code, err.rstrip("\n")


@pytest.mark.parametrize(
    ("command", "argv", "message"),
    [
        (
            _bot,
            ["--url", "http://127.0.0.1:8765/v1/ws"],
            "python -m bots.random: error: --url wants a WebSocket URL such as "
            "ws://127.0.0.1:8765/v1/ws, not 'http://127.0.0.1:8765/v1/ws' (see --help)",
        ),
        (
            _bot,
            ["--tcp", "127.0.0.1:9", "--token", "two words"],
            "python -m bots.random: error: a line seat token is printable ASCII without "
            "spaces, not 'two words' (see --help)",
        ),
        (
            _bot,
            ["--hands", "0"],
            "python -m bots.random: error: --hands must be at least 1, not 0 (see --help)",
        ),
        (
            _arena,
            ["greedy", "greedy", "random", "random", "--hands", "0"],
            "python -m sdk.arena: error: --hands must be at least 1, not 0 (see --help)",
        ),
        (
            _server,
            ["--hands", "0", "--db", ":memory:"],
            "python -m sdk.server: error: --hands must be at least 1, not 0 (see --help)",
        ),
        (
            _arena,
            ["./no_such_bot_file.py", "greedy", "random", "random"],
            f"error: bot './no_such_bot_file.py': no such file {Path.cwd() / 'no_such_bot_file.py'}",
        ),
        (
            _server,
            ["--house", "mine=gredy", "--db", ":memory:"],
            "python -m sdk.server: error: house bot 'mine': no bot 'gredy': it is not a house "
            "bot (defensive, expect, greedy, ",
        ),
        (
            _server,
            ["--seat", "cmd:", "--db", ":memory:"],
            "python -m sdk.server: error: --seat 'cmd:': no program after cmd: (see --help)",
        ),
        (
            _server,
            ["--seat", "cmd:'./my bot", "--db", ":memory:"],
            'python -m sdk.server: error: --seat "cmd:\'./my bot": No closing quotation',
        ),
        (
            _server,
            ["--port", "99999", "--db", ":memory:"],
            "python -m sdk.server: error: --port must be 0..65535, not 99999 (see --help)",
        ),
        (
            _server,
            ["--line-port", "-1", "--db", ":memory:"],
            "python -m sdk.server: error: --line-port must be 0..65535, not -1 (see --help)",
        ),
        (
            _server,
            ["--rest-body-timeout", "0", "--db", ":memory:"],
            "python -m sdk.server: error: --rest-body-timeout must be positive, not 0.0 (see --help)",
        ),
        (
            _server,
            ["--decision-ms", "1", "--db", ":memory:"],
            "python -m sdk.server: error: --decision-ms must be 10..600000, not 1 (see --help)",
        ),
        (
            _server,
            ["--db", "/no/such/dir/league.db"],
            "python -m sdk.server: error: --db /no/such/dir/league.db: unable to open database "
            "file (see --help)",
        ),
        (
            _server,
            ["--seat", "gredy", "--db", ":memory:"],
            "python -m sdk.server: error: --seat 'gredy': no house bot 'gredy' (defensive, ",
        ),
    ],
)
def test_usage_errors(
    command: Callable[[Sequence[str]], int],
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, err = _run(command, argv, capsys)
    assert code == EXIT_USAGE
    assert err.startswith(message)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_server_that_is_not_running(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"ws://127.0.0.1:{_free_port()}/v1/ws"
    code, err = _run(_bot, ["--url", url, "--reconnect-attempts", "0"], capsys)
    assert code == EXIT_FAILED
    assert err == (
        f"error: cannot connect to {url}: is the server running? start it with python -m sdk.server"
    )


def test_a_server_that_is_not_running_is_one_line_within_two_seconds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the default policy logged ten reconnect warnings over 8 s before its one line
    url = f"ws://127.0.0.1:{_free_port()}/v1/ws"
    started = time.monotonic()
    code, err = _run(_bot, ["--url", url], capsys)
    assert time.monotonic() - started < 2.0
    assert code == EXIT_FAILED and err.startswith(f"error: cannot connect to {url}")


def test_a_port_already_taken(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, err = _run(_server, ["--port", str(port), "--db", ":memory:"], capsys)
    assert code == EXIT_FAILED
    assert err == (
        f"error: cannot listen on 127.0.0.1:{port} (Address already in use): is another "
        "server running there? pick another port with --port"
    )


def test_a_line_port_already_taken(capsys: pytest.CaptureFixture[str]) -> None:
    # the line listener starts with the app: this was a traceback and exit 3
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        argv = ["--port", str(_free_port()), "--line-port", str(port), "--db", ":memory:"]
        code, err = _run(_server, argv, capsys)
    assert code == EXIT_FAILED
    assert err == (
        f"error: cannot listen on 127.0.0.1:{port} (Address already in use): is another "
        "server running there? pick another port with --line-port"
    )


@pytest.fixture
async def server() -> AsyncIterator[ServerHandle]:
    async with running_server(ServerConfig(port=0, db_path=":memory:")) as handle:
        yield handle


async def test_a_wrong_websocket_path_fails_at_once(
    server: ServerHandle, capsys: pytest.CaptureFixture[str]
) -> None:
    url = server.ws_url.replace("/v1/ws", "/ws")
    start = time.monotonic()
    code, err = await asyncio.to_thread(_run, _bot, ["--url", url], capsys)
    assert time.monotonic() - start < 2.0  # not retried ten times
    assert code == EXIT_FAILED
    assert err == (
        f"error: the server refused the session (http_403): {url} answered HTTP 403 to the "
        "WebSocket handshake; check the URL's path (the local server's is /v1/ws)"
    )


async def test_a_bad_token_fails_at_once(
    server: ServerHandle, capsys: pytest.CaptureFixture[str]
) -> None:
    start = time.monotonic()
    argv = ["--url", server.ws_url, "--token", "not-a-token"]
    code, err = await asyncio.to_thread(_run, _bot, argv, capsys)
    assert time.monotonic() - start < 2.0
    assert code == EXIT_FAILED
    assert err == (
        "error: the server refused the session (bad_token): unknown token; check --token "
        "(or $TAIMAHJONG_TOKEN), or omit it to be seated by the lobby"
    )


async def test_no_token_on_a_server_whose_lobby_is_closed_says_to_get_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = ServerConfig(port=0, db_path=str(tmp_path / "adm.db"), admin_token="adm")
    async with running_server(config) as closed:
        argv = ["--url", closed.ws_url, "--reconnect-attempts", "0"]
        code, err = await asyncio.to_thread(_run, _bot, argv, capsys)
    assert code == EXIT_FAILED
    assert err == (
        "error: the server refused the session (bad_token): this server's lobby needs the "
        "admin token; a bot without a seat is not seated here: ask the server's operator for "
        "your seat's token and pass --token (or $TAIMAHJONG_TOKEN)"
    )


async def test_a_finished_match_token_does_not_replay_old_scores(
    server: ServerHandle, capsys: pytest.CaptureFixture[str]
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as http:
        seats = [{"seat": 0, "bot_name": "me", "transport": "ws"}]
        created = (
            await http.post("/v1/tables", json={"seed": 1, "hands": 1, "seats": seats})
        ).json()
    argv = ["--url", server.ws_url, "--token", created["tokens"]["0"], "--json"]
    assert await asyncio.to_thread(_bot, argv) == EXIT_OK
    capsys.readouterr()
    code, err = await asyncio.to_thread(_run, _bot, argv, capsys)
    assert code == EXIT_FAILED
    assert err == _MATCH_ENDED


_MATCH_ENDED = (
    "error: the server refused the session (bad_token): this token's match has ended; "
    "check --token (or $TAIMAHJONG_TOKEN), or omit it to be seated by the lobby"
)


async def test_a_token_of_a_table_dropped_from_memory_still_hears_its_match_ended(
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = ServerConfig(port=0, db_path=":memory:", finished_grace=0.05)
    async with (
        running_server(config) as server,
        httpx.AsyncClient(base_url=server.url) as http,
    ):
        seats = [{"seat": 0, "bot_name": "me", "transport": "ws"}]
        body = {"seed": 1, "hands": 1, "seats": seats}
        created = (await http.post("/v1/tables", json=body)).json()
        argv = ["--url", server.ws_url, "--token", created["tokens"]["0"], "--json"]
        assert await asyncio.to_thread(_bot, argv) == EXIT_OK
        capsys.readouterr()
        for _ in range(200):  # the table leaves memory finished_grace after its end
            if created["table_id"] not in server.server.tables:
                break
            await asyncio.sleep(0.02)
        assert created["table_id"] not in server.server.tables
        code, err = await asyncio.to_thread(_run, _bot, argv, capsys)
        unknown = [*argv[:3], "not-a-token", *argv[4:]]
        code_unknown, err_unknown = await asyncio.to_thread(_run, _bot, unknown, capsys)
    assert (code, err) == (EXIT_FAILED, _MATCH_ENDED)
    assert code_unknown == EXIT_FAILED and "unknown token" in err_unknown


def test_analyze_into_a_closed_pipe_ends_quietly() -> None:
    read, write = os.pipe()
    os.close(read)  # the reader (``| head``) is gone before the first byte
    try:
        done = subprocess.run(
            [sys.executable, "-m", "protocol.analyze", "123m 456p 789s 11s 23s EE C F", "--json"],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
    finally:
        os.close(write)
    assert done.stderr == "" and done.returncode == EXIT_OK


def test_wire_check_compares_without_writing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from protocol.wire.__main__ import main
    from protocol.wire.schema import SCHEMA_PATH

    assert main(["--check"]) == EXIT_OK
    assert capsys.readouterr().out == f"{SCHEMA_PATH} is up to date\n"
    stale = tmp_path / "schema.json"
    stale.write_text("{}")
    code, err = _run(main, ["--check", str(stale)], capsys)
    assert code == EXIT_FAILED and stale.read_text() == "{}"
    assert (
        err == f"error: {stale} is out of date: run python -m protocol.wire --schema to rewrite it"
    )
    code, err = _run(main, [], capsys)
    assert code == EXIT_USAGE
    assert err == (
        "python -m protocol.wire: error: say --schema to write the JSON Schema, or --check "
        "to compare it (see --help)"
    )


@pytest.mark.parametrize(
    "module",
    [
        "protocol.analyze",
        "protocol.score",
        "protocol.wire.__main__",
        "sdk.arena.cli",
        "sdk.server.__main__",
    ],
)
def test_help_documents_the_exit_codes(module: str, capsys: pytest.CaptureFixture[str]) -> None:
    import importlib

    assert importlib.import_module(module).main(["--help"]) == EXIT_OK
    text = " ".join(capsys.readouterr().out.split())
    assert "exit codes: 0 " in text and "2 usage error" in text


def test_bot_help_documents_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert _bot(["--help"]) == EXIT_OK
    text = " ".join(capsys.readouterr().out.split())
    assert "exit codes: 0 match played, 1 session failed" in text
    assert "2 usage error, 3 protocol error" in text
