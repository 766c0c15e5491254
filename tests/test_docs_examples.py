"""Every Python example of the cookbook runs as written (issue 18); the README's runs in
``tests/test_readme.py``.

On a cookbook page, a ```python block that starts with ``# file: NAME.py`` is a file to
save; the page's other Python blocks then run in order, in one namespace, in the folder
that holds those files (as a reader would run them). Fragments written "in your bot" may
use ``view``, ``request`` and ``rng``: the view and request of the seat to act at the start
of a seeded hand, and a seeded ``random.Random`` (the cookbook's index says so).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COOKBOOK = ROOT / "docs" / "cookbook"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
_FILE = re.compile(r"# file: ([\w/]+\.py)\n")


def python_blocks(text: str) -> list[str]:
    """The ```python blocks of a Markdown text, in order."""
    return _BLOCK.findall(text)


def test_blocks_are_found() -> None:
    text = "a\n```python\nx = 1\n```\n```sh\nls\n```\n```python\n# file: a.py\ny = 2\n```\n"
    assert python_blocks(text) == ["x = 1\n", "# file: a.py\ny = 2\n"]


PAGES = sorted(COOKBOOK.glob("*.md"))


def _bot_context() -> dict[str, object]:
    """``view``, ``request`` and ``rng`` as a bot has them on its first decision."""
    import random
    import time

    from protocol.hand_state import HandState
    from sdk.bot import DecisionRequest
    from sdk.view import GameView

    hand = HandState.new(seed=7, dealer=0)
    seat, legal = next(iter(hand.pending().items()))
    view = GameView(hand.view(seat))
    request = DecisionRequest(legal, time.monotonic() + 3.0, drawn_tile=view.drawn_tile)
    return {"view": view, "request": request, "rng": random.Random(7)}


def test_every_cookbook_topic_has_a_page() -> None:
    names = {p.stem for p in PAGES}
    topics = {"claims", "defence", "time-left", "process-pool", "logging", "testing"}
    assert topics | {"records", "tournament", "index"} <= names


@pytest.mark.parametrize(
    "page", [p for p in PAGES if python_blocks(p.read_text())], ids=lambda p: p.stem
)
def test_cookbook_examples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = python_blocks(page.read_text(encoding="utf-8"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    scripts = []
    for block in blocks:
        named = _FILE.match(block)
        if named:
            (tmp_path / named.group(1)).write_text(block, encoding="utf-8")
            monkeypatch.delitem(sys.modules, named.group(1)[:-3], raising=False)
        else:
            scripts.append(block)
    assert scripts, f"{page.name}: no example runs the code it shows"
    namespace = {"__name__": f"cookbook_{page.stem.replace('-', '_')}", **_bot_context()}
    with contextlib.redirect_stdout(io.StringIO()):
        for i, script in enumerate(scripts):
            exec(compile(script, f"{page.name}[{i}]", "exec"), namespace)
    assert os.getcwd() == str(tmp_path)
