"""One way to run a line-protocol program so that its whole process tree ends with it
(:mod:`sdk.procs`, issue #32 item 5): the keeper ends a ``setsid`` daemon the program
left when the program exits; :func:`kill_tree` ends a program that will not exit, and
everything under it; the program's exit code or signal comes through the keeper.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sdk.procs import descendants, end_process, kill_tree, session_command

DAEMON = """
import os, sys, time
if os.fork():
    os._exit(0)
os.setsid()
with open(sys.argv[1], "a") as f:
    f.write(f"{os.getpid()}\\n")
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def _daemon_pid(pids: Path) -> int:
    for _ in range(200):
        if pids.exists() and pids.read_text().strip():
            return int(pids.read_text().split()[0])
        time.sleep(0.02)
    raise AssertionError("the daemon did not start")


def _gone(pid: int) -> bool:
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not _alive(pid)


pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc")


@pytest.mark.parametrize("ends", ["exits", "loops"])
def test_a_setsid_daemon_ends_with_its_program(tmp_path: Path, ends: str) -> None:
    pids = tmp_path / "pids"
    then = "sys.stdin.readline()" if ends == "exits" else "while True: pass"
    code = f"import subprocess, sys\nsubprocess.run([sys.executable, '-c', {DAEMON!r}, {str(pids)!r}])\n{then}"
    command = session_command([sys.executable, "-c", code])
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, start_new_session=True)
    daemon = _daemon_pid(pids)
    assert _alive(daemon) and os.getsid(daemon) == daemon  # a session of its own
    assert daemon in descendants(proc.pid)  # the keeper holds it (subreaper)
    assert proc.stdin is not None
    proc.stdin.close()  # the match is over
    returncode = end_process(proc, grace=0.5 if ends == "loops" else 10)
    assert _gone(daemon)
    assert returncode == (0 if ends == "exits" else -signal.SIGTERM)


def test_kill_tree_ends_every_process_below_and_reports_them(tmp_path: Path) -> None:
    code = (
        "import subprocess, sys, time\n"
        + "\n".join(
            "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])"
            for _ in range(3)
        )
        + "\ntime.sleep(600)"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    for _ in range(200):
        if len(descendants(proc.pid)) == 3:
            break
        time.sleep(0.02)
    below = descendants(proc.pid)
    assert len(below) == 3
    assert kill_tree(proc.pid) == 4
    assert proc.wait(5) == -signal.SIGKILL
    assert all(_gone(p) for p in below)


def test_the_programs_exit_comes_through_the_keeper() -> None:
    crash = session_command(
        [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"]
    )
    assert subprocess.run(crash).returncode == -signal.SIGSEGV
    assert subprocess.run(session_command(["sh", "-c", "exit 7"])).returncode == 7


def test_a_missing_program_is_refused_at_once_as_starting_it_would_be(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        session_command(["no-such-program-anywhere"])
    with pytest.raises(FileNotFoundError):
        session_command([str(tmp_path / "missing")])
    (tmp_path / "plain").write_text("")
    with pytest.raises(PermissionError):
        session_command([str(tmp_path / "plain")])
