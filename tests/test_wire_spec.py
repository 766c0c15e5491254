"""Every JSON example in protocol/PROTOCOL.md decodes with the models (no spec drift)."""

from __future__ import annotations

import re
from pathlib import Path

from protocol.wire import rest
from protocol.wire.codec import decode_client_frame, decode_server_frame

SPEC = Path(__file__).resolve().parent.parent / "protocol" / "PROTOCOL.md"
BLOCK = re.compile(r"```json (\S+)\n(.*?)\n```", re.S)


def test_every_example_in_the_spec_is_a_valid_message() -> None:
    blocks = BLOCK.findall(SPEC.read_text())
    kinds = {"server": 0, "client": 0, "rest": 0}
    for tag, body in blocks:
        if tag == "server":
            decode_server_frame(body)
        elif tag == "client":
            decode_client_frame(body)
        else:
            name = tag.removeprefix("rest:")
            getattr(rest, name).model_validate_json(body)
            tag = "rest"
        kinds[tag] += 1
    assert kinds["server"] >= 7 and kinds["client"] >= 3 and kinds["rest"] >= 3
    types = {
        re.search(r'"type": "(\w+)"', b).group(1)
        for t, b in blocks
        if t != "rest" and t[:4] != "rest"
    }  # type: ignore[union-attr]
    assert types >= {
        "welcome",
        "event",
        "request",
        "ack",
        "rejected",
        "error",
        "bye",
        "hello",
        "ready",
        "reply",
    }
