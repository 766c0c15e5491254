"""Line-protocol programs for the arena and league tests: the C program compiled once,
the misbehaving Python program, and a check that nothing they started is left running."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "line_programs"
FAULTY = HERE / "faulty.py"


def compile_c(folder: Path) -> Path:
    """``drawn.c`` compiled into ``folder`` (the test is skipped without a C compiler)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler (cc)")
    out = folder / "drawn"
    subprocess.run([cc, "-O2", "-o", str(out), str(HERE / "drawn.c")], check=True)
    return out


def faulty(*args: str) -> str:
    """The spec of the misbehaving program with ``args``."""
    return f"cmd:{sys.executable} {FAULTY} " + " ".join(args)


def running(marker: str) -> list[str]:
    """Processes (not zombies) whose command line holds ``marker``."""
    out = subprocess.run(
        ["ps", "-eo", "pid=,stat=,args="], capture_output=True, text=True, check=True
    ).stdout
    return [
        line
        for line in out.splitlines()
        if marker in line and not line.split()[1].startswith("Z") and "ps -eo" not in line
    ]


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"
