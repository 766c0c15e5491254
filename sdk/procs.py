"""Run a line-protocol program so that its whole process tree ends with it.

A program started for a match (a server's ``--program`` seat, an arena program seat, the
conformance kit) may leave processes behind: a child it forgot, or a daemon it detached
with ``setsid`` so that it sits in another session and process group, out of reach of
``killpg``. Once its parent exits, such a process is re-parented to init and no
process-tree walk finds it again.

:func:`session_command` therefore runs the program under a small *keeper*: this file run
as a script, standard library only. The keeper marks itself a child subreaper
(``prctl(PR_SET_CHILD_SUBREAPER)``), so every orphan of the program's tree is re-parented
to the keeper instead of init; it hands its standard input and output to the program and
keeps no copy (end of stream is the program's); when the program exits, or the keeper is
sent ``SIGTERM``/``SIGHUP``/``SIGINT`` (or its own parent dies: ``PR_SET_PDEATHSIG``), it
kills every process left under it and exits as the program did (its exit code, or the
same signal). :func:`kill_tree` is the outside hammer: it kills a process and every
descendant it has (deepest first, while the keeper still holds them), and its group.

The one way to run a program (any caller, asyncio or threads)::

    proc = subprocess.Popen(session_command(cmd), stdin=PIPE, stdout=PIPE, start_new_session=True)
    ...  # play; at the end close its standard input
    end_process(proc, grace=2.0)  # waits, then kills the whole tree

On systems without ``prctl`` (not Linux) the program runs unwrapped and :func:`kill_tree`
falls back to its process group.

>>> session_command(["true"])[-2:]
['--', 'true']
>>> import subprocess
>>> proc = subprocess.Popen(session_command(["sh", "-c", "exit 3"]), start_new_session=True)
>>> end_process(proc, grace=5.0)
3
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence

__all__ = ["descendants", "end_process", "kill_tree", "session_command", "subreaper_available"]

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_PROC = "/proc"


def _prctl(option: int, value: int) -> bool:
    """Call ``prctl(option, value)``; ``False`` where there is no such call."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def subreaper_available() -> bool:
    """Whether programs are run under the keeper (Linux with ``/proc``)."""
    return sys.platform.startswith("linux") and os.path.isdir(_PROC)


def session_command(command: Sequence[str]) -> list[str]:
    """The command line that runs ``command`` under the keeper (see the module doc).

    Raises :class:`FileNotFoundError` or :class:`PermissionError` at once, as starting
    ``command`` directly would, when its program is not found or not executable.
    """
    if not command:
        raise ValueError("an empty command")
    program = command[0]
    if os.sep in program:
        if not os.path.exists(program):
            raise FileNotFoundError(2, "No such file or directory", program)
        if os.path.isdir(program) or not os.access(program, os.X_OK):
            raise PermissionError(13, "Permission denied", program)
    elif shutil.which(program) is None:
        raise FileNotFoundError(2, "No such file or directory", program)
    if not subreaper_available():
        return list(command)
    return [sys.executable, "-I", "-S", os.path.abspath(__file__), "--", *command]


def _parents() -> dict[int, list[int]]:
    """Every live process' children, from ``/proc/PID/stat``."""
    children: dict[int, list[int]] = {}
    try:
        names = os.listdir(_PROC)
    except OSError:
        return children
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"{_PROC}/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()  # after "pid (comm) "
        children.setdefault(int(fields[1]), []).append(int(name))
    return children


def descendants(pid: int) -> list[int]:
    """The processes below ``pid`` now, parents before their children.

    >>> descendants(os.getpid()) == [] or all(p != os.getpid() for p in descendants(os.getpid()))
    True
    """
    children = _parents()
    out: list[int] = []
    todo = list(children.get(pid, ()))
    while todo:
        child = todo.pop()
        out.append(child)
        todo.extend(children.get(child, ()))
    return out


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def kill_tree(pid: int, sig: int = signal.SIGKILL, rounds: int = 50) -> int:
    """Send ``sig`` to every descendant of ``pid`` (deepest first, again until none is
    left or ``rounds`` passes), then to ``pid`` and its process group. Returns how many
    processes were signalled. Descendants are killed while ``pid`` lives, so that under
    a keeper their orphans come back to it and are found on the next pass."""
    signalled: set[int] = set()
    for _ in range(rounds):
        below = [p for p in descendants(pid) if sig != signal.SIGKILL or p not in signalled]
        if not below:
            break
        for child in reversed(below):
            _signal(child, sig)
            signalled.add(child)
        time.sleep(0.002)
    _signal(pid, sig)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)
    return len(signalled) + 1


def end_process(proc: subprocess.Popen, grace: float = 2.0) -> int:
    """Wait up to ``grace`` seconds for ``proc`` (started with :func:`session_command`)
    to exit, then kill its whole tree; returns its exit code (negative: a signal).

    Close its standard input first if the program ends at end of input."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=grace)
    if proc.returncode is None:
        _signal(proc.pid, signal.SIGTERM)  # the keeper ends the tree and itself
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=1.0)
    kill_tree(proc.pid)  # whatever is left, keeper or not (its group too)
    return proc.wait()


# The keeper: this file run as a script (standard library only).


class _Stop(Exception):
    """The keeper was told to stop."""


def _stop(signum: int, frame: object) -> None:
    raise _Stop(signum)


def _reap_all(me: int) -> None:
    """Kill every process under the keeper and reap them until it has no child left."""
    for _ in range(200):
        for pid in reversed(descendants(me)):
            _signal(pid, signal.SIGKILL)
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            return
        time.sleep(0.005)


def _exit_like(status: int) -> None:
    """Exit with the program's wait ``status``: its code, or its signal."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        with contextlib.suppress(Exception):
            import resource

            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(status))


def _keep(command: list[str]) -> None:
    """Run ``command`` as a subreaper's only child; end its whole tree with it."""
    parent = os.getppid()
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, _stop)
    if os.getppid() != parent:  # the parent died before PDEATHSIG was set
        os._exit(1)
    try:
        pid = os.fork()
    except _Stop:
        os._exit(1)
    if pid == 0:
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(sig, signal.SIG_DFL)
        try:
            os.execvp(command[0], command)
        except OSError as exc:
            os.write(2, f"cannot start {command[0]!r}: {exc}\n".encode(errors="replace"))
        os._exit(127)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)  # the program's streams are its own: no copy kept here
    os.dup2(null, 1)
    me = os.getpid()
    status = 0
    try:
        while True:
            done, wstatus = os.wait()
            if done == pid:
                status = wstatus
                break
    except _Stop as stop:
        status = int(stop.args[0])  # a signal number: reported as that signal
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)
        _reap_all(me)
        _exit_like(status)  # as if killed by it (wait status of a signal == its number)
    except ChildProcessError:
        pass
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, signal.SIG_IGN)
    _reap_all(me)
    _exit_like(status)


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] != "--":
        sys.stderr.write("usage: procs.py -- COMMAND [ARG...]\n")
        sys.exit(2)
    _keep(sys.argv[2:])
