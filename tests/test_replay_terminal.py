"""The terminal replay's manners: keys (arrows, PageUp/PageDown, Home/End; unknown
escape sequences ignored) in a real pseudo-terminal, a closed pipe ending quietly, full
lines when the output is not a terminal, and one numbering that pastes back."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bots.greedy import GreedyBot
from sdk.local import play_match
from sdk.records import Record, encode_record
from sdk.replay.keys import KeyDecoder
from sdk.replay.numbering import in_hand, match_step

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def record() -> Record:
    result = play_match([GreedyBot() for _ in range(4)], seed=3, hands=3, record=True)
    assert result.record is not None
    return result.record


@pytest.fixture(scope="module")
def path(record: Record, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("replay") / "game.jsonl"
    out.write_text(encode_record(record), encoding="utf-8")
    return out


def _env() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("COLUMNS", None)
    return env


# --- keys --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "keys"),
    [
        (b"\x1b[5~\x1b[6~", ["pageup", "pagedown"]),
        (b"\x1b[H\x1b[F\x1bOH\x1bOF\x1b[1~\x1b[4~", ["home", "end"] * 3),
        (b"\x1b[A\x1b[B\x1b[C\x1b[D", ["up", "down", "right", "left"]),
        (b"\x1b[24~\x1b[1;5C\x1b[200~n", ["n"]),  # F12, Ctrl+right, paste start: dropped
        (b"\x1bxq", ["q"]),  # Alt+x dropped
        (b"\r\x7f ", ["enter", "backspace", " "]),
    ],
)
def test_the_decoder_reads_whole_sequences(data: bytes, keys: list[str]) -> None:
    assert KeyDecoder().feed(data) == keys


def test_a_sequence_split_across_reads_is_one_key() -> None:
    d = KeyDecoder()
    assert d.feed(b"\x1b") == [] and d.feed(b"[") == [] and d.feed(b"6") == []
    assert d.feed(b"~") == ["pagedown"] and not d.waiting


def test_a_lone_escape_is_escape_and_a_cut_sequence_nothing() -> None:
    d = KeyDecoder()
    assert d.feed(b"\x1b") == [] and d.timeout() == ["escape"]
    assert d.feed(b"\x1b[2") == [] and d.timeout() == []


class _Pty:
    """``python -m sdk.replay`` in a pseudo-terminal: keys in, screen text out."""

    def __init__(self, args: list[str]) -> None:
        self.master, slave = pty.openpty()
        os.set_blocking(self.master, False)
        env = _env() | {"TERM": "xterm", "COLUMNS": "160", "LINES": "60"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sdk.replay", *args],
            stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT,
        )  # fmt: skip
        os.close(slave)
        self.screen = ""

    def read_until(self, pattern: str, timeout: float = 15.0) -> str:
        """Everything shown since the last call, once ``pattern`` appears in it."""
        seen = ""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if select.select([self.master], [], [], 0.1)[0]:
                try:
                    seen += os.read(self.master, 65536).decode("utf-8", "replace")
                except OSError:
                    break
                if re.search(pattern, seen):
                    return seen
        raise AssertionError(f"{pattern!r} never shown; got {seen[-400:]!r}")

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        os.close(self.master)


def test_keys_in_a_terminal(path: Path, record: Record) -> None:
    term = _Pty([str(path)])
    try:
        term.read_until(r"hand 1 · step 0/")
        term.send(b"\x1b[6~")  # PageDown: next hand
        term.read_until(r"hand 2 · step 0/")
        last = len(record.hand_steps(1)) - 1
        term.send(b"\x1b[F")  # End
        term.read_until(rf"hand 2 · step {last}/{last}")
        term.send(b"\x1b[H")  # Home
        term.read_until(r"hand 2 · step 0/")
        term.send(b"\x1b[C\x1b[C")  # two right arrows
        term.read_until(r"hand 2 · step 2/")
        term.send(b"\x1b[24~\x1b[1;5C\x1b[3~")  # F12, Ctrl+right, Delete: ignored
        term.send(b"\x1b[5~")  # PageUp: back to hand 1, proving the replay still runs
        term.read_until(r"hand 1 · step 0/")
        assert term.proc.poll() is None
        term.send(b"q")
        assert term.proc.wait(timeout=10) == 0
    finally:
        term.close()


# --- pipes and files ---------------------------------------------------------------------


def test_a_closed_pipe_ends_quietly(path: Path) -> None:
    shell = f"{sys.executable} -m sdk.replay {path} --print | head -n 2"
    run = subprocess.run(
        ["bash", "-o", "pipefail", "-c", shell], capture_output=True, text=True, env=_env(),
        cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stderr == "" and len(run.stdout.splitlines()) == 2


def test_output_to_a_pipe_is_not_cut_at_80_columns(path: Path) -> None:
    args = [sys.executable, "-m", "sdk.replay", str(path), "--hand", "1", "--print"]
    run = subprocess.run(args, capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=120)
    assert run.returncode == 0
    lines = run.stdout.splitlines()
    assert max(map(len, lines)) > 80  # the table's river and the decisions' options
    narrow = subprocess.run(
        [*args, "--width", "60"], capture_output=True, text=True, env=_env(), cwd=ROOT,
        timeout=120,
    )  # fmt: skip
    assert max(map(len, narrow.stdout.splitlines())) <= 60
    assert len(narrow.stdout.splitlines()) > len(lines)  # wrapped there, whole here


# --- numbering ---------------------------------------------------------------------------


def test_printed_step_numbers_open_with_hand_and_step(
    record: Record, path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sdk.replay.__main__ import main

    assert main([str(path), "--hand", "2", "--print", "--width", "200"]) == 0
    out = capsys.readouterr().out
    assert "hand 2: dealer" in out
    line = next(x for x in out.splitlines() if " discards " in x)
    step = int(line.split()[0])
    assert main([str(path), "--hand", "2", "--step", str(step), "--width", "200"]) == 0
    table = capsys.readouterr().out
    assert f"hand 2 · step {step}/" in table
    global_step = match_step(record, 1, step)
    assert in_hand(record, global_step) == (1, step)
    assert record.events[global_step - 1].type == "discard"


def test_arrow_and_page_keys_move_the_stepper(record: Record) -> None:
    from sdk.replay import Stepper

    s = Stepper(record, hand=0)
    s.press("down")
    assert s.step == record.decisions[0].after_event
    s.press("up")
    assert s.step == s.first
    s.press("pagedown")
    assert s.hand == 1 and s.step == record.hand_steps(1).start + 1
    s.press("pageup")
    assert s.hand == 0
    assert s.press("f12") and s.press("") and s.hand == 0  # unknown keys: nothing, no quit
