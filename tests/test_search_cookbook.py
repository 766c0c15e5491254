"""docs/cookbook/search.md: its Python blocks run, in order, as one program."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

COOKBOOK = Path(__file__).resolve().parent.parent / "docs" / "cookbook" / "search.md"


def test_cookbook_examples_run_in_order() -> None:
    blocks = re.findall(r"```python\n(.*?)```", COOKBOOK.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 4
    namespace: dict[str, object] = {}
    with contextlib.redirect_stdout(io.StringIO()) as out:
        for block in blocks:
            exec(compile(block, str(COOKBOOK), "exec"), namespace)
    assert "discard" in out.getvalue()
