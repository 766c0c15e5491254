"""Every Python block of docs/LEARNING.md runs as pasted, each in a fresh interpreter."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "LEARNING.md").read_text(), re.S)


def test_the_page_has_its_recipes() -> None:
    assert len(BLOCKS) >= 6
    assert any("MaskablePPO" in block for block in BLOCKS)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_each_block_runs_as_pasted(block: str, tmp_path: Path) -> None:
    if "sb3_contrib" in block and not os.environ.get("CI"):  # CI has the dev extra: no skip
        pytest.importorskip("sb3_contrib", reason="the train extra is not installed")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", block],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
