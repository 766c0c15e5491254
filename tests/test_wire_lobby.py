"""Protocol v1 lobby handshake: a hello without a token, a welcome that carries one."""

from __future__ import annotations

import json

from protocol.wire import WireClient, WireServerSeat


def test_lobby_client_learns_its_token_from_welcome_and_resumes_with_it() -> None:
    client = WireClient(None, "greedy")
    hello = json.loads(client.hello())
    assert "token" not in hello or hello["token"] is None
    seat = WireServerSeat(2, "secret-2", "m-1", "t-1")
    seat.connect()
    # the server seats a lobby connection by presenting the hello with the seat's token
    assert seat.receive_frame(json.dumps({**hello, "token": seat.token}), now=0.0) is None
    frames = seat.data_to_send()
    welcome = json.loads(frames[0])
    assert welcome["type"] == "welcome" and welcome["token"] == "secret-2"
    client.receive_frame(frames[0])
    assert client.token == "secret-2" and client.seat == 2
    assert json.loads(client.hello())["token"] == "secret-2"


def test_line_protocol_and_referee_do_not_import_pydantic() -> None:
    import subprocess
    import sys

    code = "import sys, protocol, protocol.line.adapter, protocol.match; print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
