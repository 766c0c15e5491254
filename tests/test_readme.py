"""The README's example bot runs as written, and its quick start names real modules."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def test_the_example_bot_plays_a_local_match(tmp_path: Path) -> None:
    (code,) = re.findall(r"```python\n(# mybot\.py.*?)```", README, re.S)
    script = tmp_path / "mybot.py"
    script.write_text(code, encoding="utf-8")
    out = subprocess.run(
        [sys.executable, str(script), "--local", "--hands", "2", "--opponents", "bots.random"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "MyBot" in out.stdout


def test_quick_start_is_two_commands_install_and_test() -> None:
    block = re.search(r"## Quick start.*?```sh\n(.*?)```", README, re.S)
    assert block is not None
    lines = [line for line in block.group(1).splitlines() if line.strip()]
    assert len(lines) == 2
    assert lines[0].startswith("pip install . && python -m sdk.arena bots.")
    assert lines[1] == "pip install '.[dev]' && python -m pytest"
